/// Why a `.glb` could not be written. `code` is stable for scripts and callbacks; `message` is
/// short, safe to log, and names the offending node, mesh or layer where there is one.
///
/// Codes:
/// - `GLB_INVALID_SCENE`: `SceneValidator` reported errors, or the layered scene breaks the node
///   layout contract (layer node missing, not a root, shared; element node outside its layers).
/// - `GLB_TOO_LARGE`: the binary buffer would exceed 2 GiB (glTF readers use 32-bit sizes).
public struct GLBWriterError: Error, Sendable, CustomStringConvertible {
    public var code: String
    public var message: String

    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }

    static func invalidScene(_ message: String) -> GLBWriterError {
        GLBWriterError(code: "GLB_INVALID_SCENE", message: message)
    }

    static func tooLarge(_ message: String) -> GLBWriterError {
        GLBWriterError(code: "GLB_TOO_LARGE", message: message)
    }
}
