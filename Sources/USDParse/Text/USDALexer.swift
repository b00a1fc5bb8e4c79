/// Kinds of USDA tokens. Keywords are plain identifiers; the parser compares their bytes.
enum USDATokenKind: UInt8, Sendable {
    case eof
    case identifier  // `def`, `float3`, `primvars:st`, `a::b`, `inf`
    case number  // `12`, `-1.5e3`, `.5`, `-inf`
    case string  // `"…"`, `'…'`, `"""…"""`, `'''…'''`
    case asset  // `@path@`, `@@@path@@@`
    case path  // `<path>`
    case lparen, rparen, lbracket, rbracket, lbrace, rbrace
    case equals, comma, semicolon, colon, dot
}

/// One token: its kind and where its bytes are. For strings, assets and paths `contentStart..<contentEnd`
/// excludes the delimiters.
struct USDAToken: Sendable {
    var kind: USDATokenKind
    var start: Int
    var end: Int
    var contentStart: Int
    var contentEnd: Int
    /// Strings and `@@@` assets: the content holds backslash escapes. Numbers: the literal is an
    /// integer (no `.`, no exponent, not inf/nan).
    var flag: Bool

    static let eofToken = USDAToken(kind: .eof, start: 0, end: 0, contentStart: 0, contentEnd: 0, flag: false)
}

/// A byte-level lexer over USDA text. It never copies the input; strings are decoded on request.
/// `buffer` must stay valid while the lexer is used (the parser runs inside `withBytes`).
struct USDALexer {
    let buffer: UnsafeBufferPointer<UInt8>
    let layer: String
    let maxTokenLength: Int
    /// Offset of the next unread byte.
    var position: Int = 0

    init(buffer: UnsafeBufferPointer<UInt8>, layer: String, maxTokenLength: Int) {
        self.buffer = buffer
        self.layer = layer
        self.maxTokenLength = max(1, maxTokenLength)
    }

    // MARK: Errors

    /// 1-based line and column (in bytes) of `offset`.
    func lineColumn(at offset: Int) -> (line: Int, column: Int) {
        let end = min(max(offset, 0), buffer.count)
        var line = 1
        var lineStart = 0
        var i = 0
        while i < end {
            if buffer[i] == 0x0A {
                line += 1
                lineStart = i + 1
            }
            i += 1
        }
        return (line, end - lineStart + 1)
    }

    func syntaxError(_ message: String, at offset: Int) -> USDParseError {
        let (line, column) = lineColumn(at: offset)
        return USDParseError(.syntax, message, format: .usda, byteOffset: offset, layer: layer, line: line, column: column)
    }

    func limitError(_ message: String, at offset: Int) -> USDParseError {
        let (line, column) = lineColumn(at: offset)
        return USDParseError(.limitExceeded, message, format: .usda, byteOffset: offset, layer: layer, line: line,
                             column: column)
    }

    // MARK: Character classes

    @inline(__always) static func isIdentifierStart(_ c: UInt8) -> Bool {
        (c >= 0x61 && c <= 0x7A) || (c >= 0x41 && c <= 0x5A) || c == 0x5F || c >= 0x80
    }

    @inline(__always) static func isIdentifierContinue(_ c: UInt8) -> Bool {
        isIdentifierStart(c) || isDigit(c)
    }

    @inline(__always) static func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }

    @inline(__always) private func byte(_ i: Int) -> UInt8 { i < buffer.count ? buffer[i] : 0 }

    /// A short, printable description of the byte at `offset` for messages.
    func describeByte(at offset: Int) -> String {
        guard offset < buffer.count else { return "end of file" }
        let c = buffer[offset]
        if c >= 0x21 && c < 0x7F { return "'\(Character(Unicode.Scalar(c)))'" }
        return "byte 0x" + String(c, radix: 16)
    }

    // MARK: Scanning

    /// Skips spaces, newlines and comments (`#…`, `//…`, `/*…*/`).
    private mutating func skipTrivia() throws(USDParseError) {
        let n = buffer.count
        while position < n {
            let c = buffer[position]
            if c == 0x20 || c == 0x0A || c == 0x09 || c == 0x0D || c == 0x0C || c == 0x0B {
                position += 1
            } else if c == 0x23 {  // '#'
                skipLine()
            } else if c == 0x2F && byte(position + 1) == 0x2F {  // "//"
                skipLine()
            } else if c == 0x2F && byte(position + 1) == 0x2A {  // "/*"
                let start = position
                position += 2
                while true {
                    guard position + 1 < n else {
                        throw syntaxError("unterminated /* comment", at: start)
                    }
                    if buffer[position] == 0x2A && buffer[position + 1] == 0x2F {
                        position += 2
                        break
                    }
                    position += 1
                }
            } else {
                return
            }
        }
    }

    private mutating func skipLine() {
        let n = buffer.count
        while position < n && buffer[position] != 0x0A { position += 1 }
    }

    private func checkLength(_ start: Int, _ end: Int, _ what: String) throws(USDParseError) {
        if end - start > maxTokenLength {
            throw limitError("\(what) longer than maxStringLength (\(maxTokenLength) bytes)", at: start)
        }
    }

    /// Reads the next token.
    mutating func next() throws(USDParseError) -> USDAToken {
        try skipTrivia()
        let start = position
        guard start < buffer.count else {
            return USDAToken(kind: .eof, start: start, end: start, contentStart: start, contentEnd: start, flag: false)
        }
        let c = buffer[start]
        func punct(_ kind: USDATokenKind) -> USDAToken {
            USDAToken(kind: kind, start: start, end: start + 1, contentStart: start, contentEnd: start + 1, flag: false)
        }
        switch c {
        case 0x28: position += 1; return punct(.lparen)
        case 0x29: position += 1; return punct(.rparen)
        case 0x5B: position += 1; return punct(.lbracket)
        case 0x5D: position += 1; return punct(.rbracket)
        case 0x7B: position += 1; return punct(.lbrace)
        case 0x7D: position += 1; return punct(.rbrace)
        case 0x3D: position += 1; return punct(.equals)
        case 0x2C: position += 1; return punct(.comma)
        case 0x3B: position += 1; return punct(.semicolon)
        case 0x3A: position += 1; return punct(.colon)
        case 0x22, 0x27: return try scanString(quote: c)
        case 0x40: return try scanAsset()
        case 0x3C: return try scanPath()
        case 0x2E:  // '.' — a number when a digit follows
            if Self.isDigit(byte(start + 1)) { return try scanNumber() }
            position += 1
            return punct(.dot)
        case 0x2D:  // '-'
            return try scanNumber()
        default:
            if Self.isDigit(c) { return try scanNumber() }
            if Self.isIdentifierStart(c) { return try scanIdentifier() }
            throw syntaxError("unexpected character \(describeByte(at: start))", at: start)
        }
    }

    private mutating func scanIdentifier() throws(USDParseError) -> USDAToken {
        let start = position
        let n = buffer.count
        var p = start + 1
        while true {
            while p < n && Self.isIdentifierContinue(buffer[p]) { p += 1 }
            // Namespaces: `a:b` and C++-style `a::b`.
            if p + 1 < n && buffer[p] == 0x3A {
                if Self.isIdentifierStart(buffer[p + 1]) {
                    p += 2
                    continue
                }
                if buffer[p + 1] == 0x3A && p + 2 < n && Self.isIdentifierStart(buffer[p + 2]) {
                    p += 3
                    continue
                }
            }
            break
        }
        try checkLength(start, p, "identifier")
        position = p
        return USDAToken(kind: .identifier, start: start, end: p, contentStart: start, contentEnd: p, flag: false)
    }

    private func matches(_ p: Int, _ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard p + count <= buffer.count else { return false }
        let w = word.utf8Start
        for i in 0..<count where buffer[p + i] != w[i] { return false }
        return !Self.isIdentifierContinue(byte(p + count))
    }

    private mutating func scanNumber() throws(USDParseError) -> USDAToken {
        let start = position
        let n = buffer.count
        var p = start
        if buffer[p] == 0x2D { p += 1 }
        if matches(p, "inf") || matches(p, "nan") {
            position = p + 3
            return USDAToken(kind: .number, start: start, end: p + 3, contentStart: start, contentEnd: p + 3, flag: false)
        }
        var digits = 0
        var isInteger = true
        while p < n && Self.isDigit(buffer[p]) { p += 1; digits += 1 }
        if p < n && buffer[p] == 0x2E {
            isInteger = false
            p += 1
            while p < n && Self.isDigit(buffer[p]) { p += 1; digits += 1 }
        }
        guard digits > 0 else {
            throw syntaxError("malformed number", at: start)
        }
        if p < n && (buffer[p] == 0x65 || buffer[p] == 0x45) {
            isInteger = false
            p += 1
            if p < n && (buffer[p] == 0x2B || buffer[p] == 0x2D) { p += 1 }
            var expDigits = 0
            while p < n && Self.isDigit(buffer[p]) { p += 1; expDigits += 1 }
            guard expDigits > 0 else { throw syntaxError("malformed number exponent", at: start) }
        }
        if p < n && (Self.isIdentifierContinue(buffer[p]) || buffer[p] == 0x2E) {
            throw syntaxError("malformed number", at: start)
        }
        try checkLength(start, p, "number")
        position = p
        return USDAToken(kind: .number, start: start, end: p, contentStart: start, contentEnd: p, flag: isInteger)
    }

    private mutating func scanString(quote q: UInt8) throws(USDParseError) -> USDAToken {
        let start = position
        let n = buffer.count
        let triple = byte(start + 1) == q && byte(start + 2) == q
        var p = start + (triple ? 3 : 1)
        let contentStart = p
        var escapes = false
        while true {
            guard p < n else { throw syntaxError("unterminated string", at: start) }
            let c = buffer[p]
            if c == 0x5C {  // backslash
                escapes = true
                p += 2
                continue
            }
            if c == q {
                if !triple {
                    break
                }
                if byte(p + 1) == q && byte(p + 2) == q { break }
            } else if !triple && (c == 0x0A || c == 0x0D) {
                throw syntaxError("unterminated string (newline inside a single-line string)", at: start)
            }
            p += 1
        }
        let contentEnd = p
        try checkLength(contentStart, contentEnd, "string")
        position = p + (triple ? 3 : 1)
        return USDAToken(kind: .string, start: start, end: position, contentStart: contentStart,
                         contentEnd: contentEnd, flag: escapes)
    }

    private mutating func scanAsset() throws(USDParseError) -> USDAToken {
        let start = position
        let n = buffer.count
        if byte(start + 1) == 0x40 && byte(start + 2) == 0x40 {  // @@@…@@@, `\@@@` escapes
            var p = start + 3
            var escapes = false
            while true {
                guard p + 2 < n else { throw syntaxError("unterminated @@@ asset path", at: start) }
                if buffer[p] == 0x5C && buffer[p + 1] == 0x40 && buffer[p + 2] == 0x40 && byte(p + 3) == 0x40 {
                    escapes = true
                    p += 4
                    continue
                }
                if buffer[p] == 0x40 && buffer[p + 1] == 0x40 && buffer[p + 2] == 0x40 { break }
                p += 1
            }
            // `@@@a@@@@` ends at the last run of @: content may end with '@'.
            var end = p
            while end + 3 < n && buffer[end + 3] == 0x40 { end += 1 }
            try checkLength(start + 3, end, "asset path")
            position = end + 3
            return USDAToken(kind: .asset, start: start, end: position, contentStart: start + 3, contentEnd: end,
                             flag: escapes)
        }
        var p = start + 1
        while true {
            guard p < n else { throw syntaxError("unterminated asset path", at: start) }
            let c = buffer[p]
            if c == 0x40 { break }
            if c == 0x0A || c == 0x0D { throw syntaxError("unterminated asset path", at: start) }
            p += 1
        }
        try checkLength(start + 1, p, "asset path")
        position = p + 1
        return USDAToken(kind: .asset, start: start, end: position, contentStart: start + 1, contentEnd: p, flag: false)
    }

    private mutating func scanPath() throws(USDParseError) -> USDAToken {
        let start = position
        let n = buffer.count
        var p = start + 1
        while true {
            guard p < n else { throw syntaxError("unterminated path <…>", at: start) }
            let c = buffer[p]
            if c == 0x3E { break }
            if c == 0x0A || c == 0x0D || c == 0x3C { throw syntaxError("unterminated path <…>", at: start) }
            p += 1
        }
        try checkLength(start + 1, p, "path")
        position = p + 1
        return USDAToken(kind: .path, start: start, end: position, contentStart: start + 1, contentEnd: p, flag: false)
    }
}
