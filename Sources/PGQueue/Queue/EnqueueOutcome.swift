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
