/// Serialises a `JSONValue` to UTF-8 bytes, deterministically: the same tree always gives the same
/// bytes on every platform.
///
/// Format:
/// - object keys sorted by Unicode code point (the same order as their UTF-8 bytes) at every level;
/// - two-space indentation, `"key": value`, one member or element per line, except that arrays
///   holding only numbers, booleans and nulls are written on one line (`[1, 0, 0]`);
/// - empty containers as `{}` and `[]`; a single trailing newline after the document;
/// - integers in decimal; finite doubles in shortest round-trip form (`0.1`, `1e-07`), with integral
///   values up to 2⁵³ written as integers (`2`, not `2.0`; larger ones as `1e+16`), negative zero
///   as `0`;
///   NaN and ±infinity as `null`;
/// - strings: `"` and `\` escaped, control characters U+0000…U+001F escaped (`\b \f \n \r \t` or
///   `\u00XX`), everything else, non-ASCII included, written as raw UTF-8.
struct JSONWriter {
    private(set) var bytes: [UInt8] = []

    /// The document's bytes, with the trailing newline.
    static func serialize(_ value: JSONValue) -> [UInt8] {
        var writer = JSONWriter()
        writer.bytes.reserveCapacity(4096)
        writer.write(value, indent: 0)
        writer.bytes.append(UInt8(ascii: "\n"))
        return writer.bytes
    }

    /// The JSON text of a double, or nil when it is not finite (the caller writes `null`).
    static func numberText(_ d: Double) -> String? {
        guard d.isFinite else { return nil }
        if d == 0 { return "0" }
        if d == d.rounded(.towardZero), abs(d) <= 9_007_199_254_740_992 { return String(Int64(d)) }
        // Swift's description is the shortest string that reads back to the same double; its
        // forms ("0.125", "1e-07", "1.5e+20") are all valid JSON numbers. Non-integral values
        // never end in ".0", and integral ones above 2^53 use the exponent form.
        return d.description
    }

    private mutating func write(_ value: JSONValue, indent: Int) {
        switch value {
        case .null: append("null")
        case .bool(let b): append(b ? "true" : "false")
        case .int(let i): append(String(i))
        case .number(let d): append(JSONWriter.numberText(d) ?? "null")
        case .string(let s): writeString(s)
        case .array(let items): writeArray(items, indent: indent)
        case .object(let members): writeObject(members, indent: indent)
        }
    }

    private mutating func writeArray(_ items: [JSONValue], indent: Int) {
        guard !items.isEmpty else { return append("[]") }
        if items.allSatisfy(\.isScalar) {
            append("[")
            for (i, item) in items.enumerated() {
                if i > 0 { append(", ") }
                write(item, indent: indent)
            }
            return append("]")
        }
        append("[")
        for (i, item) in items.enumerated() {
            if i > 0 { append(",") }
            newline(indent + 1)
            write(item, indent: indent + 1)
        }
        newline(indent)
        append("]")
    }

    private mutating func writeObject(_ members: [String: JSONValue], indent: Int) {
        guard !members.isEmpty else { return append("{}") }
        let keys = members.keys.sorted { $0.unicodeScalars.lexicographicallyPrecedes($1.unicodeScalars) }
        append("{")
        for (i, key) in keys.enumerated() {
            if i > 0 { append(",") }
            newline(indent + 1)
            writeString(key)
            append(": ")
            write(members[key]!, indent: indent + 1)
        }
        newline(indent)
        append("}")
    }

    private mutating func writeString(_ s: String) {
        bytes.append(UInt8(ascii: "\""))
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": append("\\\"")
            case "\\": append("\\\\")
            case "\n": append("\\n")
            case "\r": append("\\r")
            case "\t": append("\\t")
            case "\u{08}": append("\\b")
            case "\u{0C}": append("\\f")
            default:
                if scalar.value < 0x20 {
                    append("\\u00")
                    bytes.append(JSONWriter.hexDigit(scalar.value >> 4))
                    bytes.append(JSONWriter.hexDigit(scalar.value & 0xF))
                } else {
                    UTF8.encode(scalar) { bytes.append($0) }
                }
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private static func hexDigit(_ v: UInt32) -> UInt8 {
        v < 10 ? UInt8(ascii: "0") + UInt8(v) : UInt8(ascii: "a") + UInt8(v - 10)
    }

    private mutating func newline(_ indent: Int) {
        bytes.append(UInt8(ascii: "\n"))
        bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: indent * 2))
    }

    private mutating func append(_ s: String) { bytes.append(contentsOf: s.utf8) }
}
