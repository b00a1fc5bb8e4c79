/// A JSON value whose objects keep their keys in the order they were built, so serialising the same
/// value always gives the same bytes. The writer decides every key order; nothing here sorts or
/// hashes.
indirect enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case int(Int)
    /// A double, written in its shortest round-trip form.
    case double(Double)
    /// A single-precision value, written in the shortest form that reads back to the same `Float`
    /// (material factors, texture transforms: values that readers store as float32).
    case float(Float)
    case string(String)
    case array([JSONValue])
    case object([JSONMember])

    /// An array of doubles.
    static func doubles(_ values: [Double]) -> JSONValue { .array(values.map { .double($0) }) }
    /// An array of floats.
    static func floats(_ values: [Float]) -> JSONValue { .array(values.map { .float($0) }) }
}

/// One key/value pair of a JSON object.
struct JSONMember: Equatable, Sendable {
    var key: String
    var value: JSONValue

    init(_ key: String, _ value: JSONValue) {
        self.key = key
        self.value = value
    }
}

/// Builds an object member list fluently, skipping absent optionals.
struct JSONObjectBuilder {
    private(set) var members: [JSONMember] = []

    mutating func set(_ key: String, _ value: JSONValue) { members.append(JSONMember(key, value)) }

    mutating func set(_ key: String, _ value: JSONValue?) {
        if let value { members.append(JSONMember(key, value)) }
    }

    var value: JSONValue { .object(members) }
}

/// Deterministic JSON serialiser: compact (no whitespace), members in stored order, numbers in
/// shortest round-trip form with no locale, strings escaped per RFC 8259 (non-ASCII kept as UTF-8).
/// Non-finite numbers cannot be represented in JSON and are written as `0`; callers sanitise first.
enum JSONWriter {
    /// Serialises `value` to UTF-8 bytes.
    static func serialize(_ value: JSONValue) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(4096)
        write(value, into: &out)
        return out
    }

    static func write(_ value: JSONValue, into out: inout [UInt8]) {
        switch value {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .int(let i): out.append(contentsOf: String(i).utf8)
        case .double(let d): out.append(contentsOf: formatDouble(d).utf8)
        case .float(let f): out.append(contentsOf: formatFloat(f).utf8)
        case .string(let s): writeString(s, into: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                write(item, into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (i, member) in members.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                writeString(member.key, into: &out)
                out.append(UInt8(ascii: ":"))
                write(member.value, into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// Shortest round-trip text for a double; integral values below 2^53 print without a fraction
    /// (`1`, not `1.0`); `-0` prints as `0`.
    static func formatDouble(_ d: Double) -> String {
        guard d.isFinite else { return "0" }
        if d == d.rounded(.towardZero), abs(d) < 9_007_199_254_740_992 { return String(Int64(d)) }
        return jsonExponent(d.description)
    }

    /// Shortest text that reads back as the same `Float`; integral values below 10^15 print
    /// without a fraction.
    static func formatFloat(_ f: Float) -> String {
        guard f.isFinite else { return "0" }
        if f == f.rounded(.towardZero), abs(f) < 1e15 { return String(Int64(f)) }
        return jsonExponent(f.description)
    }

    /// Swift's description already uses JSON-compatible exponents (`1e-05`, `1e+16`); this keeps
    /// that guarantee explicit should the form ever lack a digit before the exponent.
    private static func jsonExponent(_ s: String) -> String {
        if s.hasPrefix(".") { return "0" + s }
        if s.hasPrefix("-.") { return "-0" + s.dropFirst() }
        return s
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    static func writeString(_ s: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in s.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x0A: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0x00..<0x20, 0x7F:
                out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
                out.append(hexDigits[Int(byte >> 4)])
                out.append(hexDigits[Int(byte & 0xF)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
