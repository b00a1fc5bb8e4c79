import FoundationEssentials
import Glibc
import WorkerCore

/// Text helpers for writing HTML by hand: escaping, embedded images and deterministic number
/// formatting (no locale, no grouping rules from the host).
enum HTML {
    /// `s` escaped for element content and quoted attribute values (`HTMLText.escape`).
    static func escape(_ s: String) -> String { HTMLText.escape(s) }

    /// A `data:` URI holding `bytes` in base64 (no line breaks), for `src` attributes.
    static func dataURI(mimeType: String, bytes: [UInt8]) -> String {
        "data:\(mimeType);base64," + Data(bytes).base64EncodedString()
    }

    /// `x` with exactly `digits` decimals, `.` as the separator, and no `-` on a value that
    /// rounds to zero. Not finite: an em dash.
    static func fixed(_ x: Double, _ digits: Int) -> String {
        guard x.isFinite else { return "—" }
        var s = printf("%.\(digits)f", x)
        if s.hasPrefix("-"), s.dropFirst().allSatisfy({ $0 == "0" || $0 == "." }) { s.removeFirst() }
        return s
    }

    /// An integer with `,` between groups of three digits: `1,234,567`.
    static func grouped(_ n: Int) -> String {
        let digits = String(n.magnitude)
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out += "," }
            out.append(c)
        }
        return (n < 0 ? "-" : "") + out
    }

    /// A byte count for people: `41,288 B (40.3 KiB)`; below 1 KiB just `812 B`.
    static func byteSize(_ n: Int) -> String {
        let units = ["KiB", "MiB", "GiB"]
        var value = Double(n)
        var unit = -1
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit < 0 ? "\(grouped(n)) B" : "\(grouped(n)) B (\(fixed(value, 1)) \(units[unit]))"
    }

    /// `x` formatted by the C library's `snprintf` with `format` (one double conversion).
    private static func printf(_ format: String, _ x: Double) -> String {
        var buffer = [CChar](repeating: 0, count: 64)
        var n = withVaList([x]) { args in vsnprintf(&buffer, buffer.count, format, args) }
        if n >= buffer.count {  // a long number: once more with room for all of it
            buffer = [CChar](repeating: 0, count: Int(n) + 1)
            n = withVaList([x]) { args in vsnprintf(&buffer, buffer.count, format, args) }
        }
        guard n >= 0, n < buffer.count else { return "—" }
        return String(decoding: buffer[..<Int(n)].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
