import JSONCore

/// The manifest is a `JSONCore.JSONValue` tree; these are the builder's shorthands for optional
/// fields (absent: `null`).
extension JSONValue {
    /// `.string(s)`, or `.null` when `s` is nil.
    static func string(_ s: String?) -> JSONValue { s.map { .string($0) } ?? .null }

    /// `.int(i)`, or `.null` when `i` is nil.
    static func int(_ i: Int?) -> JSONValue { i.map { .int(Int64($0)) } ?? .null }

    /// `.bool(b)`, or `.null` when `b` is nil.
    static func bool(_ b: Bool?) -> JSONValue { b.map { .bool($0) } ?? .null }
}
