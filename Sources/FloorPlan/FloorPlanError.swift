import SceneModel

/// A floor plan that could not be drawn, with a stable code.
public struct FloorPlanError: CodedError, Equatable {
    /// The stable codes.
    public enum Code: String, InputErrorCode {
        /// Cairo reported an error, or there is no sheet to draw; permanent (the same plan fails the same way).
        case renderFailed = "PLAN_RENDER_FAILED"
    }

    public var code: Code
    public var message: String
    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }
    public var description: String { "\(code.rawValue): \(message)" }
}
