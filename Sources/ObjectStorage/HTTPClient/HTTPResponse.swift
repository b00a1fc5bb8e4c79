/// The response `HTTPClient.send` returns, whatever the status (4xx and 5xx included; a 3xx is
/// returned as is, redirects are never followed).
public struct HTTPResponse: Sendable {
    /// The status code, e.g. 200.
    public var status: Int
    /// Header fields with lower-cased names; repeated fields are joined with `, `.
    public var headers: [String: String]
    /// The whole body, at most the client's `maxResponseBytes` bytes.
    public var body: [UInt8]

    /// A response as received; the caller owns `body`.
    public init(status: Int, headers: [String: String], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// True for 2xx.
    public var isSuccess: Bool { (200..<300).contains(status) }
}
