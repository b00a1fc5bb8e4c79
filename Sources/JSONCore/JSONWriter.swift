/// The one JSON serialiser: the same value and options always give the same bytes, on every
/// platform and in every process.
///
/// Rules shared by every layout:
/// - `object` keys sorted by Unicode scalar (the order of their UTF-8 bytes); `members` as given;
/// - integers in decimal; doubles and floats in shortest round-trip form (`0.1`, `1e-07`), with
///   integral values below 2⁵³ written as integers (`2`, not `2.0`), negative zero as `0`;
/// - non-finite numbers as `Options.nonFinite` says (JSON has no NaN or infinity);
/// - strings: `"` and `\` escaped, `\n`, `\r`, `\t` as such, other control characters
///   U+0000…U+001F as `\u00XX`, everything else, non-ASCII included, as raw UTF-8.
public enum JSONWriter {
    public enum Layout: Sendable {
        /// No whitespace at all.
        case compact
        /// Two-space indentation, `"key": value`, one member or element per line, except that
        /// arrays of numbers, booleans and nulls stay on one line (`[1, 0, 0]`).
        case indented
    }

    public enum NonFinite: Sendable {
        /// `null` (the manifest, logs, events).
        case null
        /// `0` (glTF, whose numeric fields cannot be null; writers sanitise first).
        case zero
    }

    public struct Options: Sendable {
        public var layout: Layout
        public var nonFinite: NonFinite
        /// One `\n` after the document (files meant for people and diff tools).
        public var trailingNewline: Bool

        public init(layout: Layout = .compact, nonFinite: NonFinite = .null, trailingNewline: Bool = false) {
            self.layout = layout
            self.nonFinite = nonFinite
            self.trailingNewline = trailingNewline
        }
    }

    /// The document's UTF-8 bytes.
    public static func bytes(_ value: JSONValue, _ options: Options = Options()) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(4096)
        write(value, options, indent: 0, into: &out)
        if options.trailingNewline { out.append(UInt8(ascii: "\n")) }
        return out
    }

    /// The text of a double, or nil when it is not finite.
    public static func numberText(_ d: Double) -> String? {
        guard d.isFinite else { return nil }
        if d == d.rounded(.towardZero), abs(d) < 9_007_199_254_740_992 { return String(Int64(d)) }
        return exponentSafe(d.description)
    }

    /// The text of a float (shortest form that reads back as the same `Float`), or nil when it
    /// is not finite.
    public static func numberText(_ f: Float) -> String? {
        guard f.isFinite else { return nil }
        if f == f.rounded(.towardZero), abs(f) < 9_007_199_254_740_992 { return String(Int64(f)) }
        return exponentSafe(f.description)
    }

    /// Swift's descriptions already use JSON-compatible exponents (`1e-05`, `1e+16`); this keeps
    /// the guarantee explicit should a form ever lack a digit before the point.
    private static func exponentSafe(_ s: String) -> String {
        if s.hasPrefix(".") { return "0" + s }
        if s.hasPrefix("-.") { return "-0" + s.dropFirst() }
        return s
    }

    static func write(_ value: JSONValue, _ options: Options, indent: Int, into out: inout [UInt8]) {
        switch value {
        case .null: append("null", &out)
        case .bool(let b): append(b ? "true" : "false", &out)
        case .int(let i): append(String(i), &out)
        case .double(let d): append(numberText(d) ?? nonFinite(options), &out)
        case .float(let f): append(numberText(f) ?? nonFinite(options), &out)
        case .string(let s): writeString(s, into: &out)
        case .array(let items): writeArray(items, options, indent: indent, into: &out)
        case .object(let dict):
            let keys = dict.keys.sorted { $0.unicodeScalars.lexicographicallyPrecedes($1.unicodeScalars) }
            writeMembers(keys.map { ($0, dict[$0]!) }, options, indent: indent, into: &out)
        case .members(let members):
            writeMembers(members.map { ($0.key, $0.value) }, options, indent: indent, into: &out)
        }
    }

    private static func nonFinite(_ options: Options) -> String {
        switch options.nonFinite {
        case .null: return "null"
        case .zero: return "0"
        }
    }

    private static func writeArray(_ items: [JSONValue], _ options: Options, indent: Int, into out: inout [UInt8]) {
        guard !items.isEmpty else { return append("[]", &out) }
        out.append(UInt8(ascii: "["))
        let oneLine = options.layout == .compact || items.allSatisfy(\.isScalar)
        for (i, item) in items.enumerated() {
            if i > 0 { append(options.layout == .compact ? "," : oneLine ? ", " : ",", &out) }
            if !oneLine { newline(indent + 1, &out) }
            write(item, options, indent: indent + 1, into: &out)
        }
        if !oneLine { newline(indent, &out) }
        out.append(UInt8(ascii: "]"))
    }

    private static func writeMembers(_ members: [(String, JSONValue)], _ options: Options, indent: Int, into out: inout [UInt8]) {
        guard !members.isEmpty else { return append("{}", &out) }
        out.append(UInt8(ascii: "{"))
        for (i, (key, value)) in members.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            if options.layout == .indented { newline(indent + 1, &out) }
            writeString(key, into: &out)
            append(options.layout == .compact ? ":" : ": ", &out)
            write(value, options, indent: indent + 1, into: &out)
        }
        if options.layout == .indented { newline(indent, &out) }
        out.append(UInt8(ascii: "}"))
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Appends `s` as a JSON string literal.
    public static func writeString(_ s: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in s.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x0A: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0x00..<0x20:
                out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
                out.append(hexDigits[Int(byte >> 4)])
                out.append(hexDigits[Int(byte & 0xF)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    private static func newline(_ indent: Int, _ out: inout [UInt8]) {
        out.append(UInt8(ascii: "\n"))
        out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: indent * 2))
    }

    private static func append(_ s: String, _ out: inout [UInt8]) { out.append(contentsOf: s.utf8) }
}
