/// Why `JSONReader` refused a document: the syntax, or one of its limits, with the JSON path where
/// parsing stopped (`walls[2].transform[7]`, `$` for the document root). Callers map it to their
/// own codes (Layering: `ROOMPLAN_JSON_INVALID`, `ROOMPLAN_LIMIT_EXCEEDED`).
public struct JSONReadError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// Not JSON (RFC 8259): the message says what was found where.
        case syntax
        /// Deeper, longer or larger than `JSONReader.Limits` allows.
        case limit
    }

    public var kind: Kind
    public var message: String
    public var path: String

    public static func syntax(_ message: String, at path: String) -> JSONReadError {
        JSONReadError(kind: .syntax, message: message, path: path)
    }

    public static func limit(_ message: String, at path: String?) -> JSONReadError {
        JSONReadError(kind: .limit, message: message, path: path ?? "$")
    }

    public var description: String { "\(path): \(message)" }
}
