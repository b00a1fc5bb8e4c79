/// What `cancel` did.
public struct CancelOutcome: Sendable, Equatable {
    public var ok: Bool
    /// True when a worker holds the version; it stops at its next heartbeat.
    public var running: Bool
    public var status: String?
    /// `VERSION_NOT_FOUND` or `INVALID_STATE` when `ok` is false.
    public var error: String?
}
