/// A broadcast that Supabase Realtime did not accept, with a stable `code`. Progress is best
/// effort: the worker logs these and drops the message, it never retries one.
///
/// | code | retryable | meaning |
/// |---|---|---|
/// | `REALTIME_RATE_LIMITED` | yes | 429: the project's events-per-second limit was hit; the message is dropped |
/// | `REALTIME_REJECTED` | no | another 4xx (bad key 401/403, invalid message 422) |
/// | `REALTIME_UNAVAILABLE` | yes | a 5xx, a 3xx, or no answer (timeout, connection refused) |
public struct RealtimeBroadcastError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The stable codes (see the table above).
    public enum Code: String, Sendable, CaseIterable, CustomStringConvertible {
        /// 429: the project's events-per-second limit was hit; retryable.
        case rateLimited = "REALTIME_RATE_LIMITED"
        /// Another 4xx (bad key 401/403, invalid message 422); permanent.
        case rejected = "REALTIME_REJECTED"
        /// A 5xx, a 3xx, or no answer (timeout, connection refused); retryable.
        case unavailable = "REALTIME_UNAVAILABLE"

        /// True unless Realtime refused the message itself.
        public var isRetryable: Bool { self != .rejected }
        /// The code itself, as written in messages and logs.
        public var description: String { rawValue }
    }

    /// One of the codes above.
    public var code: Code
    /// Safe to log: the status and at most 200 bytes of the answer, never a header value.
    public var message: String
    /// The HTTP status when there was one.
    public var status: Int?

    public var isRetryable: Bool { code.isRetryable }

    public var description: String { "\(code.rawValue): \(message)" }
}
