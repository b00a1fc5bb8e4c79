import JSONCore
import ObjectStorage
import WorkerCore

/// Sends broadcast messages through Supabase Realtime's REST endpoint
/// (`POST {SUPABASE_URL}/realtime/v1/api/broadcast`, worker-contracts §3.2), one message per
/// request:
///
///     {"messages":[{"topic":"room:<id>","event":"transcode_progress","payload":{…},
///                   "private":true,"id":"<uuid>"}]}
///
/// The topic is sent as given, without a `realtime:` prefix (the server adds the tenant itself).
/// `private` must match what the app subscribes with (the app's code joins public channels; the
/// database setting `transcode.realtime_private` switches both kinds of events to private). The
/// message `id` reaches clients as `payload.meta.id` for de-duplication; `messageId(for:)` derives
/// a stable one from a name, so the same event sent twice carries the same id.
///
/// One attempt per message: 202/2xx is success, everything else throws
/// `RealtimeBroadcastError` and the caller drops the message (progress is best effort; the
/// terminal `ready`/`failed` events come from the database, in the finalize transaction).
/// Throttling is the caller's (`ProgressReporter`). Thread-safe.
public final class RealtimeBroadcaster: Sendable {
    public let endpoints: SupabaseEndpoints
    /// Seconds one request may take (connect, send, answer).
    public let timeout: Double
    /// Sent as each message's `private`.
    public let privateChannel: Bool
    private let http: HTTPClient

    /// - Parameters:
    ///   - timeout: seconds per request (default 5: a stalled Realtime must not hold progress up).
    ///   - privateChannel: the channel kind the app joins (default private).
    public init(endpoints: SupabaseEndpoints, http: HTTPClient = HTTPClient(maxResponseBytes: 64 * 1024),
                timeout: Double = 5, privateChannel: Bool = true) {
        self.endpoints = endpoints
        self.http = http
        self.timeout = timeout
        self.privateChannel = privateChannel
    }

    /// The request body for one message.
    public func body(topic: String, event: String, payload: JSONValue, id: String?, privateChannel: Bool? = nil) -> JSONValue {
        var message: [String: JSONValue] = [
            "topic": .string(topic), "event": .string(event), "payload": payload,
            "private": .bool(privateChannel ?? self.privateChannel),
        ]
        if let id { message["id"] = .string(id) }
        return .object(["messages": .array([.object(message)])])
    }

    /// Sends one message.
    ///
    /// - Throws: `RealtimeBroadcastError` (`REALTIME_RATE_LIMITED` on 429, `REALTIME_REJECTED` on
    ///   another 4xx, `REALTIME_UNAVAILABLE` on 5xx, 3xx or no answer).
    ///   `privateChannel` overrides the broadcaster's channel kind for this message.
    public func send(topic: String, event: String, payload: JSONValue, id: String? = nil,
                     privateChannel: Bool? = nil) throws(RealtimeBroadcastError) {
        let request = HTTPRequest(
            method: "POST", url: endpoints.broadcastURL,
            headers: [("Content-Type", "application/json")] + endpoints.authHeaders(),
            body: Array(body(topic: topic, event: event, payload: payload, id: id, privateChannel: privateChannel).serialized().utf8),
            timeout: timeout)
        let response: HTTPResponse
        do {
            response = try http.send(request)
        } catch {
            throw RealtimeBroadcastError(code: .unavailable, message: error.description, status: nil)
        }
        if response.isSuccess { return }
        let excerpt = String(decoding: response.body.prefix(200), as: UTF8.self)
        let message = "HTTP \(response.status)" + (excerpt.isEmpty ? "" : ": \(excerpt)")
        switch response.status {
        case 429:
            throw RealtimeBroadcastError(code: .rateLimited, message: message, status: 429)
        case 400..<500:
            throw RealtimeBroadcastError(code: .rejected, message: message, status: response.status)
        default:
            throw RealtimeBroadcastError(code: .unavailable, message: message, status: response.status)
        }
    }

    /// A UUID-shaped id (RFC 9562 version 8) derived from `name` with SHA-256: the same name gives
    /// the same id, e.g. `"<version_id>:<lease_id>:<seq>"` for one progress event.
    public static func messageId(for name: String) -> String {
        var b = Array(Digest.sha256(Array(name.utf8)).prefix(16))
        b[6] = (b[6] & 0x0F) | 0x80
        b[8] = (b[8] & 0x3F) | 0x80
        let hex = Digest.hex(b)
        let chars = Array(hex)
        return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(chars[$0]) }.joined(separator: "-")
    }
}
