import Foundation
import JSONCore
import PGQueue
#if canImport(Glibc)
import Glibc
import WorkerCore
#endif

/// Step 0 of an attempt: what must hold before there is an attempt to run — the lease's
/// heartbeat running, the job's database session open, the progress sender ready. An attempt
/// exists only once all three do (`JobAttempt.init` takes them), so no step ever meets one
/// missing.
extension JobAttempt {
    /// What the runner hands over for one claimed job.
    struct Opening {
        let runner: JobRunner
        let job: ClaimedJob
        let control: JobControl
        let observer: (@Sendable (JobRunner.Event) -> Void)?
        let log: AttemptLog
        /// A re-transcode on a thread of its own: the thread's priority is lowered once the
        /// heartbeat runs (`JobRunner.run(ownThread:)`).
        let yieldsCPU: Bool
    }

    /// Opens and runs one attempt; `.leaseLost` when the worker has no database URL or the session
    /// cannot be opened while the lease lives (the version goes back to the queue when its lease
    /// expires).
    static func open(_ o: Opening) -> JobOutcome {
        let config = o.runner.config, job = o.job
        o.log.logger.info("job claimed", o.log.fields([
            "max_attempts": .int(Int64(maxAttempts(job, config))), "reprocess": .bool(job.isReprocess),
            "output_prefix": .string(job.outputPrefix),
        ]))
        guard let url = config.databaseURL else {
            o.log.logger.error("job cannot run: no database URL", o.log.ids)
            return o.log.finishedEarly(.leaseLost)
        }
        let heartbeat = HeartbeatLoop(job: job, control: o.control, logger: o.log.logger, databaseURL: url,
                                      leaseSeconds: config.leaseSeconds, interval: config.heartbeatSeconds,
                                      pool: o.runner.connections)
        heartbeat.start()
        defer { heartbeat.stop() }
        // Once the heartbeat runs on its own thread (at the worker's priority): a re-transcode's
        // own share of the work (downloads, hashing, copies) yields the CPU to fresh uploads, as
        // its child does.
        if o.yieldsCPU { ChildSandbox.lowerThreadPriority(config.batchNice) }

        guard let connection = openConnection(url, o, heartbeat: heartbeat) else {
            heartbeat.enterReporting()
            o.log.logger.error("job abandoned: no database connection while the lease lived", o.log.ids)
            return o.log.finishedEarly(.leaseLost)
        }
        defer { release(connection, runner: o.runner) }
        let store = QueueStore(connection: connection)
        let storeLock = NSLock()
        let block = Int64(SchemaCatalog.eventSeqBlock)
        let progress = ProgressReporter(
            versionId: job.versionId, roomId: job.roomId, attempt: job.attempt,
            maxAttempts: maxAttempts(job, config), minInterval: config.progressIntervalSeconds,
            firstSeq: job.eventSeq > 0 ? job.eventSeq - block + 1 : 1, lastSeq: job.eventSeq > 0 ? job.eventSeq : .max,
            status: job.isReprocess ? "ready" : "transcoding",
            logger: o.log.logger, asynchronous: true, send: progressSender(o, store: store, storeLock: storeLock))
        return JobAttempt(o, heartbeat: heartbeat, store: store, storeLock: storeLock, progress: progress).run()
    }

    /// How progress events go out: off the job thread (a stalled connection must not hold up the
    /// child's tick: timeouts and stop requests). In Supabase mode through Realtime's REST
    /// broadcast, with a message id stable per (version, lease, seq) and the database's channel
    /// kind (`transcode.realtime_private`), the same as the terminal events'; otherwise with
    /// `pg_notify` on the job's session, shared under `storeLock`. A reprocess is an operator's
    /// work, not the app's story: its progress stays on the worker's own channel (pg_notify) and
    /// never reaches the app's `room:` channel.
    static func progressSender(_ o: Opening, store: QueueStore, storeLock: NSLock) -> ProgressReporter.Send {
        if let broadcaster = o.runner.broadcaster, !o.job.isReprocess {
            let name = "\(o.job.versionId):\(o.job.leaseId):"
            let privateChannel = (try? store.realtimePrivate()) ?? false
            return { topic, event, payload in
                var seq: Int64 = 0
                if case .object(let fields) = payload, case .int(let n)? = fields["seq"] { seq = n }
                try broadcaster.send(topic: topic, event: event, payload: payload,
                                     id: RealtimeBroadcaster.messageId(for: name + String(seq)), privateChannel: privateChannel)
            }
        }
        return { topic, event, payload in
            storeLock.lock()
            defer { storeLock.unlock() }
            try store.notifyEvent(topic: topic, event: event, payload: payload)
        }
    }

    /// Gives the job's connection back to the worker's pool, or closes it.
    static func release(_ connection: PGConnection, runner: JobRunner) {
        if let pool = runner.connections { pool.giveBack(connection) } else { connection.close() }
    }

    /// Opens the job's connection (from the worker's pool when it has one), retrying while the
    /// lease lives and nobody asked to stop.
    static func openConnection(_ url: String, _ o: Opening, heartbeat: HeartbeatLoop) -> PGConnection? {
        var delay = 0.25
        while true {
            do {
                let name = "transcode-worker job", timeout = max(5, Int(o.runner.config.leaseSeconds / 2))
                if let pool = o.runner.connections { return try pool.take(applicationName: name, statementTimeoutSeconds: timeout) }
                return try PGConnection(url: url, applicationName: name, statementTimeoutSeconds: timeout)
            } catch {
                o.log.logger.warn("database connection failed", o.log.fields(["error": .string(error.description)]))
                guard error.isRetryable, heartbeat.leaseAlive, o.control.stopReason == nil else { return nil }
            }
            pause(delay, control: o.control)
            delay = min(4, delay * 2)
        }
    }
}
