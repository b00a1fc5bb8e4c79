/// A failure to get any HTTP response, with a stable `code`. An HTTP error status is not an
/// `HTTPClientError`: the response is returned and the caller decides. `message` is safe to log:
/// it names the method and the URL without query or user info, never a header value.
///
/// | code | retryable | meaning |
/// |---|---|---|
/// | `HTTP_TIMEOUT` | yes | no complete response within the request's timeout |
/// | `HTTP_CONNECT_FAILED` | yes | the host could not be resolved or reached, or refused the connection |
/// | `HTTP_TRANSPORT_FAILED` | yes | the connection broke or the response was malformed |
/// | `HTTP_RESPONSE_TOO_LARGE` | no | the response body is larger than the client's limit |
/// | `HTTP_INVALID_URL` | no | the URL is not an absolute http(s) URL with a host |
/// | `HTTP_INVALID_REQUEST` | no | a bad method or header (e.g. CR/LF in a value), or a timeout ≤ 0 |
public struct HTTPClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The stable codes (see the table above).
    public enum Code: String, Sendable, CaseIterable, CustomStringConvertible {
        /// No complete response within the request's timeout; retryable.
        case timeout = "HTTP_TIMEOUT"
        /// The host could not be resolved or reached, or refused the connection; retryable.
        case connectFailed = "HTTP_CONNECT_FAILED"
        /// The connection broke or the response was malformed; retryable.
        case transportFailed = "HTTP_TRANSPORT_FAILED"
        /// The response body is larger than the client's limit; permanent.
        case responseTooLarge = "HTTP_RESPONSE_TOO_LARGE"
        /// The URL is not an absolute http(s) URL with a host; permanent.
        case invalidURL = "HTTP_INVALID_URL"
        /// A bad method or header, or a timeout ≤ 0; permanent.
        case invalidRequest = "HTTP_INVALID_REQUEST"

        /// True when sending the same request again may succeed.
        public var isRetryable: Bool { self == .timeout || self == .connectFailed || self == .transportFailed }
        /// The code itself, as written in messages and logs.
        public var description: String { rawValue }
    }

    /// One of the codes above.
    public var code: Code
    public var message: String
    /// True when sending the same request again may succeed.
    public var isRetryable: Bool

    /// `isRetryable` defaults to the code's.
    public init(code: Code, message: String, isRetryable: Bool? = nil) {
        self.code = code
        self.message = message
        self.isRetryable = isRetryable ?? code.isRetryable
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
