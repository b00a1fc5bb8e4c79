/// One request as the server hands it to its handler: the method, the path (without the query
/// string), the headers with lower-cased names, the decoded query arguments, and the body (at
/// most `HTTPServer.maxBodyBytes`).
public struct HTTPServerRequest: Sendable {
    public var method: String
    public var path: String
    /// Header values by lower-cased name (a repeated header keeps its last value).
    public var headers: [String: String]
    /// Query arguments, percent-decoded (a repeated name keeps its last value).
    public var query: [String: String]
    public var body: [UInt8]

    public init(method: String, path: String, headers: [String: String] = [:], query: [String: String] = [:],
                body: [UInt8] = []) {
        self.method = method
        self.path = path
        self.headers = headers
        self.query = query
        self.body = body
    }
}
