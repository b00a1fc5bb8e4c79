import Foundation
import JSONCore
import ObjectStorage
import PGQueue
#if canImport(Glibc)
import Glibc
import WorkerCore
#endif

/// One attempt of one claimed job, from download to the final report (see `JobRunner`). Lives on
/// the job's thread for the duration of `run()`; the heartbeat runs on a thread of its own.
final class JobAttempt {
    /// Why a step did not go on.
    enum Interruption: Error {
        case failed(FailureReason)
        case stopped(JobControl.StopReason)
    }

    /// What the child produced.
    struct ChildReport {
        var files: [ChildMessage.File]
        var phaseMilliseconds: [JobPhase: Double]
        var manifestSchemaVersion: Int
        var layerCount: Int
        var thumbnails: [(path: String, kind: String, width: Int, height: Int)]
        /// The manifest's `quality.grade` (`A` best); nil when the input was not graded.
        var qualityGrade: String?
        /// Paths the child took unchanged from the previous revision (`--previous`) with the size
        /// and hash of the bytes the worker downloaded there: copied in storage, not read from `out/`.
        var copied: Set<String> = []
        /// The daemon's own copy of every other file, checked: what is uploaded.
        var intake: OutputIntake
    }

    let runner: JobRunner
    let job: ClaimedJob
    let control: JobControl
    /// Sees this job's steps, failures and collected outputs (`JobRunner.Event`).
    let observe: (@Sendable (JobRunner.Event) -> Void)?
    /// The attempt's identity on every log line, and its last line.
    let log: AttemptLog
    var config: WorkerConfig { runner.config }
    var logger: JSONLogger { runner.logger }
    /// Sources and redacted textures are read here.
    var storage: any ObjectStore { runner.storage }
    /// Outputs are written here.
    var outputStore: any ObjectStore { runner.outputStorage }

    /// Renews the lease on its own thread (running from before the attempt exists until its end).
    let heartbeat: HeartbeatLoop
    /// The job's own database session.
    let store: QueueStore
    /// Serializes the job connection between the job thread and the progress sender.
    let storeLock: NSLock
    /// Sends progress events off the job thread.
    let progress: ProgressReporter

    /// Monotonic nanoseconds by which reporting the end must be over (set when it begins).
    var reportDeadline: UInt64?
    /// Output keys written by this attempt, in order.
    var uploaded: [String] = []
    /// How many of them were copied from the previous revision instead of uploaded.
    var copied = 0
    /// True once a `ready` report was sent: from then on, outputs are only deleted when the
    /// answer proves they are not referenced.
    var completionSent = false
    var timings: [String: Double] = [:]
    var currentStep = JobStep.parsing

    /// An attempt whose heartbeat runs and whose session is open (`JobAttempt.open` makes both).
    init(_ opening: Opening, heartbeat: HeartbeatLoop, store: QueueStore, storeLock: NSLock, progress: ProgressReporter) {
        runner = opening.runner
        job = opening.job
        control = opening.control
        observe = opening.observer
        log = opening.log
        self.heartbeat = heartbeat
        self.store = store
        self.storeLock = storeLock
        self.progress = progress
    }

    /// The attempt limit in force: the row's, capped by the worker's.
    var maxAttempts: Int { Self.maxAttempts(job, config) }

    /// The attempt limit in force for `job` under `config`.
    static func maxAttempts(_ job: ClaimedJob, _ config: WorkerConfig) -> Int { min(job.maxAttempts, config.maxAttempts) }

    /// The attempt's identity on every log line: version, room and attempt number.
    var ids: [String: JSONValue] { log.ids }
    /// When the attempt began (monotonic nanoseconds).
    var started: UInt64 { log.started }

    /// The attempt's identity with `extra` fields (which never replace it).
    func logFields(_ extra: [String: JSONValue]) -> [String: JSONValue] {
        log.fields(extra)
    }

    // MARK: - The attempt

    /// Runs the steps, then drains the progress events, stops the heartbeat and logs and records
    /// the end.
    func run() -> JobOutcome {
        let (outcome, failure) = execute()
        progress.drain()
        heartbeat.stop()
        return finish(outcome, failure: failure)
    }

    /// Download, transcode, upload, report; or the failure / stop handling. Returns the outcome
    /// and the failure it was about, if any.
    func execute() -> (JobOutcome, FailureReason?) {
        let ws: JobWorkspace
        do {
            ws = try JobWorkspace()
        } catch {
            return (handleFailure(error), error)
        }
        defer { ws.remove() }
        do {
            try checkStop()
            let inputs = try download(ws)
            let previous = downloadPrevious(ws)
            let report = try transcode(ws, inputs: inputs, previous: previous)
            try requirePreview(report)
            try upload(ws, report: report, previous: previous)
            try storePrivacyDetail(ws, report: report, rows: inputs.rows)
            return (complete(report), nil)
        } catch {
            switch error {
            case .failed(let f):
                return (handleFailure(f), f)
            case .stopped(let reason):
                let outcome = handleStop(reason)
                guard case .failed = outcome else { return (outcome, nil) }
                return (outcome, FailureReason(reason: FailureReason.cancelled, message: "CANCELLED: cancelled by an operator",
                                               phase: currentStep, isRetryable: false))
            }
        }
    }

    /// Logs the end, records the attempt and returns `outcome`.
    func finish(_ outcome: JobOutcome, failure: FailureReason?) -> JobOutcome {
        timings["total"] = Clock.ms(started, Clock.now())
        log.finished(outcome, failure: failure, timings: timings, copied: copied)
        recordAttempt(outcome)
        return outcome
    }

    /// Writes the attempt's row for the console (`transcode_attempts`); a failure is logged, never
    /// fatal: the version's own state is already recorded.
    private func recordAttempt(_ outcome: JobOutcome) {
        let name = outcome.name, reason = outcome.reason
        storeLock.lock()
        defer { storeLock.unlock() }
        do {
            try store.recordAttempt(job, worker: config.workerId, outcome: name, reason: reason, timingsMs: timings)
        } catch {
            logger.warn("attempt record not written", logFields(["error_code": .string(error.code.rawValue)]))
        }
    }
}
