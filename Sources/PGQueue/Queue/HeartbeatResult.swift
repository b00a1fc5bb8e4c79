/// What a heartbeat learned.
public enum HeartbeatResult: Sendable, Equatable {
    case alive(cancelRequested: Bool)
    /// The lease is gone (expired and rescued, or finalized elsewhere): stop and publish nothing.
    case leaseLost
}
