import Foundation

/// How the daemon (or a signal) tells a running job to stop, and what it answers. Thread-safe.
public final class JobControl: @unchecked Sendable {
    /// Why a job is asked to stop.
    public enum StopReason: String, Sendable {
        /// Worker shutdown after the grace period: give the job back without burning an attempt.
        case shutdown
        /// An operator cancelled the version: finalize `failed` with reason `CANCELLED`.
        case cancelled
        /// The lease is gone: publish nothing, delete own outputs.
        case leaseLost
    }

    private let lock = NSLock()
    private var reason: StopReason?
    private var shutdown = false
    private var phaseValue: String = "claimed"

    public init() {}

    /// Asks the job to stop (the first reason wins). The runner kills its child process promptly.
    /// `.shutdown` is also recorded on its own (`shutdownRequested`) even when another reason came
    /// first, so that a job already reporting a cancel or a failure stops retrying at once.
    public func requestStop(_ r: StopReason) {
        lock.lock()
        if reason == nil { reason = r }
        if r == .shutdown { shutdown = true }
        lock.unlock()
    }

    /// True once `.shutdown` was requested, whatever reason came first. Every retry loop of the
    /// job (report POSTs, database retries) ends promptly once it is set.
    public var shutdownRequested: Bool {
        lock.lock()
        defer { lock.unlock() }
        return shutdown
    }

    public var stopReason: StopReason? {
        lock.lock()
        defer { lock.unlock() }
        return reason
    }

    /// The job's current step (`downloading`, `parsing`, `layering`, `preview`, `uploading_outputs`,
    /// `completing`), for logs and status.
    public var phase: String {
        get { lock.lock(); defer { lock.unlock() }; return phaseValue }
        set { lock.lock(); phaseValue = newValue; lock.unlock() }
    }
}

/// How one claimed job ended.
public enum JobOutcome: Sendable, Equatable {
    /// Finalized `ready` (or an idempotent replay of it).
    case ready(outputPrefix: String)
    /// A retryable failure with attempts left: back in the queue until `runAfter`.
    case retried(code: String, runAfter: String)
    /// Finalized `failed` with this reason (permanent error, attempts used up, or cancelled).
    case failed(reason: String)
    /// Given back without burning an attempt (shutdown).
    case released
    /// The lease was lost: nothing was published and own outputs were deleted.
    case leaseLost

    /// The outcome's name where it is recorded: the `job finished` log line, the
    /// `transcode_jobs_finished_total` metric, the attempts table and `process --json`
    /// (`ready`, `retried`, `failed`, `released`, `lease_lost`).
    public var name: String {
        switch self {
        case .ready: return "ready"
        case .retried: return "retried"
        case .failed: return "failed"
        case .released: return "released"
        case .leaseLost: return "lease_lost"
        }
    }

    /// The reason code of a retried or failed attempt; nil for the others.
    public var reason: String? {
        switch self {
        case .retried(let code, _): return code
        case .failed(let reason): return reason
        case .ready, .released, .leaseLost: return nil
        }
    }
}
