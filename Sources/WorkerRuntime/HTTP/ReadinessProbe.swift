import Foundation
import PGQueue
import WorkerCore

/// The database check behind `/readyz`, cached so that probes cannot load the database: the check
/// runs at most once per `cacheSeconds` whatever the number of probes, never on the caller's
/// thread, and never twice at once (`SharedRefresh`).
///
/// A check that has not answered within `waitSeconds` counts as "not ready". So an outage is seen
/// within about `cacheSeconds` plus the check's own timeout, and a check that hangs holds a
/// caller for at most `waitSeconds`. Thread-safe.
final class ReadinessProbe: @unchecked Sendable {
    /// How long one answer is reused, seconds.
    static let defaultCacheSeconds = 1.0
    /// How long a caller waits for a running check, seconds.
    static let defaultWaitSeconds = 2.0

    private let refresh: SharedRefresh<Bool>

    /// - Parameters:
    ///   - check: true when the database answers; called on a background thread, one at a time.
    ///   - now: the clock, seconds (monotonic; tests pass their own).
    init(cacheSeconds: Double = ReadinessProbe.defaultCacheSeconds,
         waitSeconds: Double = ReadinessProbe.defaultWaitSeconds,
         now: @escaping @Sendable () -> Double = Clock.seconds,
         check: @escaping @Sendable () -> Bool) {
        refresh = SharedRefresh(intervalSeconds: cacheSeconds, waitSeconds: waitSeconds, now: now, compute: check)
    }

    /// How many checks were started so far.
    var checksStarted: Int { refresh.computationsStarted }

    /// The cached answer when fresh, else the answer of a check that finishes within
    /// `waitSeconds`, else false.
    func isReady() -> Bool { refresh.value() ?? false }
}

/// A database connection of its own for one background task (the readiness check, the metrics'
/// queue sample): opened on demand with a statement timeout, reopened after a failure, used by
/// one caller at a time, so that slow API requests on the API's connection never hold it up.
final class DedicatedConnection: @unchecked Sendable {
    let databaseURL: String?
    let applicationName: String
    let statementTimeoutSeconds: Int
    private let lock = NSLock()
    private var connection: PGConnection?

    init(databaseURL: String?, applicationName: String, statementTimeoutSeconds: Int) {
        self.databaseURL = databaseURL
        self.applicationName = applicationName
        self.statementTimeoutSeconds = statementTimeoutSeconds
    }

    /// Runs `body` on the connection. Throws `DB_CONNECT_FAILED` without a URL, or the database
    /// error (after which the connection is closed, to be reopened next time).
    func run<T>(_ body: (PGConnection) throws(DatabaseError) -> T) throws(DatabaseError) -> T {
        lock.lock()
        defer { lock.unlock() }
        guard let url = databaseURL else { throw DatabaseError(code: .connectFailed, message: "no database configured") }
        do {
            if connection == nil {
                connection = try PGConnection(url: url, applicationName: applicationName,
                                              statementTimeoutSeconds: statementTimeoutSeconds, connectTimeoutSeconds: 2)
            }
            return try body(connection!)
        } catch {
            connection?.close()
            connection = nil
            throw error
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

/// `SELECT 1` on a connection of its own, so that slow API requests on the API's connection do
/// not make the worker look unready.
final class DatabaseReadinessCheck: @unchecked Sendable {
    private let connection: DedicatedConnection

    init(databaseURL: String?) {
        connection = DedicatedConnection(databaseURL: databaseURL, applicationName: "transcode-worker-readiness",
                                         statementTimeoutSeconds: 2)
    }

    /// True when the database answered; false without a URL or on any database error.
    func callAsFunction() -> Bool {
        (try? connection.run { (c) throws(DatabaseError) in _ = try c.query("SELECT 1") }) != nil
    }

    /// Closes the connection.
    func close() { connection.close() }
}
