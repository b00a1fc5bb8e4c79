import Foundation
import ObjectStorage

/// Reading what a browser sends: `application/x-www-form-urlencoded` bodies and `Cookie` headers.
enum ConsoleForm {
    /// The most fields a form may have; later ones are ignored.
    static let maxFields = 32

    /// The fields of an urlencoded body (`+` is a space, `%XX` a byte; invalid UTF-8 becomes
    /// U+FFFD). A repeated name keeps its first value.
    static func fields(_ body: [UInt8]) -> [String: String] {
        var out: [String: String] = [:]
        for pair in body.split(separator: UInt8(ascii: "&")).prefix(maxFields) {
            let parts = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            let name = decode(parts[0]), value = parts.count > 1 ? decode(parts[1]) : ""
            if out[name] == nil { out[name] = value }
        }
        return out
    }

    /// One urlencoded component, decoded.
    static func decode(_ bytes: ArraySlice<UInt8>) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = bytes.startIndex
        while i < bytes.endIndex {
            let b = bytes[i]
            if b == UInt8(ascii: "+") {
                out.append(0x20)
            } else if b == UInt8(ascii: "%"), bytes.distance(from: i, to: bytes.endIndex) >= 3,
                      let hi = hexValue(bytes[i + 1]), let lo = hexValue(bytes[i + 2]) {
                out.append(hi << 4 | lo)
                i += 3
                continue
            } else {
                out.append(b)
            }
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case 48...57: return b - 48
        case 65...70: return b - 55
        case 97...102: return b - 87
        default: return nil
        }
    }

    /// The value of cookie `name` in a `Cookie` header, nil when absent.
    static func cookie(_ name: String, in header: String?) -> String? {
        guard let header else { return nil }
        for part in header.split(separator: ";") {
            let pair = part.split(separator: "=", maxSplits: 1)
            if pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces) == name {
                return pair[1].trimmingCharacters(in: .whitespaces)
            }
        }
        return nil
    }

    /// `text` percent-encoded for a query value: RFC 3986's unreserved characters kept, every other
    /// byte as `%XX` (the encoding SigV4 signs with).
    static func encode(_ text: String) -> String { SigV4Signer.uriEncode(text, keepSlash: false) }
}
