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
    public static let timeout = "HTTP_TIMEOUT"
    public static let connectFailed = "HTTP_CONNECT_FAILED"
    public static let transportFailed = "HTTP_TRANSPORT_FAILED"
    public static let responseTooLarge = "HTTP_RESPONSE_TOO_LARGE"
    public static let invalidURL = "HTTP_INVALID_URL"
    public static let invalidRequest = "HTTP_INVALID_REQUEST"

    /// One of the codes above.
    public var code: String
    public var message: String
    /// True when sending the same request again may succeed.
    public var isRetryable: Bool

    /// `isRetryable` defaults to the code's row in the table above.
    public init(code: String, message: String, isRetryable: Bool? = nil) {
        self.code = code
        self.message = message
        self.isRetryable = isRetryable
            ?? (code == HTTPClientError.timeout || code == HTTPClientError.connectFailed || code == HTTPClientError.transportFailed)
    }

    public var description: String { "\(code): \(message)" }
}
