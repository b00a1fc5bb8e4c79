/// One result row in text format: column names and values (`nil` is SQL NULL).
public struct PGRow: Sendable {
    public let columns: [String]
    public let values: [String?]

    public init(columns: [String], values: [String?]) {
        self.columns = columns
        self.values = values
    }

    /// The value of the named column (`nil` for NULL or an unknown column).
    public subscript(_ name: String) -> String? {
        guard let i = columns.firstIndex(of: name) else { return nil }
        return values[i]
    }

    public func int(_ name: String) -> Int? { self[name].flatMap { Int($0) } }
    public func double(_ name: String) -> Double? { self[name].flatMap { Double($0) } }
    /// Postgres booleans arrive as `t` / `f`.
    public func bool(_ name: String) -> Bool? {
        guard let v = self[name] else { return nil }
        return v == "t" || v == "true"
    }

    /// Throws `DB_BAD_RESULT` when the column is NULL or missing.
    public func required(_ name: String) throws(DatabaseError) -> String {
        guard let v = self[name] else {
            throw DatabaseError(code: .badResult, message: "column \(name) is missing or NULL")
        }
        return v
    }
}

/// A notification received on a `LISTEN`ed channel.
public struct PGNotification: Sendable, Equatable {
    public let channel: String
    public let payload: String
    /// The backend process id of the session that sent it.
    public let senderPID: Int32
}
