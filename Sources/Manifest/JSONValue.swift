/// A JSON document tree, built by the manifest builder and serialised by `JSONWriter`.
///
/// Objects are plain dictionaries: key order is irrelevant here because the writer always sorts
/// keys. `number` carries a `Double` that the writer prints in shortest round-trip form;
/// non-finite values are written as `null` (JSON has no NaN or infinity).
enum JSONValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case int(Int)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// `.string(s)`, or `.null` when `s` is nil.
    static func string(_ s: String?) -> JSONValue { s.map { .string($0) } ?? .null }

    /// `.int(i)`, or `.null` when `i` is nil.
    static func int(_ i: Int?) -> JSONValue { i.map { .int($0) } ?? .null }

    /// `.bool(b)`, or `.null` when `b` is nil.
    static func bool(_ b: Bool?) -> JSONValue { b.map { .bool($0) } ?? .null }

    /// True for `null`, booleans and numbers: the values the writer keeps on one line in arrays.
    var isScalar: Bool {
        switch self {
        case .null, .bool, .int, .number: return true
        case .string, .array, .object: return false
        }
    }
}
