/// Token text: raw bytes as strings, keyword comparison and string/asset decoding.
extension USDALexer {
    /// The raw bytes of `start..<end` as a String (invalid UTF-8 is replaced).
    func text(_ start: Int, _ end: Int) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: buffer[start..<end]), as: UTF8.self)
    }

    /// True when the token's bytes equal `word`.
    func tokenIs(_ token: USDAToken, _ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard token.end - token.start == count else { return false }
        let w = word.utf8Start
        for i in 0..<count where buffer[token.start + i] != w[i] { return false }
        return true
    }

    /// The decoded value of a string token (escapes resolved) or an asset token.
    func stringValue(_ token: USDAToken) -> String {
        guard token.flag else { return text(token.contentStart, token.contentEnd) }
        if token.kind == .asset {  // `\@@@` → `@@@`
            var out: [UInt8] = []
            out.reserveCapacity(token.contentEnd - token.contentStart)
            var i = token.contentStart
            while i < token.contentEnd {
                if buffer[i] == 0x5C && i + 3 < token.contentEnd && buffer[i + 1] == 0x40 && buffer[i + 2] == 0x40
                    && buffer[i + 3] == 0x40
                {
                    out.append(contentsOf: [0x40, 0x40, 0x40])
                    i += 4
                    continue
                }
                out.append(buffer[i])
                i += 1
            }
            return String(decoding: out, as: UTF8.self)
        }
        return Self.unescape(UnsafeBufferPointer(rebasing: buffer[token.contentStart..<token.contentEnd]))
    }

    /// Resolves C-style escapes: `\n \t \r \a \b \f \v \\ \" \'`, octal `\ooo`, hex `\xHH`; any other
    /// escaped byte stands for itself.
    static func unescape(_ s: UnsafeBufferPointer<UInt8>) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(s.count)
        var i = 0
        let n = s.count
        func hexValue(_ c: UInt8) -> UInt8? {
            switch c {
            case 0x30...0x39: return c - 0x30
            case 0x61...0x66: return c - 0x61 + 10
            case 0x41...0x46: return c - 0x41 + 10
            default: return nil
            }
        }
        while i < n {
            let c = s[i]
            guard c == 0x5C, i + 1 < n else {
                out.append(c)
                i += 1
                continue
            }
            let e = s[i + 1]
            i += 2
            switch e {
            case 0x6E: out.append(0x0A)  // n
            case 0x74: out.append(0x09)  // t
            case 0x72: out.append(0x0D)  // r
            case 0x61: out.append(0x07)  // a
            case 0x62: out.append(0x08)  // b
            case 0x66: out.append(0x0C)  // f
            case 0x76: out.append(0x0B)  // v
            case 0x78:  // xHH
                var v: UInt8 = 0
                var k = 0
                while k < 2, i < n, let h = hexValue(s[i]) {
                    v = v &* 16 &+ h
                    i += 1
                    k += 1
                }
                if k == 0 { out.append(0x78) } else { out.append(v) }
            case 0x30...0x37:  // octal, up to 3 digits
                var v = UInt32(e - 0x30)
                var k = 1
                while k < 3, i < n, s[i] >= 0x30, s[i] <= 0x37 {
                    v = v * 8 + UInt32(s[i] - 0x30)
                    i += 1
                    k += 1
                }
                out.append(UInt8(truncatingIfNeeded: v))
            default:
                out.append(e)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
