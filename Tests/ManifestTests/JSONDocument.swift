/// A parsed JSON document for the tests: objects keep their members in file order so tests can
/// check key order and duplicates. Parsed by `JSONDocument.parse`, a strict RFC 8259 reader
/// written independently of the writer under test.
indirect enum JSONDocument: Equatable, Sendable, CustomStringConvertible {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONDocument])
    case object([Member])

    struct Member: Equatable, Sendable {
        var key: String
        var value: JSONDocument
    }

    struct ParseError: Error, CustomStringConvertible {
        var offset: Int
        var message: String
        var description: String { "JSON parse error at byte \(offset): \(message)" }
    }

    /// Member `key` of an object (the first, if duplicated).
    subscript(key: String) -> JSONDocument? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    /// Element `i` of an array.
    subscript(i: Int) -> JSONDocument? {
        guard case .array(let items) = self, i >= 0, i < items.count else { return nil }
        return items[i]
    }

    var stringValue: String? { if case .string(let s) = self { return s }; return nil }
    var numberValue: Double? { if case .number(let d) = self { return d }; return nil }
    var arrayValue: [JSONDocument]? { if case .array(let a) = self { return a }; return nil }
    var objectValue: [Member]? { if case .object(let o) = self { return o }; return nil }
    var isNull: Bool { self == .null }

    /// A copy with member `key` of the object at `path` (keys and indices) replaced, or removed
    /// when `value` is nil.
    func setting(_ path: [PathComponent], to value: JSONDocument?) -> JSONDocument {
        guard let first = path.first else { return value ?? .null }
        let rest = Array(path.dropFirst())
        switch (self, first) {
        case (.object(var members), .key(let k)):
            if let i = members.firstIndex(where: { $0.key == k }) {
                if rest.isEmpty && value == nil { members.remove(at: i) } else {
                    members[i].value = members[i].value.setting(rest, to: value)
                }
            } else if rest.isEmpty, let value {
                members.append(Member(key: k, value: value))
            }
            return .object(members)
        case (.array(var items), .index(let i)) where i >= 0 && i < items.count:
            if rest.isEmpty && value == nil { items.remove(at: i) } else { items[i] = items[i].setting(rest, to: value) }
            return .array(items)
        default:
            return self
        }
    }

    enum PathComponent: Sendable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
        case key(String)
        case index(Int)
        init(stringLiteral value: String) { self = .key(value) }
        init(integerLiteral value: Int) { self = .index(value) }
    }

    var description: String {
        switch self {
        case .null: return "null"
        case .bool(let b): return String(b)
        case .number(let d): return String(d)
        case .string(let s): return "\"\(s)\""
        case .array(let a): return "[" + a.map(\.description).joined(separator: ",") + "]"
        case .object(let o): return "{" + o.map { "\"\($0.key)\":\($0.value)" }.joined(separator: ",") + "}"
        }
    }

    // MARK: - Parsing

    static func parse(_ bytes: [UInt8]) throws -> JSONDocument {
        var p = Parser(bytes: bytes)
        p.skipSpace()
        let v = try p.value(depth: 0)
        p.skipSpace()
        guard p.pos == bytes.count else { throw ParseError(offset: p.pos, message: "trailing characters") }
        return v
    }

    static func parse(_ text: String) throws -> JSONDocument { try parse(Array(text.utf8)) }

    private struct Parser {
        let bytes: [UInt8]
        var pos = 0

        mutating func skipSpace() {
            while pos < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[pos]) { pos += 1 }
        }

        func fail(_ m: String) -> ParseError { ParseError(offset: pos, message: m) }

        mutating func expect(_ s: String) throws {
            for b in s.utf8 {
                guard pos < bytes.count, bytes[pos] == b else { throw fail("expected \(s)") }
                pos += 1
            }
        }

        mutating func value(depth: Int) throws -> JSONDocument {
            guard depth < 200 else { throw fail("too deep") }
            guard pos < bytes.count else { throw fail("unexpected end") }
            switch bytes[pos] {
            case UInt8(ascii: "n"): try expect("null"); return .null
            case UInt8(ascii: "t"): try expect("true"); return .bool(true)
            case UInt8(ascii: "f"): try expect("false"); return .bool(false)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "["):
                pos += 1
                var items: [JSONDocument] = []
                skipSpace()
                if pos < bytes.count, bytes[pos] == UInt8(ascii: "]") { pos += 1; return .array(items) }
                while true {
                    skipSpace()
                    items.append(try value(depth: depth + 1))
                    skipSpace()
                    guard pos < bytes.count else { throw fail("unterminated array") }
                    if bytes[pos] == UInt8(ascii: ",") { pos += 1; continue }
                    if bytes[pos] == UInt8(ascii: "]") { pos += 1; return .array(items) }
                    throw fail("expected , or ]")
                }
            case UInt8(ascii: "{"):
                pos += 1
                var members: [Member] = []
                skipSpace()
                if pos < bytes.count, bytes[pos] == UInt8(ascii: "}") { pos += 1; return .object(members) }
                while true {
                    skipSpace()
                    guard pos < bytes.count, bytes[pos] == UInt8(ascii: "\"") else { throw fail("expected a key") }
                    let key = try string()
                    skipSpace()
                    try expect(":")
                    skipSpace()
                    members.append(Member(key: key, value: try value(depth: depth + 1)))
                    skipSpace()
                    guard pos < bytes.count else { throw fail("unterminated object") }
                    if bytes[pos] == UInt8(ascii: ",") { pos += 1; continue }
                    if bytes[pos] == UInt8(ascii: "}") { pos += 1; return .object(members) }
                    throw fail("expected , or }")
                }
            default:
                return .number(try number())
            }
        }

        mutating func number() throws -> Double {
            let start = pos
            func digits() -> Int {
                let s = pos
                while pos < bytes.count, bytes[pos] >= UInt8(ascii: "0"), bytes[pos] <= UInt8(ascii: "9") { pos += 1 }
                return pos - s
            }
            if pos < bytes.count, bytes[pos] == UInt8(ascii: "-") { pos += 1 }
            let intStart = pos
            let n = digits()
            guard n > 0 else { throw fail("bad number") }
            if n > 1, bytes[intStart] == UInt8(ascii: "0") { throw fail("leading zero") }
            if pos < bytes.count, bytes[pos] == UInt8(ascii: ".") {
                pos += 1
                guard digits() > 0 else { throw fail("bad fraction") }
            }
            if pos < bytes.count, bytes[pos] == UInt8(ascii: "e") || bytes[pos] == UInt8(ascii: "E") {
                pos += 1
                if pos < bytes.count, bytes[pos] == UInt8(ascii: "+") || bytes[pos] == UInt8(ascii: "-") { pos += 1 }
                guard digits() > 0 else { throw fail("bad exponent") }
            }
            guard let d = Double(String(decoding: bytes[start..<pos], as: UTF8.self)) else { throw fail("bad number") }
            return d
        }

        mutating func hex4() throws -> UInt32 {
            guard pos + 4 <= bytes.count, let v = UInt32(String(decoding: bytes[pos..<pos + 4], as: UTF8.self), radix: 16)
            else { throw fail("bad \\u escape") }
            pos += 4
            return v
        }

        mutating func string() throws -> String {
            pos += 1
            var scalars = String.UnicodeScalarView()
            var raw: [UInt8] = []
            func flush() throws {
                guard !raw.isEmpty else { return }
                guard let s = String(validating: raw, as: UTF8.self) else { throw fail("invalid UTF-8") }
                scalars.append(contentsOf: s.unicodeScalars)
                raw.removeAll()
            }
            while true {
                guard pos < bytes.count else { throw fail("unterminated string") }
                let b = bytes[pos]
                if b == UInt8(ascii: "\"") { pos += 1; break }
                if b < 0x20 { throw fail("raw control character in string") }
                if b != UInt8(ascii: "\\") { raw.append(b); pos += 1; continue }
                try flush()
                pos += 1
                guard pos < bytes.count else { throw fail("unterminated escape") }
                let e = bytes[pos]
                pos += 1
                switch e {
                case UInt8(ascii: "\""): scalars.append("\"")
                case UInt8(ascii: "\\"): scalars.append("\\")
                case UInt8(ascii: "/"): scalars.append("/")
                case UInt8(ascii: "b"): scalars.append("\u{08}")
                case UInt8(ascii: "f"): scalars.append("\u{0C}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "u"):
                    var v = try hex4()
                    if (0xD800..<0xDC00).contains(v) {
                        try expect("\\u")
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw fail("unpaired surrogate") }
                        v = 0x10000 + ((v - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let u = Unicode.Scalar(v) else { throw fail("unpaired surrogate") }
                    scalars.append(u)
                default: throw fail("bad escape")
                }
            }
            try flush()
            return String(scalars)
        }
    }
}
