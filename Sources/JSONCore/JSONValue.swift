/// A JSON value, the one JSON type of the project: logs, events, the child protocol, reports,
/// `layer_manifest.json` and the glTF document all build one and write it with `JSONWriter`.
///
/// Objects come in two forms: `object` (a dictionary; written with its keys sorted by Unicode
/// scalar, so the bytes never depend on hashing) and `members` (written in the order given, for
/// formats whose key order is part of the design, such as glTF). `float` is for values readers
/// store as 32-bit floats: it is written in the shortest form that reads back as the same `Float`.
public indirect enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case float(Float)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])
    case members([JSONMember])

    /// Compact (`pretty` false) or indented (`JSONWriter.Layout.indented`) text, non-finite numbers
    /// as `null`, no trailing newline.
    public func serialized(pretty: Bool = false) -> String {
        String(decoding: JSONWriter.bytes(self, .init(layout: pretty ? .indented : .compact)), as: UTF8.self)
    }

    /// True for `null`, booleans and numbers: what the indented layout keeps on one line in arrays.
    public var isScalar: Bool {
        switch self {
        case .null, .bool, .int, .double, .float: return true
        case .string, .array, .object, .members: return false
        }
    }
}

/// One key/value pair of a `members` object.
public struct JSONMember: Equatable, Sendable {
    public var key: String
    public var value: JSONValue

    public init(_ key: String, _ value: JSONValue) {
        self.key = key
        self.value = value
    }
}

/// Builds a `members` object fluently, skipping absent optionals.
public struct JSONObjectBuilder: Sendable {
    public private(set) var members: [JSONMember] = []

    public init() {}

    public mutating func set(_ key: String, _ value: JSONValue) { members.append(JSONMember(key, value)) }

    public mutating func set(_ key: String, _ value: JSONValue?) {
        if let value { members.append(JSONMember(key, value)) }
    }

    public var value: JSONValue { .members(members) }
}
