/// Escaping for HTML written by hand (the operator console, the conversion report): one rule for
/// element content and quoted attribute values alike.
public enum HTMLText {
    /// `s` escaped for element content and for double- or single-quoted attribute values:
    /// `& < > " '` become entities; control characters other than tab, line feed and carriage
    /// return (which HTML does not allow as text) and noncharacters become U+FFFD.
    public static func escape(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for scalar in s.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            case "\t", "\n", "\r": out.unicodeScalars.append(scalar)
            default:
                let v = scalar.value
                if v < 0x20 || (0x7F...0x9F).contains(v) || (0xFDD0...0xFDEF).contains(v) || v & 0xFFFE == 0xFFFE {
                    out += "\u{FFFD}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }
}
