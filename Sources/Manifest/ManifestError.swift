/// Why `ManifestBuilder.build` refused its input. The builder never writes a manifest that breaks
/// its schema; instead it names the offending field with a path such as `inputs[1].sha256` or
/// `elements[C075CC7F-…].transform`.
public enum ManifestError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A value has the wrong form (a hash that is not 64 hex digits, an unknown thumbnail kind, an
    /// absolute output path, …). `expected` says what the field accepts.
    case invalidValue(field: String, value: String, expected: String)
    /// A number that must be finite is NaN or infinite.
    case nonFinite(field: String)
    /// An index of the layered scene points outside its array.
    case indexOutOfRange(field: String, index: Int, count: Int)
    /// Two layers share an id, or two elements share an identifier.
    case duplicate(field: String, value: String)

    public var description: String {
        switch self {
        case .invalidValue(let field, let value, let expected):
            return "\(field): invalid value \"\(value)\" (expected \(expected))"
        case .nonFinite(let field):
            return "\(field): not a finite number"
        case .indexOutOfRange(let field, let index, let count):
            return "\(field): index \(index) out of range 0..<\(count)"
        case .duplicate(let field, let value):
            return "\(field): duplicate \"\(value)\""
        }
    }
}
