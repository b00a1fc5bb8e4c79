/// A database failure with a stable `code`. Connection problems are retryable (the server may be
/// restarting); a statement the server refused carries its SQLSTATE.
public struct DatabaseError: Error, Sendable, CustomStringConvertible {
    /// The stable codes.
    public enum Code: String, Sendable, CaseIterable, CustomStringConvertible {
        /// The database could not be reached; retryable.
        case connectFailed = "DB_CONNECT_FAILED"
        /// The connection broke during a statement; retryable.
        case connectionLost = "DB_CONNECTION_LOST"
        /// The server refused a statement; retryable only for some SQLSTATEs (`DatabaseError.isRetryable`).
        case queryFailed = "DB_QUERY_FAILED"
        /// A statement ran past its timeout; retryable.
        case timeout = "DB_TIMEOUT"
        /// A result did not have the expected shape; permanent.
        case badResult = "DB_BAD_RESULT"
        /// A backend table the worker cannot write (see `Migrator.checkRoomColumns`); permanent.
        case schemaMismatch = "DB_SCHEMA_MISMATCH"

        /// True for the connection-level codes; a refused statement depends on its SQLSTATE.
        public var isRetryable: Bool { self == .connectFailed || self == .connectionLost || self == .timeout }
        /// The code itself, as written in messages and logs.
        public var description: String { rawValue }
    }

    public var code: Code
    /// Safe to log: the server's primary message, never the connection string.
    public var message: String
    /// The five-character SQLSTATE when the server answered with an error.
    public var sqlState: String?

    public init(code: Code, message: String, sqlState: String? = nil) {
        self.code = code
        self.message = message
        self.sqlState = sqlState
    }

    /// Connection-level failures and serialization/deadlock/shutdown states are worth retrying.
    public var isRetryable: Bool {
        if code.isRetryable { return true }
        guard let s = sqlState else { return false }
        // 40001 serialization_failure, 40P01 deadlock, 57P0x admin/crash shutdown, 08xxx connection.
        return s == "40001" || s == "40P01" || s.hasPrefix("57P") || s.hasPrefix("08")
    }

    public var description: String { "\(code.rawValue): \(message)" + (sqlState.map { " (SQLSTATE \($0))" } ?? "") }
}
