/// Facts about the source the scene came from. The scene itself is always metres, +Y up.
public struct SceneMetadata: Hashable, Sendable {
    public enum UpAxis: String, Hashable, Sendable { case y = "Y", z = "Z" }

    /// Up axis declared by the source (fallback Y).
    public var sourceUpAxis: UpAxis
    /// Metres per source unit (fallback 0.01 for USD, per UsdGeom).
    public var sourceMetersPerUnit: Double
    /// The root layer's `defaultPrim`, if any.
    public var defaultPrim: String?
    /// `usdz`, `usdc`, `usda` or `roomplan-json`.
    public var sourceFormat: String

    public init(
        sourceUpAxis: UpAxis = .y, sourceMetersPerUnit: Double = 0.01, defaultPrim: String? = nil,
        sourceFormat: String = ""
    ) {
        self.sourceUpAxis = sourceUpAxis
        self.sourceMetersPerUnit = sourceMetersPerUnit
        self.defaultPrim = defaultPrim
        self.sourceFormat = sourceFormat
    }
}

/// A non-fatal finding while building or checking a scene. `code` is stable for scripts.
public struct SceneWarning: Hashable, Sendable, CustomStringConvertible {
    public var code: String
    public var message: String
    public var primPath: String?

    public init(code: String, message: String, primPath: String? = nil) {
        self.code = code
        self.message = message
        self.primPath = primPath
    }

    public var description: String {
        primPath.map { "\(code): \(message) (\($0))" } ?? "\(code): \(message)"
    }
}
