/// Why the HTTP server could not start, with a stable `code`.
public struct HTTPServerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The address is not `HOST:PORT` with an IPv4 host and a port from 0 to 65535.
    public static let badAddress = "HTTP_BAD_ADDRESS"
    /// The socket could not be created, bound or put in listening mode.
    public static let bindFailed = "HTTP_BIND_FAILED"
    /// libmicrohttpd refused to start.
    public static let startFailed = "HTTP_START_FAILED"

    public var code: String
    public var message: String

    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }
}
