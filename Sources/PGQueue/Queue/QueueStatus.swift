/// A snapshot of the queue for `status`, `/metrics` and operators.
public struct QueueStatus: Sendable {
    public struct Lease: Sendable {
        public var versionId: String
        public var roomId: String
        public var worker: String
        public var attempt: Int
        public var phase: String?
        public var lockedAt: String
        public var leaseRemainingSeconds: Double
    }

    public struct Failure: Sendable {
        public var reason: String
        public var count: Int
        public var lastAt: String
    }

    /// Versions per status (`uploading`, `queued`, `transcoding`, `ready`, `failed`).
    public var counts: [String: Int]
    /// Unleased versions waiting to run (queued, or ready with a reprocess request), incl. backoff.
    public var waiting: Int
    public var reprocessWaiting: Int
    public var inFlight: Int
    /// Leases past their expiry that the rescuer has not swept yet.
    public var expiredLeases: Int
    /// Age in seconds of the oldest queued version (nil when none).
    public var oldestQueuedSeconds: Double?
    public var leases: [Lease]
    /// Last error codes recorded in the window, by count.
    public var recentFailures: [Failure]
    public var failureWindowHours: Int
    /// Runnable-now plus running versions (`QueueStore.demandSQL`): what autoscaling divides by the
    /// slots per replica.
    public var demand: Int = 0
}
