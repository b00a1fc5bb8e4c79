import JSONCore

/// The handler's answer: a status code, headers (names as they should be sent) and a body.
public struct HTTPServerResponse: Sendable {
    public var status: Int
    public var headers: [(String, String)]
    public var body: [UInt8]

    public init(status: Int, headers: [(String, String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON response (`Content-Type: application/json`) with a serialized `JSONValue` body.
    public static func json(_ status: Int, _ value: JSONValue, headers: [(String, String)] = []) -> HTTPServerResponse {
        HTTPServerResponse(status: status, headers: [("Content-Type", "application/json")] + headers,
                           body: Array(value.serialized().utf8))
    }
}
