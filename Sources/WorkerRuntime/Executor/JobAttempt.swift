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
        var phaseMilliseconds: [String: Double]
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
    var config: WorkerConfig { runner.config }
    var logger: JSONLogger { runner.logger }
    /// Sources and redacted textures are read here.
    var storage: any ObjectStore { runner.storage }
    /// Outputs are written here.
    var outputStore: any ObjectStore { runner.outputStorage }

    var heartbeat: HeartbeatLoop!
    var store: QueueStore!
    /// Serializes the job connection between the job thread and the progress sender.
    let storeLock = NSLock()
    var progress: ProgressReporter!
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
    let started = Clock.now()
    var currentStep = JobStep.parsing
    /// Lower this thread's priority once the heartbeat runs (a re-transcode on a thread of its own).
    var yieldsCPU = false

    init(runner: JobRunner, job: ClaimedJob, control: JobControl) {
        self.runner = runner
        self.job = job
        self.control = control
        ids = ["version_id": .string(job.versionId), "room_id": .string(job.roomId), "attempt": .int(Int64(job.attempt))]
    }

    /// The attempt limit in force: the row's, capped by the worker's.
    var maxAttempts: Int { min(job.maxAttempts, config.maxAttempts) }

    /// The attempt's identity on every log line: version, room and attempt number.
    let ids: [String: JSONValue]

    /// The attempt's identity with `extra` fields (which never replace it).
    func logFields(_ extra: [String: JSONValue]) -> [String: JSONValue] {
        ids.merging(extra) { a, _ in a }
    }

    // MARK: - The attempt

    func run() -> JobOutcome {
        logger.info("job claimed", logFields([
            "max_attempts": .int(Int64(maxAttempts)), "reprocess": .bool(job.isReprocess),
            "output_prefix": .string(job.outputPrefix),
        ]))
        guard let url = config.databaseURL else {
            logger.error("job cannot run: no database URL", ids)
            return finish(.leaseLost, failure: nil)
        }
        heartbeat = HeartbeatLoop(job: job, control: control, logger: logger, databaseURL: url,
                                  leaseSeconds: config.leaseSeconds, interval: config.heartbeatSeconds,
                                  pool: runner.connections)
        heartbeat.start()
        defer { heartbeat.stop() }
        // Once the heartbeat runs on its own thread (at the worker's priority): a re-transcode's
        // own share of the work (downloads, hashing, copies) yields the CPU to fresh uploads, as
        // its child does (`JobRunner.run(ownThread:)`).
        if yieldsCPU { ChildSandbox.lowerThreadPriority(config.batchNice) }

        guard let connection = openConnection(url) else {
            heartbeat.enterReporting()
            logger.error("job abandoned: no database connection while the lease lived", ids)
            return finish(.leaseLost, failure: nil)
        }
        defer { release(connection) }
        let store = QueueStore(connection: connection)
        self.store = store
        // Progress events are sent off the job thread (a stalled connection must not hold up the
        // child's tick: timeouts and stop requests), sharing the job connection under a lock.
        let storeLock = self.storeLock
        let send: ProgressReporter.Send
        // A reprocess is an operator's work, not the app's story: its progress stays on the worker's
        // own channel (pg_notify) and never reaches the app's `room:` channel.
        if let broadcaster = runner.broadcaster, !job.isReprocess {
            // Supabase mode: Realtime REST; the message id is stable per (version, lease, seq), and
            // the channel kind is the database's (`transcode.realtime_private`, public by default),
            // the same as the terminal events'.
            let name = "\(job.versionId):\(job.leaseId):"
            let privateChannel = (try? store.realtimePrivate()) ?? false
            send = { topic, event, payload in
                var seq: Int64 = 0
                if case .object(let fields) = payload, case .int(let n)? = fields["seq"] { seq = n }
                try broadcaster.send(topic: topic, event: event, payload: payload,
                                     id: RealtimeBroadcaster.messageId(for: name + String(seq)), privateChannel: privateChannel)
            }
        } else {
            send = { topic, event, payload in
                storeLock.lock()
                defer { storeLock.unlock() }
                try store.notifyEvent(topic: topic, event: event, payload: payload)
            }
        }
        let block = Int64(SchemaCatalog.eventSeqBlock)
        progress = ProgressReporter(
            versionId: job.versionId, roomId: job.roomId, attempt: job.attempt, maxAttempts: maxAttempts,
            minInterval: config.progressIntervalSeconds,
            firstSeq: job.eventSeq > 0 ? job.eventSeq - block + 1 : 1, lastSeq: job.eventSeq > 0 ? job.eventSeq : .max,
            status: job.isReprocess ? "ready" : "transcoding",
            logger: logger, asynchronous: true, send: send)

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

    /// Logs the end and returns `outcome`.
    func finish(_ outcome: JobOutcome, failure: FailureReason?) -> JobOutcome {
        timings["total"] = Clock.ms(started, Clock.now())
        var fields = ids
        for (k, v) in timings { fields["\(k)_ms"] = .int(Int64(v.rounded())) }
        if copied > 0 { fields["copied_outputs"] = .int(Int64(copied)) }
        fields["outcome"] = .string(outcome.name)
        if let reason = outcome.reason { fields["reason"] = .string(reason) }
        switch outcome {
        case .ready(let prefix): fields["output_prefix"] = .string(prefix)
        case .retried(_, let runAfter): fields["retry_at"] = .string(runAfter)
        case .failed, .released, .leaseLost: break
        }
        if let failure {
            fields["message"] = .string(failure.message)
            fields["failed_phase"] = .string(failure.phase)
            fields["retryable"] = .bool(failure.isRetryable)
        }
        if case .ready = outcome { logger.info("job finished", fields) } else { logger.warn("job finished", fields) }
        recordAttempt(outcome)
        return outcome
    }

    /// Writes the attempt's row for the console (`transcode_attempts`); a failure is logged, never
    /// fatal: the version's own state is already recorded.
    private func recordAttempt(_ outcome: JobOutcome) {
        guard let store else { return }
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
