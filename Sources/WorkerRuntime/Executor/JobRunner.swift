import Foundation
import ObjectStorage
import PGQueue

/// Runs claimed jobs, one per call to `run`, each on the caller's thread.
///
/// One attempt: download the sources (and face-blurred textures) from storage into a private
/// work directory → run the pipeline in a child process (`transcode-job job-exec`, with memory,
/// CPU and core-dump limits, killed at the attempt timeout or when asked to stop) → upload the
/// outputs under the attempt's prefix (the manifest last) → finalize: in SQL with
/// `transcode_finalize` (direct mode), or by POSTing `transcode-done` when `config.completionURL`
/// is set (`TRANSCODE_DONE_URL`, or Supabase mode: callback mode). Failures are classified (`FailureReason`): permanent ones fail the version at
/// once, retryable ones go back to the queue with backoff until the attempts are used up. While
/// the job runs, a heartbeat thread renews the lease every `config.heartbeatSeconds` and turns a
/// cancel request or a lost lease into a stop request on the job's `JobControl`. Progress events
/// (`transcode_progress`) are sent with `pg_notify` on `SchemaCatalog.eventsChannel`, or in
/// Supabase mode through Realtime's REST broadcast (`RealtimeBroadcaster`).
///
/// Each run uses two database sessions (job and heartbeat): taken from `connections` and given
/// back when the runner has a pool, else opened and closed by the run. It works in a private
/// directory under `$TMPDIR` that it removes at the end (the first runner of a process also
/// removes directories that killed workers left behind). A runner holds no per-job state, so one
/// runner may serve many threads at once.
///
/// The child binary is `transcode-job` beside this executable, or `TRANSCODE_WORKER_BINARY` when
/// set (`ChildExecutable`).
public final class JobRunner: Sendable {
    /// What `run` reports to an observer as the job goes (for `process`, which prints it).
    public enum Event: Sendable {
        /// A step began: `downloading`, a pipeline phase (`parsing`, `layering`, `writing`,
        /// `plan`, `preview`, `manifest`, `report`), `uploading_outputs`, `completing`.
        case phase(String)
        /// The attempt failed (whatever happens next: retry, final failure).
        case failure(FailureReason)
        /// After a `ready`, the version's superseded output revisions were deleted.
        case outputsCollected(OutputCollector.Outcome)
    }

    public let config: WorkerConfig
    /// Where sources and redacted textures are read.
    public let storage: any ObjectStore
    /// Where outputs are written, and superseded ones deleted (`storage` unless configured apart).
    public let outputStorage: any ObjectStore
    public let logger: JSONLogger
    let observer: (@Sendable (Event) -> Void)?
    let http: HTTPClient
    /// Supabase mode: progress goes to Realtime's REST broadcast instead of pg_notify.
    let broadcaster: RealtimeBroadcaster?
    /// The executable started for `job-exec`.
    let childExecutable: String
    /// What the launcher applies to every job child (limits, no new privileges, namespaces).
    let childSandbox: ChildSandbox
    /// How long reporting a job's end may take in all (`transcode-done` retries and database
    /// retries while reporting), seconds. See `defaultReportDeadlineSeconds`.
    let reportDeadlineSeconds: Double
    /// Where the job's and its heartbeat's sessions come from (the daemon's, shared by its jobs);
    /// nil: each job opens and closes its own.
    let connections: PGConnectionPool?

    /// The report deadline for a lease length: the contract's 2 minutes of `transcode-done`
    /// retries, or two leases when that is longer.
    ///
    /// When it passes without a definite answer:
    /// - a `ready` report gives up: the outputs stay in place (the backend may have recorded them
    ///   without its answer reaching us; they sit under the attempt's own prefix), the heartbeat
    ///   stops, the lease expires and the rescuer puts the version back in the queue. A success
    ///   recorded late is safe because a newer attempt writes under a prefix of its own.
    /// - a `failed` report is recorded in SQL with `transcode_finalize` instead (fenced by the
    ///   lease; `.leaseLost` when the lease is gone by then).
    static func defaultReportDeadlineSeconds(leaseSeconds: Double) -> Double {
        max(120, 2 * leaseSeconds)
    }

    /// The environment variable that overrides the child binary.
    public static let binaryVariable = "TRANSCODE_WORKER_BINARY"

    /// - Parameters:
    ///   - config: limits, timings, database URL (required), completion mode.
    ///   - storage: where sources are read (and outputs written unless `outputStorage` is given);
    ///     shared, thread-safe.
    ///   - outputStorage: where outputs are written; nil: `storage`.
    ///   - logger: JSON lines for claim, phases, finish and child stderr.
    ///   - observer: called on the job's thread for each `Event` (keep it quick).
    ///   - connections: sessions shared with the worker's other jobs (`PGConnectionPool`); nil: the
    ///     job opens its own and closes them at its end.
    public convenience init(config: WorkerConfig, storage: any ObjectStore, outputStorage: (any ObjectStore)? = nil,
                            logger: JSONLogger, connections: PGConnectionPool? = nil,
                            observer: (@Sendable (Event) -> Void)? = nil) {
        self.init(config: config, storage: storage, outputStorage: outputStorage, logger: logger, observer: observer,
                  reportDeadlineSeconds: Self.defaultReportDeadlineSeconds(leaseSeconds: config.leaseSeconds),
                  connections: connections)
    }

    /// As the public initializer, with the report deadline given (tests shorten it).
    init(config: WorkerConfig, storage: any ObjectStore, outputStorage: (any ObjectStore)? = nil, logger: JSONLogger,
         observer: (@Sendable (Event) -> Void)?, reportDeadlineSeconds: Double, connections: PGConnectionPool? = nil) {
        self.reportDeadlineSeconds = max(0, reportDeadlineSeconds)
        self.connections = connections
        self.config = config
        self.storage = storage
        self.outputStorage = outputStorage ?? storage
        self.logger = logger
        self.observer = observer
        self.http = HTTPClient()
        // A misconfigured Supabase mode is refused by the commands before a runner exists.
        self.broadcaster = (try? config.supabaseEndpoints())?.map { RealtimeBroadcaster(endpoints: $0) }
        self.childExecutable = Self.resolveChildExecutable()
        self.childSandbox = ChildSandbox.forJobs(config)
        // Once per process (also when the command did it at start): work directories of dead
        // workers are removed.
        JobWorkspace.removeStaleOnce()
    }

    /// Runs one claimed job to its end and reports how it ended. Blocks the calling thread (a
    /// plain thread, not a Swift concurrency task) for the whole job. Returns promptly (the child
    /// is killed within ~200 ms) once `control.requestStop` is called: `.shutdown` gives the job
    /// back without burning an attempt (`.released`), `.cancelled` fails it with `CANCELLED`,
    /// `.leaseLost` publishes nothing. The outcome is authoritative; the control may carry a
    /// stop reason the job no longer acted on (e.g. set while the job was being finalized).
    /// Reporting the end is bounded: by `reportDeadlineSeconds`, and at once by a `.shutdown`
    /// request even when another stop reason came first (`JobControl.shutdownRequested`).
    ///
    /// With `ownThread` (the caller made this thread for this job, and it ends with it), a
    /// re-transcode lowers the thread's CPU priority to `TRANSCODE_BATCH_NICE` once its heartbeat
    /// runs, so that its own share of the work yields to fresh uploads as its child does.
    /// `observer` sees this job's events (the runner's own observer when nil), so that one runner
    /// serves every job of a daemon, each reporting to its own timer.
    public func run(_ job: ClaimedJob, control: JobControl, ownThread: Bool = false,
                    observer: (@Sendable (Event) -> Void)? = nil) -> JobOutcome {
        JobAttempt.open(JobAttempt.Opening(
            runner: self, job: job, control: control, observer: observer ?? self.observer,
            log: AttemptLog(job: job, logger: logger), yieldsCPU: ownThread && job.isReprocess && config.batchNice > 0))
    }

    /// The child's environment: only what a conversion needs (`PATH`, `TMPDIR`, `HOME`, locale,
    /// `TZ`, `TRANSCODE_LOG_LEVEL`), never the database URL or secrets, so that even a parser bug
    /// exploited by a hostile file finds nothing to leak. Crash backtraces are off in the child
    /// (they are slow and need memory the limits may not leave) unless `SWIFT_BACKTRACE` is set.
    static func childEnvironment(_ env: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
        let keep: Set<String> = ["PATH", "TMPDIR", "HOME", "LANG", "LANGUAGE", "TZ", "TRANSCODE_LOG_LEVEL", "SWIFT_BACKTRACE"]
        var out = env.filter { keep.contains($0.key) || $0.key.hasPrefix("LC_") }
        if out["SWIFT_BACKTRACE"] == nil { out["SWIFT_BACKTRACE"] = "enable=no" }
        return out.keys.sorted().map { "\($0)=\(out[$0]!)" }
    }

    /// What a job's child runs (`ChildExecutable.resolve`).
    static func resolveChildExecutable() -> String {
        ChildExecutable.resolve(environment: ProcessInfo.processInfo.environment)
    }
}
