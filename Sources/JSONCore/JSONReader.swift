/// A small, bounded JSON parser over bytes (RFC 8259), written for untrusted uploads:
/// - total input size is checked by the caller; nesting depth, number of values, string length and
///   number length are capped, so memory and recursion are bounded;
/// - every failure is a `JSONReadError` (syntax or limit) carrying the JSON path where parsing stopped
///   (`walls[2].transform[7]`);
/// - string values of selected keys (RoomPlan's base64 `coreModel`), at any depth, are scanned for
///   syntax only and never decoded: they take no string budget and no memory, only their length is
///   kept (the whole document is bounded by the caller);
/// - nothing traps: all indices are checked and no arithmetic can overflow at the enforced limits.
public struct JSONReader {
    /// The caps a document is parsed under (counts; bytes for strings; characters for numbers).
    public struct Limits: Sendable {
        public var maxDepth: Int
        public var maxValues: Int
        public var maxStringBytes: Int
        public var maxNumberLength: Int

        public init(maxDepth: Int, maxValues: Int, maxStringBytes: Int, maxNumberLength: Int) {
            self.maxDepth = maxDepth
            self.maxValues = maxValues
            self.maxStringBytes = maxStringBytes
            self.maxNumberLength = maxNumberLength
        }
    }

    private let bytes: [UInt8]
    private let limits: Limits
    private let skipKeys: Set<String>
    private var pos = 0
    private var path: [JSONPathComponent] = []
    private var values = 0

    private init(bytes: [UInt8], limits: Limits, skipKeys: Set<String>) {
        self.bytes = bytes
        self.limits = limits
        self.skipKeys = skipKeys
    }

    /// Parses one JSON document (an optional UTF-8 byte order mark, one value, whitespace).
    /// A string value of a member named in `skipKeys`, in any object at any depth, becomes
    /// `.skipped(byteCount:)`; a non-string value of such a member is parsed as usual.
    public static func parse(_ bytes: [UInt8], limits: Limits, skipKeys: Set<String> = []) throws(JSONReadError) -> ParsedJSON {
        var reader = JSONReader(bytes: bytes, limits: limits, skipKeys: skipKeys)
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { reader.pos = 3 }
        reader.skipWhitespace()
        guard reader.pos < bytes.count else { throw JSONReadError.syntax("empty document", at: "$") }
        let value = try reader.parseValue(depth: 0)
        reader.skipWhitespace()
        if reader.pos < bytes.count {
            throw reader.syntax("unexpected \(reader.describeByte(reader.pos)) after the document")
        }
        return value
    }

    // MARK: Errors

    private func currentPath() -> String { JSONPathComponent.render(path) }

    private func syntax(_ message: String) -> JSONReadError {
        JSONReadError.syntax("\(message) (byte offset \(pos))", at: currentPath())
    }

    private func describeByte(_ i: Int) -> String {
        guard i < bytes.count else { return "end of input" }
        let b = bytes[i]
        if b >= 0x21 && b < 0x7F { return "'\(Character(Unicode.Scalar(b)))'" }
        let hex = String(b, radix: 16, uppercase: true)
        return "byte 0x" + (hex.count < 2 ? "0" + hex : hex)
    }

    private mutating func countValue() throws(JSONReadError) {
        values += 1
        if values > limits.maxValues {
            throw JSONReadError.limit("more than \(limits.maxValues) JSON values (maxValues)", at: currentPath())
        }
    }

    // MARK: Grammar

    private mutating func skipWhitespace() {
        while pos < bytes.count {
            let b = bytes[pos]
            guard b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 else { return }
            pos += 1
        }
    }

    private mutating func parseValue(depth: Int) throws(JSONReadError) -> ParsedJSON {
        guard pos < bytes.count else { throw syntax("unexpected end of input, expected a value") }
        try countValue()
        switch bytes[pos] {
        case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
        case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw syntax("unexpected \(describeByte(pos)), expected a value")
        }
    }

    private mutating func literal(_ word: String) throws(JSONReadError) {
        var n = 0
        for b in word.utf8 {
            guard pos + n < bytes.count else { throw syntax("unexpected end of input in a literal") }
            guard bytes[pos + n] == b else { throw syntax("invalid literal") }
            n += 1
        }
        pos += n
    }

    private mutating func enter(depth: Int) throws(JSONReadError) {
        if depth > limits.maxDepth {
            throw JSONReadError.limit("nesting deeper than \(limits.maxDepth) (maxDepth)", at: currentPath())
        }
    }

    private mutating func parseObject(depth: Int) throws(JSONReadError) -> ParsedJSON {
        try enter(depth: depth)
        pos += 1  // {
        var members: [ParsedJSONMember] = []
        skipWhitespace()
        if pos < bytes.count, bytes[pos] == UInt8(ascii: "}") {
            pos += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard pos < bytes.count else { throw syntax("unexpected end of input in an object") }
            guard bytes[pos] == UInt8(ascii: "\"") else { throw syntax("unexpected \(describeByte(pos)), expected a key") }
            let key = try parseString()
            skipWhitespace()
            guard pos < bytes.count else { throw syntax("unexpected end of input after a key") }
            guard bytes[pos] == UInt8(ascii: ":") else { throw syntax("unexpected \(describeByte(pos)), expected ':'") }
            pos += 1
            skipWhitespace()
            path.append(.key(key))
            let value: ParsedJSON
            if skipKeys.contains(key), pos < bytes.count, bytes[pos] == UInt8(ascii: "\"") {
                try countValue()
                value = .skipped(byteCount: try skipString())
            } else {
                value = try parseValue(depth: depth)
            }
            members.append(ParsedJSONMember(key: key, value: value))
            skipWhitespace()
            guard pos < bytes.count else { throw syntax("unexpected end of input in an object") }
            let separator = bytes[pos]
            guard separator == UInt8(ascii: ",") || separator == UInt8(ascii: "}") else {
                throw syntax("unexpected \(describeByte(pos)), expected ',' or '}'")
            }
            path.removeLast()
            pos += 1
            if separator == UInt8(ascii: "}") { return .object(members) }
        }
    }

    private mutating func parseArray(depth: Int) throws(JSONReadError) -> ParsedJSON {
        try enter(depth: depth)
        pos += 1  // [
        var items: [ParsedJSON] = []
        skipWhitespace()
        if pos < bytes.count, bytes[pos] == UInt8(ascii: "]") {
            pos += 1
            return .array(items)
        }
        while true {
            skipWhitespace()
            path.append(.index(items.count))
            let v = try parseValue(depth: depth)
            items.append(v)
            skipWhitespace()
            guard pos < bytes.count else { throw syntax("unexpected end of input in an array") }
            let separator = bytes[pos]
            guard separator == UInt8(ascii: ",") || separator == UInt8(ascii: "]") else {
                throw syntax("unexpected \(describeByte(pos)), expected ',' or ']'")
            }
            path.removeLast()
            pos += 1
            if separator == UInt8(ascii: "]") { return .array(items) }
        }
    }

    /// Scans a string without decoding it; returns its length in bytes (without quotes).
    private mutating func skipString() throws(JSONReadError) -> Int {
        pos += 1  // opening quote
        let start = pos
        while pos < bytes.count {
            let b = bytes[pos]
            if b == UInt8(ascii: "\"") {
                pos += 1
                return pos - 1 - start
            }
            if b == UInt8(ascii: "\\") {
                pos += 2
                continue
            }
            if b < 0x20 { throw syntax("control character in a string") }
            pos += 1
        }
        throw syntax("unexpected end of input in a string")
    }

    private mutating func parseString() throws(JSONReadError) -> String {
        pos += 1  // opening quote
        let start = pos
        // Fast path: no escapes.
        while pos < bytes.count {
            let b = bytes[pos]
            if b == UInt8(ascii: "\"") {
                let s = String(decoding: bytes[start..<pos], as: UTF8.self)
                pos += 1
                return s
            }
            if b == UInt8(ascii: "\\") { break }
            if b < 0x20 { throw syntax("control character in a string") }
            if pos - start >= limits.maxStringBytes { throw stringTooLong() }
            pos += 1
        }
        guard pos < bytes.count else { throw syntax("unexpected end of input in a string") }
        var out = [UInt8](bytes[start..<pos])
        while pos < bytes.count {
            let b = bytes[pos]
            if out.count > limits.maxStringBytes { throw stringTooLong() }
            if b == UInt8(ascii: "\"") {
                pos += 1
                return String(decoding: out, as: UTF8.self)
            }
            if b < 0x20 { throw syntax("control character in a string") }
            if b != UInt8(ascii: "\\") {
                out.append(b)
                pos += 1
                continue
            }
            guard pos + 1 < bytes.count else { throw syntax("unexpected end of input in an escape") }
            let e = bytes[pos + 1]
            pos += 2
            switch e {
            case UInt8(ascii: "\""): out.append(0x22)
            case UInt8(ascii: "\\"): out.append(0x5C)
            case UInt8(ascii: "/"): out.append(0x2F)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4()
                if scalar >= 0xD800 && scalar < 0xDC00 {
                    // High surrogate: a low one must follow, else U+FFFD. An escape after it that
                    // is not a low surrogate is its own character, read again on the next turn.
                    if pos + 1 < bytes.count, bytes[pos] == UInt8(ascii: "\\"), bytes[pos + 1] == UInt8(ascii: "u") {
                        pos += 2
                        let low = try hex4()
                        if low >= 0xDC00 && low < 0xE000 {
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        } else {
                            pos -= 6
                            scalar = 0xFFFD
                        }
                    } else {
                        scalar = 0xFFFD
                    }
                } else if scalar >= 0xDC00 && scalar < 0xE000 {
                    scalar = 0xFFFD
                }
                let u = Unicode.Scalar(scalar) ?? Unicode.Scalar(0xFFFD)!
                out.append(contentsOf: Array(String(Character(u)).utf8))
            default:
                pos -= 1
                throw syntax("invalid escape")
            }
        }
        throw syntax("unexpected end of input in a string")
    }

    private func stringTooLong() -> JSONReadError {
        JSONReadError.limit("string longer than \(limits.maxStringBytes) bytes (maxStringBytes)", at: currentPath())
    }

    private mutating func hex4() throws(JSONReadError) -> UInt32 {
        guard pos + 4 <= bytes.count else { throw syntax("unexpected end of input in a \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let b = bytes[pos]
            let d: UInt32
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = UInt32(b - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = UInt32(b - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = UInt32(b - UInt8(ascii: "A") + 10)
            default: throw syntax("invalid \\u escape")
            }
            v = v << 4 | d
            pos += 1
        }
        return v
    }

    /// Validates the JSON number grammar and returns the token text.
    private mutating func parseNumber() throws(JSONReadError) -> String {
        let start = pos
        func digits() -> Int {
            var n = 0
            while pos < bytes.count, bytes[pos] >= UInt8(ascii: "0"), bytes[pos] <= UInt8(ascii: "9") {
                pos += 1
                n += 1
            }
            return n
        }
        if bytes[pos] == UInt8(ascii: "-") { pos += 1 }
        guard pos < bytes.count else { throw syntax("unexpected end of input in a number") }
        if bytes[pos] == UInt8(ascii: "0") {
            pos += 1
        } else if digits() == 0 {
            throw syntax("invalid number")
        }
        if pos < bytes.count, bytes[pos] == UInt8(ascii: ".") {
            pos += 1
            guard digits() > 0 else { throw syntax("invalid number: no digits after '.'") }
        }
        if pos < bytes.count, bytes[pos] == UInt8(ascii: "e") || bytes[pos] == UInt8(ascii: "E") {
            pos += 1
            if pos < bytes.count, bytes[pos] == UInt8(ascii: "+") || bytes[pos] == UInt8(ascii: "-") { pos += 1 }
            guard digits() > 0 else { throw syntax("invalid number: no exponent digits") }
        }
        if pos - start > limits.maxNumberLength {
            throw JSONReadError.limit(
                "number longer than \(limits.maxNumberLength) characters (maxNumberLength)", at: currentPath())
        }
        return String(decoding: bytes[start..<pos], as: UTF8.self)
    }
}
