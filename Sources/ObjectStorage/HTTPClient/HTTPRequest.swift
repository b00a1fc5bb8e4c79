/// One HTTP request for `HTTPClient.send`. Value type; the client copies what it needs.
public struct HTTPRequest: Sendable {
    /// The method token, e.g. `GET`, `POST`, `PUT`, `DELETE`, `HEAD`.
    public var method: String
    /// An absolute `http://` or `https://` URL, already percent-encoded.
    public var url: String
    /// Header fields in the order given. `Content-Length` is always set by the client from `body`;
    /// a caller's `Content-Length` is ignored. A request with a body and no `Content-Type` is sent
    /// as `application/octet-stream`.
    public var headers: [(String, String)]
    /// The request body (may be empty).
    public var body: [UInt8]
    /// The whole exchange (connect, send, wait, receive) must finish within this many seconds.
    public var timeout: Double

    /// A request; `timeout` is in seconds (default 30).
    public init(method: String, url: String, headers: [(String, String)] = [], body: [UInt8] = [], timeout: Double = 30) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}
