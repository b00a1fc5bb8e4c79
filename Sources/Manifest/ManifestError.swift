import SceneModel

/// Why `ManifestBuilder.build` refused its input. The builder never writes a manifest that breaks
/// its schema; instead it names the offending field with a path such as `inputs[1].sha256` or
/// `elements[C075CC7F-…].transform`. Each case has a stable `code` (`MANIFEST_*`), permanent.
public enum ManifestError: CodedError, Hashable {
    /// A value has the wrong form (a hash that is not 64 hex digits, an unknown thumbnail kind, an
    /// absolute output path, …). `expected` says what the field accepts.
    case invalidValue(field: String, value: String, expected: String)
    /// A number that must be finite is NaN or infinite.
    case nonFinite(field: String)
    /// An index of the layered scene points outside its array.
    case indexOutOfRange(field: String, index: Int, count: Int)
    /// Two layers share an id, or two elements share an identifier.
    case duplicate(field: String, value: String)

    /// The stable codes, one per case.
    public enum Code: String, InputErrorCode {
        /// A value has the wrong form (the field is named); permanent.
        case invalidValue = "MANIFEST_INVALID_VALUE"
        /// A number that must be finite is NaN or infinite; permanent.
        case nonFinite = "MANIFEST_NON_FINITE"
        /// An index of the layered scene points outside its array; permanent.
        case indexOutOfRange = "MANIFEST_INDEX_OUT_OF_RANGE"
        /// Two layers share an id, or two elements an identifier; permanent.
        case duplicate = "MANIFEST_DUPLICATE"
    }

    /// The stable code of the case.
    public var code: Code {
        switch self {
        case .invalidValue: return .invalidValue
        case .nonFinite: return .nonFinite
        case .indexOutOfRange: return .indexOutOfRange
        case .duplicate: return .duplicate
        }
    }

    /// The field and what is wrong with it (the description: it names the field, not the code).
    public var message: String { description }

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
