/// A floor plan that could not be drawn. `code` is stable: `PLAN_RENDER_FAILED` (cairo reported an
/// error; permanent, as drawing the same plan fails the same way).
public struct FloorPlanError: Error, Sendable, Equatable, CustomStringConvertible {
    public var code: String
    public var message: String
    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }
    public var description: String { "\(code): \(message)" }
}
