/// A broadcast that Supabase Realtime did not accept, with a stable `code`. Progress is best
/// effort: the worker logs these and drops the message, it never retries one.
///
/// | code | retryable | meaning |
/// |---|---|---|
/// | `REALTIME_RATE_LIMITED` | yes | 429: the project's events-per-second limit was hit; the message is dropped |
/// | `REALTIME_REJECTED` | no | another 4xx (bad key 401/403, invalid message 422) |
/// | `REALTIME_UNAVAILABLE` | yes | a 5xx, a 3xx, or no answer (timeout, connection refused) |
public struct RealtimeBroadcastError: Error, Sendable, Equatable, CustomStringConvertible {
    public static let rateLimited = "REALTIME_RATE_LIMITED"
    public static let rejected = "REALTIME_REJECTED"
    public static let unavailable = "REALTIME_UNAVAILABLE"

    /// One of the codes above.
    public var code: String
    /// Safe to log: the status and at most 200 bytes of the answer, never a header value.
    public var message: String
    /// The HTTP status when there was one.
    public var status: Int?

    public var isRetryable: Bool { code != Self.rejected }

    public var description: String { "\(code): \(message)" }
}
