import Foundation

/// Idle sessions kept between jobs, so that a job does not make the server start two new backend
/// processes (its own session and its heartbeat's). A new session costs the server a process, an
/// authentication and cold catalog caches; on a batch of cheap re-transcodes that was a third of
/// all the CPU spent.
///
/// A session is handed out again only to a user asking for the same `application_name` and
/// `statement_timeout`, and only when `PGConnection.isReusable` (healthy, outside any
/// transaction, no `LISTEN`). The worker's own statements leave no other session state. Sessions
/// idle for longer than `maxIdleSeconds` are closed (`closeExpired`, and at every `take` and
/// `giveBack`), and at most `maxIdle` are kept, so an idle worker holds few connections.
///
/// Thread-safe. A session taken is its taker's alone until given back.
public final class PGConnectionPool: @unchecked Sendable {
    public let url: String
    /// The most idle sessions kept (all profiles together).
    public let maxIdle: Int
    /// How long an idle session is kept, seconds.
    public let maxIdleSeconds: Double

    private struct Idle {
        let connection: PGConnection
        let since: Double
    }
    private let lock = NSLock()
    private var idle: [Idle] = []
    private var openedCount = 0
    private var reusedCount = 0
    private var closed = false

    /// - Parameters:
    ///   - url: the database (never logged).
    ///   - maxIdle: idle sessions kept at most (0: none, every session is closed when given back).
    ///   - maxIdleSeconds: an idle session older than this is closed.
    public init(url: String, maxIdle: Int, maxIdleSeconds: Double = 30) {
        self.url = url
        self.maxIdle = max(0, maxIdle)
        self.maxIdleSeconds = max(0, maxIdleSeconds)
    }

    deinit { close() }

    /// An idle session of this profile that is still reusable, or a new one.
    ///
    /// - Throws: `DB_CONNECT_FAILED` (retryable) when a new session cannot be opened.
    public func take(applicationName: String, statementTimeoutSeconds: Int) throws(DatabaseError) -> PGConnection {
        let now = Self.now()
        var stale: [PGConnection] = []
        var found: PGConnection?
        lock.lock()
        stale = expireLocked(now: now)
        while let i = idle.lastIndex(where: { $0.connection.applicationName == applicationName
                                                && $0.connection.statementTimeoutSeconds == statementTimeoutSeconds }) {
            let candidate = idle.remove(at: i).connection
            if candidate.isReusable { found = candidate; reusedCount += 1; break }
            stale.append(candidate)
        }
        if found == nil { openedCount += 1 }
        lock.unlock()
        for c in stale { c.close() }
        if let found { return found }
        do {
            return try PGConnection(url: url, applicationName: applicationName, statementTimeoutSeconds: statementTimeoutSeconds)
        } catch {
            lock.lock()
            openedCount -= 1
            lock.unlock()
            throw error
        }
    }

    /// Returns a session taken from this pool: kept when reusable and there is room, else closed.
    public func giveBack(_ connection: PGConnection) {
        let keep = connection.isReusable
        let now = Self.now()
        lock.lock()
        var stale = expireLocked(now: now)
        if keep && !closed && idle.count < maxIdle {
            idle.append(Idle(connection: connection, since: now))
        } else {
            stale.append(connection)
        }
        lock.unlock()
        for c in stale { c.close() }
    }

    /// Closes the sessions idle for longer than `maxIdleSeconds`.
    public func closeExpired() {
        lock.lock()
        let stale = expireLocked(now: Self.now())
        lock.unlock()
        for c in stale { c.close() }
    }

    /// Closes every idle session; sessions given back afterwards are closed too.
    public func close() {
        lock.lock()
        closed = true
        let all = idle.map(\.connection)
        idle.removeAll()
        lock.unlock()
        for c in all { c.close() }
    }

    /// Idle sessions now.
    public var idleCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return idle.count
    }

    /// Sessions opened by `take` so far, and takes served by an idle session.
    public var counts: (opened: Int, reused: Int) {
        lock.lock()
        defer { lock.unlock() }
        return (openedCount, reusedCount)
    }

    private func expireLocked(now: Double) -> [PGConnection] {
        let limit = now - maxIdleSeconds
        let stale = idle.filter { $0.since < limit || closed }.map(\.connection)
        if !stale.isEmpty { idle.removeAll { $0.since < limit || closed } }
        return stale
    }

    private static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
