/// A parsed JSON value. Numbers keep their source text and are converted on demand (to Float32
/// for RoomPlan floats, to Int for counts), so no precision is lost on the way.
public indirect enum ParsedJSON: Sendable {
    case null
    case bool(Bool)
    case number(String)
    case string(String)
    case array([ParsedJSON])
    /// Members in document order (duplicates kept; lookups take the last, as most decoders do).
    case object([ParsedJSONMember])
    /// A string value scanned for syntax but never decoded (RoomPlan's `coreModel`): its length in bytes.
    case skipped(byteCount: Int)

    public var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string, .skipped: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    /// The last member named `key` of an object.
    public func member(_ key: String) -> ParsedJSON? {
        guard case .object(let members) = self else { return nil }
        return members.last(where: { $0.key == key })?.value
    }
}

public struct ParsedJSONMember: Sendable {
    public var key: String
    public var value: ParsedJSON
}

/// One step of a JSON path: an object key or an array index.
public enum JSONPathComponent: Sendable {
    case key(String)
    case index(Int)

    /// Renders `walls[3].transform`; the empty path is `$`. Keys that are not plain identifiers are
    /// quoted: `attributes["Chair Type"]`.
    public static func render(_ components: [JSONPathComponent]) -> String {
        if components.isEmpty { return "$" }
        var out = ""
        for c in components {
            switch c {
            case .index(let i): out += "[\(i)]"
            case .key(let k):
                if isPlainKey(k) {
                    out += out.isEmpty ? k : "." + k
                } else {
                    out += "[\"" + escape(k) + "\"]"
                }
            }
        }
        return out
    }

    public static func isPlainKey(_ k: String) -> Bool {
        guard let first = k.utf8.first, !(first >= 0x30 && first <= 0x39), k.utf8.count <= 64 else { return false }
        return k.utf8.allSatisfy { b in
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x5F
        }
    }

    public static func escape(_ k: String) -> String {
        var out = ""
        for ch in k.unicodeScalars.prefix(64) {
            switch ch {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            default: out += ch.value < 0x20 ? "?" : String(ch)
            }
        }
        return out
    }
}
