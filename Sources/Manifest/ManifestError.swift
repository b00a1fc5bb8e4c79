/// Why `ManifestBuilder.build` refused its input. The builder never writes a manifest that breaks
/// its schema; instead it names the offending field with a path such as `inputs[1].sha256` or
/// `elements[C075CC7F-…].transform`. Each case has a stable `code` (`MANIFEST_*`), permanent.
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

    /// The stable code of each case: `MANIFEST_INVALID_VALUE`, `MANIFEST_NON_FINITE`,
    /// `MANIFEST_INDEX_OUT_OF_RANGE`, `MANIFEST_DUPLICATE`.
    public var code: String {
        switch self {
        case .invalidValue: return Self.invalidValueCode
        case .nonFinite: return Self.nonFiniteCode
        case .indexOutOfRange: return Self.indexOutOfRangeCode
        case .duplicate: return Self.duplicateCode
        }
    }

    public static let invalidValueCode = "MANIFEST_INVALID_VALUE"
    public static let nonFiniteCode = "MANIFEST_NON_FINITE"
    public static let indexOutOfRangeCode = "MANIFEST_INDEX_OUT_OF_RANGE"
    public static let duplicateCode = "MANIFEST_DUPLICATE"

    /// Always false: the builder refuses the same input the same way.
    public var isRetryable: Bool { false }

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
