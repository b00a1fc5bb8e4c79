/// A database failure with a stable `code`. Connection problems are retryable (the server may be
/// restarting); a statement the server refused carries its SQLSTATE.
public struct DatabaseError: Error, Sendable, CustomStringConvertible {
    /// `DB_CONNECT_FAILED`, `DB_CONNECTION_LOST`, `DB_QUERY_FAILED`, `DB_TIMEOUT`, `DB_BAD_RESULT`,
    /// `DB_SCHEMA_MISMATCH` (a backend table the worker cannot write; see `Migrator.checkRoomColumns`).
    public var code: String
    /// Safe to log: the server's primary message, never the connection string.
    public var message: String
    /// The five-character SQLSTATE when the server answered with an error.
    public var sqlState: String?

    public init(code: String, message: String, sqlState: String? = nil) {
        self.code = code
        self.message = message
        self.sqlState = sqlState
    }

    /// Connection-level failures and serialization/deadlock/shutdown states are worth retrying.
    public var isRetryable: Bool {
        switch code {
        case "DB_CONNECT_FAILED", "DB_CONNECTION_LOST", "DB_TIMEOUT": return true
        default:
            guard let s = sqlState else { return false }
            // 40001 serialization_failure, 40P01 deadlock, 57P0x admin/crash shutdown, 08xxx connection.
            return s == "40001" || s == "40P01" || s.hasPrefix("57P") || s.hasPrefix("08")
        }
    }

    public var description: String { "\(code): \(message)" + (sqlState.map { " (SQLSTATE \($0))" } ?? "") }
}
