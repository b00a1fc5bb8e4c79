/// What `enqueue` found.
public enum EnqueueOutcome: Sendable, Equatable {
    /// The version is now queued (it was `uploading` or already `queued` and idle).
    case queued(attempt: Int)
    /// Already queued or running: nothing changed.
    case deduplicated(status: String)
    case notFound
    /// `ready` or `failed`: use retry or reprocess instead.
    case invalidState(status: String)
}

/// What a heartbeat learned.
public enum HeartbeatResult: Sendable, Equatable {
    case alive(cancelRequested: Bool)
    /// The lease is gone (expired and rescued, or finalized elsewhere): stop and publish nothing.
    case leaseLost
}

/// What `transcode_finalize` answered.
public struct FinalizeOutcome: Sendable, Equatable {
    public var ok: Bool
    /// `ready` / `failed` after the call (a failed reprocess stays `ready`).
    public var status: String?
    public var outputRevision: Int?
    public var idempotentReplay: Bool
    /// `LEASE_LOST`, `VERSION_NOT_FOUND`, `INVALID_STATUS` when `ok` is false.
    public var error: String?
}

/// What `cancel` did.
public struct CancelOutcome: Sendable, Equatable {
    public var ok: Bool
    /// True when a worker holds the version; it stops at its next heartbeat.
    public var running: Bool
    public var status: String?
    /// `VERSION_NOT_FOUND` or `INVALID_STATE` when `ok` is false.
    public var error: String?
}
