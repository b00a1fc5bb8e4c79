import Foundation
import PGQueue
import WorkerCore

/// Keeps one job's lease alive from a thread of its own, on a database connection of its own:
/// every `heartbeatSeconds`, and when the phase changes (at most every `phaseGapSeconds`, the
/// first time no sooner than that after the claim, which has just renewed the lease), it renews
/// the lease with `QueueStore.heartbeat`. A job shorter than the gap sends none: the phases of a
/// fast job flash by, and each would be a statement and a commit. It asks the job to stop through its `JobControl`: `.cancelled` when an
/// operator cancelled the version, `.leaseLost` when the lease is gone or could not be renewed
/// before it expired (the database was unreachable for a whole lease).
///
/// Once the job reports its end (`enterReporting()`: finalize, retry, release, `transcode-done`),
/// the lease disappearing is the expected result of that report, so the loop no longer asks the
/// job to stop; it records the loss (`leaseLostSeen`) for the reporter to decide.
///
/// Thread-safe. `stop()` ends the thread and waits for it.
final class HeartbeatLoop: @unchecked Sendable {
    private let job: ClaimedJob
    private let control: JobControl
    private let logger: JSONLogger
    private let leaseSeconds: Double
    private let interval: Double
    private let databaseURL: String
    private let pool: PGConnectionPool?
    /// The least time between two renewals a phase change sends, seconds (by default).
    static let phaseGapSeconds = 0.25
    private let phaseGap: Double

    private let condition = NSCondition()
    private var phase: String?
    private var phaseChanged = false
    private var stopping = false
    private var reporting = false
    private var lostWhileReporting = false
    /// Monotonic nanoseconds until which the lease is known to live.
    private var leaseDeadline: UInt64
    private let finished = DispatchSemaphore(value: 0)
    private var started = false
    private var joined = false

    /// - Parameters:
    ///   - leaseSeconds / interval: the lease length and the renewal period, seconds.
    ///   - databaseURL: the loop opens (and closes) its own connection.
    ///   - pool: where that connection is taken from and given back to; nil: opened and closed.
    ///   - phaseGap: the least time between two renewals a phase change sends, seconds.
    init(job: ClaimedJob, control: JobControl, logger: JSONLogger, databaseURL: String,
         leaseSeconds: Double, interval: Double, pool: PGConnectionPool? = nil,
         phaseGap: Double = HeartbeatLoop.phaseGapSeconds) {
        self.phaseGap = max(0, phaseGap)
        self.pool = pool
        self.job = job
        self.control = control
        self.logger = logger
        self.databaseURL = databaseURL
        self.leaseSeconds = leaseSeconds
        self.interval = max(0.05, interval)
        // The claim has just renewed the lease.
        leaseDeadline = Clock.now() + UInt64(leaseSeconds * 1e9)
    }

    /// Starts the thread.
    func start() {
        condition.lock()
        started = true
        condition.unlock()
        let thread = Thread { [self] in loop() }
        thread.name = "heartbeat-\(job.versionId.prefix(8))"
        thread.start()
    }

    /// Records the phase (`parsing`, `layering`, `preview`, `uploading_outputs`) and renews the
    /// lease at once when it changed.
    func setPhase(_ p: String) {
        condition.lock()
        if p != phase {
            phase = p
            phaseChanged = true
            condition.signal()
        }
        condition.unlock()
    }

    /// True while the lease is known to live (renewed less than a lease ago).
    var leaseAlive: Bool {
        condition.lock()
        defer { condition.unlock() }
        return Clock.now() < leaseDeadline
    }

    /// Notes a renewal (this loop's, or the job thread's own heartbeat before uploading).
    /// `sentAt` is the clock read just BEFORE the heartbeat statement was sent: the server set the
    /// lease to its `now() + lease` when the statement started, which may be well before the
    /// reply arrived, so the local deadline must not start later than the request.
    func renewed(sentAt: UInt64) {
        condition.lock()
        leaseDeadline = max(leaseDeadline, sentAt + UInt64(leaseSeconds * 1e9))
        condition.unlock()
    }

    /// The job is reporting its end: from now on a lost lease is recorded, not turned into a stop
    /// request, and cancel requests are ignored.
    func enterReporting() {
        condition.lock()
        reporting = true
        condition.unlock()
    }

    /// True when, while reporting, the lease was found gone or expired without renewal.
    var leaseLostSeen: Bool {
        condition.lock()
        defer { condition.unlock() }
        return lostWhileReporting
    }

    /// Ends the thread and waits for it (at most one statement's duration). Idempotent.
    func stop() {
        condition.lock()
        stopping = true
        condition.signal()
        let mustJoin = started && !joined
        joined = true
        condition.unlock()
        if mustJoin { finished.wait() }
    }

    private func requestStop(_ reason: JobControl.StopReason) {
        condition.lock()
        defer { condition.unlock() }
        guard !stopping else { return }
        if reporting {
            if reason == .leaseLost { lostWhileReporting = true }
            return
        }
        control.requestStop(reason)
    }

    private func loop() {
        defer { finished.signal() }
        var connection: PGConnection?
        defer {
            if let c = connection {
                if let pool { pool.giveBack(c) } else { c.close() }
            }
        }
        var next = Clock.now() + UInt64(interval * 1e9)
        let gap = UInt64(min(phaseGap, 86_400) * 1e9)
        // The claim renewed the lease just now: a phase change waits a gap from here.
        var phaseAllowedAt = Clock.now() + gap
        var cancelSeen = false
        while true {
            condition.lock()
            while !stopping {
                // One clock read: `next` may pass between two reads, and the difference must
                // never be taken the wrong way round.
                let now = Clock.now()
                guard now < next, !(phaseChanged && now >= phaseAllowedAt) else { break }
                let until = phaseChanged ? min(next, phaseAllowedAt) : next
                _ = condition.wait(until: Date(timeIntervalSinceNow: max(0.001, Double(until - now) / 1e9)))
            }
            if stopping { condition.unlock(); return }
            let phase = self.phase
            phaseChanged = false
            condition.unlock()

            var retrySoon = false
            do throws(DatabaseError) {
                if connection == nil {
                    let name = "transcode-worker heartbeat", timeout = max(5, Int(leaseSeconds / 2))
                    if let pool {
                        connection = try pool.take(applicationName: name, statementTimeoutSeconds: timeout)
                    } else {
                        connection = try PGConnection(url: databaseURL, applicationName: name, statementTimeoutSeconds: timeout)
                    }
                }
                let sentAt = Clock.now()
                phaseAllowedAt = sentAt + gap
                let result = try QueueStore(connection: connection!).heartbeat(job, leaseSeconds: leaseSeconds, phase: phase)
                switch result {
                case .alive(let cancelRequested):
                    renewed(sentAt: sentAt)
                    if cancelRequested && !cancelSeen {
                        cancelSeen = true
                        logger.info("cancel requested", ["version_id": .string(job.versionId), "room_id": .string(job.roomId)])
                        requestStop(.cancelled)
                    }
                case .leaseLost:
                    // While reporting, the report itself ends the lease: not worth a warning.
                    condition.lock()
                    let expected = reporting
                    condition.unlock()
                    logger.log(expected ? .debug : .warn, "lease lost",
                               ["version_id": .string(job.versionId), "room_id": .string(job.roomId),
                                "attempt": .int(Int64(job.attempt))])
                    requestStop(.leaseLost)
                    return
                }
            } catch {
                retrySoon = true
                logger.warn("heartbeat failed", ["version_id": .string(job.versionId), "code": .string(error.code.rawValue),
                                                 "error": .string(error.message)])
                if !error.isRetryable { connection?.close(); connection = nil }
            }
            if !leaseAlive {
                logger.warn("lease expired without renewal", ["version_id": .string(job.versionId)])
                requestStop(.leaseLost)
                return
            }
            next = Clock.now() + UInt64((retrySoon ? min(interval, 1) : interval) * 1e9)
        }
    }
}
