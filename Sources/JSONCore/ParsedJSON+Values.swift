/// Typed reads of a parsed value, for small documents read field by field (protocol messages,
/// request bodies, database results), and the conversion to `JSONValue` for writing one again.
/// Every accessor returns nil for a value of another kind; none traps.
extension ParsedJSON {
    /// The text of a string.
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// A boolean (numbers and strings are not booleans).
    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    /// A finite number.
    public var doubleValue: Double? {
        guard case .number(let text) = self, let d = Double(text), d.isFinite else { return nil }
        return d
    }

    /// A number that is a whole number within ±2⁵³ (`3`, `3.0` and `3e0` alike; `3.5` and `1e300`
    /// are not), so it converts exactly.
    public var intValue: Int? {
        guard case .number(let text) = self else { return nil }
        // `magnitude`, not `abs`: abs(Int.min) traps, and "-9223372036854775808" is valid JSON.
        if let i = Int(text) { return i.magnitude <= UInt(Self.exactIntegerBound) ? i : nil }
        guard let d = Double(text), d.isFinite, d == d.rounded(.towardZero),
              abs(d) <= Double(Self.exactIntegerBound)
        else { return nil }
        return Int(d)
    }

    /// The elements of an array.
    public var arrayValue: [ParsedJSON]? {
        if case .array(let items) = self { return items }
        return nil
    }

    /// The value to write again: whole numbers within ±2⁵³ as `.int`, other finite numbers as
    /// `.double`, numbers too large for a Double as `.null`; objects as `.object` (the last of
    /// duplicate keys wins, as `member(_:)` reads them); a skipped string as `.null`.
    public var jsonValue: JSONValue {
        switch self {
        case .null, .skipped: return .null
        case .bool(let b): return .bool(b)
        case .string(let s): return .string(s)
        case .number:
            if let i = intValue { return .int(Int64(i)) }
            if let d = doubleValue { return .double(d) }
            return .null
        case .array(let items): return .array(items.map(\.jsonValue))
        case .object(let members):
            var out: [String: JSONValue] = [:]
            for m in members { out[m.key] = m.value.jsonValue }
            return .object(out)
        }
    }

    /// 2⁵³: the largest whole number a Double holds exactly, as JavaScript readers also assume.
    static let exactIntegerBound = 1 << 53
}

extension JSONReader.Limits {
    /// Bounds for small documents the worker reads field by field: a line from the job child,
    /// an HTTP request body, a function's result from the database. Depth 32, 100,000 values,
    /// strings up to 1 MiB, numbers up to 64 characters.
    public static let smallDocument = JSONReader.Limits(
        maxDepth: 32, maxValues: 100_000, maxStringBytes: 1 << 20, maxNumberLength: 64)

    /// Bounds for a `layer_manifest.json` this program wrote, read back as untrusted (the previous
    /// revision's, the report's): depth 64, 2,000,000 values, strings up to 1 MiB, numbers up to
    /// 64 characters.
    public static let manifest = JSONReader.Limits(
        maxDepth: 64, maxValues: 2_000_000, maxStringBytes: 1 << 20, maxNumberLength: 64)
}
