/// A JSON-like value used for custom data carried from the source file (USD `customData`,
/// RoomPlan attributes). Dictionaries keep their keys sorted so output stays deterministic.
public indirect enum MetadataValue: Hashable, Sendable {
    case string(String)
    case int(Int64)
    case double(Double)
    case bool(Bool)
    case array([MetadataValue])
    case dictionary([String: MetadataValue])

    /// The string payload, if this is a string.
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }
}
