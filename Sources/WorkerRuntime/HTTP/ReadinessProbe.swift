import Foundation
import PGQueue
import WorkerCore

/// The database check behind `/readyz`, cached so that probes cannot load the database: the check
/// runs at most once per `cacheSeconds` whatever the number of probes, never on the caller's
/// thread, and never twice at once.
///
/// A caller gets the cached answer while it is younger than `cacheSeconds`. Otherwise it starts a
/// check (unless one is running) on a thread of its own and waits for it at most `waitSeconds`;
/// a check that has not answered by then counts as "not ready". So an outage is seen within
/// about `cacheSeconds` plus the check's own timeout, and a check that hangs holds a caller for
/// at most `waitSeconds`. Thread-safe.
final class ReadinessProbe: @unchecked Sendable {
    /// How long one answer is reused, seconds.
    static let defaultCacheSeconds = 1.0
    /// How long a caller waits for a running check, seconds.
    static let defaultWaitSeconds = 2.0

    let check: @Sendable () -> Bool
    let cacheSeconds: Double
    let waitSeconds: Double
    let now: @Sendable () -> Double

    private let cond = NSCondition()
    private var last: (ok: Bool, at: Double)?
    private var running = false
    private var started = 0

    /// - Parameters:
    ///   - check: true when the database answers; called on a background thread, one at a time.
    ///   - now: the clock, seconds (monotonic; tests pass their own).
    init(cacheSeconds: Double = ReadinessProbe.defaultCacheSeconds,
                waitSeconds: Double = ReadinessProbe.defaultWaitSeconds,
                now: @escaping @Sendable () -> Double = Clock.seconds,
                check: @escaping @Sendable () -> Bool) {
        self.check = check
        self.cacheSeconds = cacheSeconds
        self.waitSeconds = waitSeconds
        self.now = now
    }

    /// How many checks were started so far.
    var checksStarted: Int {
        cond.lock()
        defer { cond.unlock() }
        return started
    }

    /// The cached answer when fresh, else the answer of a check that finishes within
    /// `waitSeconds`, else false.
    func isReady() -> Bool {
        cond.lock()
        defer { cond.unlock() }
        if let last, now() - last.at < cacheSeconds { return last.ok }
        if !running {
            running = true
            started += 1
            Thread.detachNewThread { [self] in
                let ok = check()
                cond.lock()
                last = (ok, now())
                running = false
                cond.broadcast()
                cond.unlock()
            }
        }
        let deadline = Date(timeIntervalSinceNow: waitSeconds)
        while running {
            if !cond.wait(until: deadline) { break }
        }
        guard !running, let last else { return false }
        return last.ok
    }
}

/// `SELECT 1` on a connection of its own (opened on demand, reopened after a failure), so that
/// slow API requests on the API's connection do not make the worker look unready.
final class DatabaseReadinessCheck: @unchecked Sendable {
    let databaseURL: String?
    private let lock = NSLock()
    private var connection: PGConnection?

    init(databaseURL: String?) {
        self.databaseURL = databaseURL
    }

    /// True when the database answered; false without a URL or on any database error.
    func callAsFunction() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard let url = databaseURL else { return false }
        do {
            if connection == nil {
                connection = try PGConnection(url: url, applicationName: "transcode-worker-readiness",
                                              statementTimeoutSeconds: 2, connectTimeoutSeconds: 2)
            }
            _ = try connection!.query("SELECT 1")
            return true
        } catch {
            connection?.close()
            connection = nil
            return false
        }
    }

    /// Closes the connection.
    func close() {
        lock.lock()
        connection?.close()
        connection = nil
        lock.unlock()
    }
}
