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
