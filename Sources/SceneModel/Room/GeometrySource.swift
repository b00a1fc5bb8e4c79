/// Where an element's geometry comes from.
public enum GeometrySource: String, Hashable, Sendable {
    /// Geometry read from the USD file.
    case usd
    /// Geometry built from the CapturedRoom JSON because no USD element matched.
    case synthesized
    /// No geometry (e.g. a JSON element the input cannot place).
    case none
}
