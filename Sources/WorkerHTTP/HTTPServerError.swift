/// Why the HTTP server could not start, with a stable `code`.
public struct HTTPServerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The stable codes.
    public enum Code: String, Sendable, CaseIterable, CustomStringConvertible {
        /// The address is not `HOST:PORT` with an IPv4 host and a port from 0 to 65535; permanent.
        case badAddress = "HTTP_BAD_ADDRESS"
        /// The socket could not be created, bound or put in listening mode; permanent.
        case bindFailed = "HTTP_BIND_FAILED"
        /// libmicrohttpd refused to start; permanent.
        case startFailed = "HTTP_START_FAILED"

        /// Never: the same address and library fail the same way.
        public var isRetryable: Bool { false }
        /// The code itself, as written in messages and logs.
        public var description: String { rawValue }
    }

    public var code: Code
    public var message: String

    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
