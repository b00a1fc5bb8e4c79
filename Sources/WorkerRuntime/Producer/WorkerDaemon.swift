import Foundation
import ObjectStorage
import PGQueue
#if canImport(Glibc)
import Glibc
import WorkerCore
#endif

/// `transcode-worker run`: claims queued versions up to `concurrency` at a time and runs each on a
/// thread of its own through `JobRunner` (which runs the pipeline in a child process).
///
/// Threads: the dispatcher (the caller of `run()`), a listener that waits for `NOTIFY
/// transcode_queued` on a session connection of its own, and one thread per job. The dispatcher
/// wakes on a notification, on a finished job, on a signal, or after `pollSeconds` (the fallback
/// when a notification is lost or a backoff expires). Every `rescueSeconds` it sweeps expired
/// leases (and `UploadSweeper`, on a thread of its own, versions whose upload-complete never
/// came; `DeletionSweeper` and `OrphanSweeper`, the stored objects of deleted rows). Database outages are waited out with backoff; nothing is lost, because the database
/// is the only state.
///
/// Shutdown: `beginShutdown()` (first SIGTERM/SIGINT) stops claiming and lets running jobs finish
/// for up to `shutdownGraceSeconds`, then stops them and gives their versions back without
/// burning an attempt; `stopNow()` (second signal) does that at once.
public final class WorkerDaemon: @unchecked Sendable {
    public let config: WorkerConfig
    /// Where sources are read.
    let storage: any ObjectStore
    /// Where outputs are written and swept (the same store unless configured apart).
    let outputStorage: any ObjectStore
    let logger: JSONLogger
    let exitWhenIdle: Bool
    /// Job counters, phase durations and the in-flight gauge (rendered by `/metrics`).
    public let metrics: Metrics

    let cond = NSCondition()
    private var wakeups = 0
    /// Running jobs by lease id (a version may be claimed again while an old attempt's thread is
    /// still winding down).
    private var running: [String: (job: ClaimedJob, control: JobControl)] = [:]
    private var takeoverRunning = false
    private var draining = false
    private var drainDeadline: Double = .infinity
    private var hardStop = false
    var listenerShouldRun = true
    /// Whether the listener thread is still running (it sets this false as its last step).
    var listenerRunning = false
    /// A pipe whose read end the listener polls with its session: a byte written at shutdown ends
    /// its wait at once.
    var listenerStop: [Int32] = [-1, -1]
    private var outcomes: [String: Int] = [:]
    /// Runs every job and the takeover of exhausted ones, with the daemon's sessions; set once
    /// before the first job starts.
    private var runner: JobRunner?

    /// - Parameters:
    ///   - storage: where sources are read (and outputs written unless `outputStorage` is given).
    ///   - outputStorage: where outputs are written and swept; nil: `storage`.
    ///   - exitWhenIdle: return once nothing is queued (now or after a backoff) and nothing runs.
    ///   - metrics: where job outcomes, retries, lost leases and phase durations are counted.
    public init(config: WorkerConfig, storage: any ObjectStore, outputStorage: (any ObjectStore)? = nil, logger: JSONLogger,
                exitWhenIdle: Bool = false, metrics: Metrics = Metrics()) {
        self.metrics = metrics
        self.config = config
        self.storage = storage
        self.outputStorage = outputStorage ?? storage
        self.logger = logger
        self.exitWhenIdle = exitWhenIdle
    }

    /// Stop claiming; running jobs get the grace period.
    public func beginShutdown() {
        cond.lock()
        if !draining {
            draining = true
            drainDeadline = Clock.seconds() + config.shutdownGraceSeconds
        }
        wakeups += 1
        cond.signal()
        cond.unlock()
    }

    /// Stop claiming and stop running jobs now (their versions are given back).
    public func stopNow() {
        cond.lock()
        draining = true
        hardStop = true
        drainDeadline = Clock.seconds()
        wakeups += 1
        cond.signal()
        cond.unlock()
    }

    /// True once shutdown began (the worker claims nothing more; `/readyz` answers 503).
    public var isDraining: Bool {
        cond.lock()
        defer { cond.unlock() }
        return draining
    }

    /// Jobs by outcome since start (`ready`, `retried`, `failed`, `released`, `lease_lost`).
    public var outcomeCounts: [String: Int] {
        cond.lock()
        defer { cond.unlock() }
        return outcomes
    }

    /// Runs until shutdown (or idle with `exitWhenIdle`). Returns the process exit status: 0 after
    /// a clean stop, 4 when the database could not be reached at start.
    public func run() -> Int32 {
        guard let url = config.databaseURL else {
            logger.error("no database configured (DATABASE_URL)")
            return 4
        }
        var store: QueueStore
        do {
            store = QueueStore(connection: try Self.connect(url: url, logger: logger, attempts: 10))
        } catch {
            logger.error("cannot connect to the database", ["error": .string("\(error)")])
            return 4
        }
        logger.info("worker started", [
            "concurrency": .int(Int64(config.concurrency)), "storage": .string(storage.location),
            "output_storage": .string(outputStorage.location), "output_bucket": .string(outputStorage.bucket),
            "completion": .string(config.completionURL == nil ? "direct" : "callback"),
            "lease_seconds": .double(config.leaseSeconds), "heartbeat_seconds": .double(config.heartbeatSeconds),
            "poll_seconds": .double(config.pollSeconds), "exit_when_idle": .bool(exitWhenIdle),
        ])
        // Sessions for the jobs and their heartbeats, kept between jobs: two per slot at most.
        let sessions = PGConnectionPool(url: url, maxIdle: 2 * config.concurrency)
        runner = JobRunner(config: config, storage: storage, outputStorage: outputStorage, logger: logger,
                           connections: sessions)
        defer { sessions.close() }
        startListener(url: url)
        let background = BackgroundWork(self)
        defer { background.stop() }
        dispatch(store, sessions: sessions)
        finish(store)
        return 0
    }

    /// The dispatcher's loop: rescues expired leases, claims and starts jobs while slots are free,
    /// waits for a wake-up; during shutdown, stops the running jobs once the grace period is over.
    /// Returns once shutdown has no job left running, or (with `exitWhenIdle`) the queue is idle.
    private func dispatch(_ store: QueueStore, sessions: PGConnectionPool) {
        var lastRescue = -Double.infinity
        var dbBackoff = 0.5
        var stoppedJobs = false
        loop: while true {
            cond.lock()
            let isDraining = draining, deadline = drainDeadline, runningCount = running.count, hard = hardStop
            let batchRunning = running.values.filter { $0.job.isReprocess }.count
            // Wake-ups that arrive from here on (a NOTIFY during a claim) end the next wait early.
            let wakeSnapshot = wakeups
            cond.unlock()

            if isDraining {
                if runningCount == 0 { break loop }
                if !stoppedJobs && (hard || Clock.seconds() >= deadline) {
                    stoppedJobs = true
                    logger.info("grace period over: stopping running jobs", ["running": .int(Int64(runningCount))])
                    cond.lock()
                    for (_, r) in running { r.control.requestStop(.shutdown) }
                    cond.unlock()
                }
            } else {
                do {
                    if Clock.seconds() - lastRescue >= config.rescueSeconds {
                        lastRescue = Clock.seconds()
                        try rescue(store)
                    }
                    let claimed = try claimJobs(store, free: config.concurrency - runningCount, batchRunning: batchRunning)
                    if exitWhenIdle && claimed == 0 && runningCount == 0 {
                        cond.lock()
                        let stillNone = running.isEmpty
                        cond.unlock()
                        if stillNone, try store.isIdle() {
                            logger.info("queue is idle: exiting")
                            break loop
                        }
                    }
                    dbBackoff = 0.5
                } catch {
                    logger.warn("database unavailable; retrying", ["error": .string("\(error)"), "retry_in_s": .double(dbBackoff)])
                    wait(seconds: dbBackoff, since: nil)
                    dbBackoff = min(dbBackoff * 2, 30)
                    continue
                }
            }
            sessions.closeExpired()
            var timeout = config.pollSeconds
            if !isDraining { timeout = min(timeout, max(0.01, lastRescue + config.rescueSeconds - Clock.seconds())) }
            if isDraining { timeout = min(timeout, 0.2) }
            wait(seconds: timeout, since: wakeSnapshot)
        }
    }

    /// Claims and starts jobs for the `free` slots; re-transcodes take at most the batch slots
    /// (`batchRunning` of them run already), the others stay for fresh uploads. Returns how many
    /// it claimed.
    private func claimJobs(_ store: QueueStore, free: Int, batchRunning: Int) throws(DatabaseError) -> Int {
        var free = free, batchRunning = batchRunning
        var claimed = 0
        while free > 0 {
            guard let job = try store.claim(workerId: config.workerId, leaseSeconds: config.leaseSeconds,
                                            includeReprocess: batchRunning < config.effectiveBatchSlots)
            else { break }
            if job.isReprocess { batchRunning += 1 }
            start(job)
            free -= 1
            claimed += 1
        }
        return claimed
    }

    /// Stops the listener and waits for it, logs the outcomes and closes the dispatcher's session.
    /// The listener is told to stop (a byte on its pipe ends its wait) and awaited before `run`
    /// returns: the process exits next, and exit handlers free libpq's and libcrypto's state,
    /// which a thread still inside them would use afterwards.
    private func finish(_ store: QueueStore) {
        cond.lock()
        listenerShouldRun = false
        let counts = outcomes
        cond.unlock()
        if listenerStop[1] >= 0 {
            var byte: UInt8 = 1
            _ = write(listenerStop[1], &byte, 1)
        }
        if waitForListener(seconds: Self.listenerStopSeconds) {
            for fd in listenerStop where fd >= 0 { close(fd) }   // a listener still running keeps its pipe
        } else {
            logger.warn("listener still running at exit", ["waited_s": .double(Self.listenerStopSeconds)])
        }
        logger.info("worker stopped", ["outcomes": .object(counts.mapValues { .int(Int64($0)) })])
        store.connection.close()
    }

    // MARK: - Jobs

    private func start(_ job: ClaimedJob) {
        // Set before the dispatcher claims anything; without it the lease simply expires.
        guard let runner else {
            logger.error("claimed job not started: no runner", ["version_id": .string(job.versionId)])
            return
        }
        let control = JobControl()
        cond.lock()
        running[job.leaseId] = (job, control)
        metrics.setInFlight(running.count)
        cond.unlock()
        logger.info("claimed", ["version_id": .string(job.versionId), "room_id": .string(job.roomId),
                                "attempt": .int(Int64(job.attempt)), "reprocess": .bool(job.isReprocess)])
        let thread = Thread { [self] in
            let timer = PhaseTimer(metrics: metrics)
            let outcome = runner.run(job, control: control, ownThread: true) { event in
                switch event {
                case .phase(let p): timer.begin(p)
                case .outputsCollected(let o): self.metrics.outputsCollected(objects: o.objects, bytes: o.bytes, failures: o.failures)
                case .failure: break
                }
            }
            timer.end()
            finished(job, outcome)
        }
        thread.name = "job-\(job.versionId.prefix(8))"
        thread.start()
    }

    private func finished(_ job: ClaimedJob, _ outcome: JobOutcome) {
        switch outcome {
        case .retried: metrics.retried()
        case .leaseLost: metrics.leaseWasLost()
        case .ready, .failed, .released: break
        }
        metrics.jobFinished(outcome: outcome.name, reason: outcome.reason ?? "none")
        cond.lock()
        running[job.leaseId] = nil
        metrics.setInFlight(running.count)
        outcomes[outcome.name, default: 0] += 1
        wakeups += 1
        cond.signal()
        cond.unlock()
    }

    // MARK: - Rescuer

    /// Re-queues expired leases with attempts left; fails those without (reason LEASE_EXPIRED) on
    /// a thread of its own, so a slow `transcode-done` never holds up claiming.
    private func rescue(_ store: QueueStore) throws(DatabaseError) {
        let requeued = try store.rescueExpired(baseDelaySeconds: config.retryBaseSeconds, maxDelaySeconds: config.retryMaxSeconds,
                                               maxAttempts: config.maxAttempts)
        for id in requeued { logger.warn("lease expired: re-queued", ["version_id": .string(id)]) }
        cond.lock()
        let busy = takeoverRunning
        cond.unlock()
        guard !busy else { return }
        guard let runner else { return }
        let taken = try store.takeOverExhausted(workerId: config.workerId, maxAttempts: config.maxAttempts)
        guard !taken.isEmpty else { return }
        cond.lock()
        takeoverRunning = true
        cond.unlock()
        let thread = Thread { [self] in
            for job in taken {
                logger.warn("lease expired with no attempts left: failing", ["version_id": .string(job.versionId)])
                runner.failTakenOver(job, reason: "LEASE_EXPIRED",
                                     message: "the worker holding the version stopped heartbeating on its last attempt")
            }
            cond.lock()
            takeoverRunning = false
            cond.unlock()
        }
        thread.name = "rescuer"
        thread.start()
    }

    // MARK: - Wake-ups

    /// Waits until a wake-up newer than `since` (nil: any new one) or `seconds` pass.
    private func wait(seconds: Double, since: Int?) {
        cond.lock()
        let start = since ?? wakeups
        let until = Date(timeIntervalSinceNow: max(0, seconds))
        while wakeups == start {
            if !cond.wait(until: until) { break }
        }
        cond.unlock()
    }

    func wake() {
        cond.lock()
        wakeups += 1
        cond.signal()
        cond.unlock()
    }

    // MARK: - Helpers

    static func connect(url: String, logger: JSONLogger, attempts: Int) throws(DatabaseError) -> PGConnection {
        var delay = 0.5
        var last = DatabaseError(code: .connectFailed, message: "not tried")
        for i in 1...max(1, attempts) {
            do {
                return try PGConnection(url: url)
            } catch {
                last = error
                guard error.isRetryable, i < attempts else { break }
                logger.warn("database not reachable yet; retrying", ["error": .string("\(error)"), "retry_in_s": .double(delay)])
                Thread.sleep(forTimeInterval: delay)
                delay = min(delay * 2, 10)
            }
        }
        throw last
    }
}
