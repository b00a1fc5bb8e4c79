import SceneModel

/// Why a `.glb` could not be written. `code` is stable for scripts and callbacks; `message` is
/// short, safe to log, and names the offending node, mesh or layer where there is one.
public struct GLBWriterError: CodedError {
    /// The stable codes.
    public enum Code: String, ErrorCode {
        /// The scene fails `SceneValidator` or breaks the layers' node layout (a fault of the scene built); permanent.
        case invalidScene = "GLB_INVALID_SCENE"
        /// The binary buffer would exceed 2 GiB (glTF readers use 32-bit sizes); permanent.
        case tooLarge = "GLB_TOO_LARGE"

        /// Always false: the same scene fails the same way.
        public var isRetryable: Bool { false }
        /// An invalid scene is the fault of the layered scene the worker built, not of the input.
        public var isInputError: Bool { self != .invalidScene }
    }

    public var code: Code
    public var message: String

    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }

    static func invalidScene(_ message: String) -> GLBWriterError {
        GLBWriterError(code: .invalidScene, message: message)
    }

    static func tooLarge(_ message: String) -> GLBWriterError {
        GLBWriterError(code: .tooLarge, message: message)
    }
}
