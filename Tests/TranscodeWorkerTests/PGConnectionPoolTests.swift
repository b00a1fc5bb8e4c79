import Foundation
import Testing
@testable import PGQueue
@testable import WorkerRuntime
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

@Suite("Session pool on real Postgres", .enabled(if: postgresConfigured))
struct PGConnectionPoolTests {
    static let name = "transcode-worker job"

    static func pid(_ c: PGConnection) throws -> String {
        try #require(try c.query("SELECT pg_backend_pid()::text AS pid").first?["pid"] ?? nil)
    }

    /// Whether the server still has a backend with this pid (polled: a closed session's backend
    /// ends shortly after the client hangs up).
    static func backendGone(_ pid: String, _ admin: PGConnection, within seconds: Double = 10) throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        repeat {
            let n = try admin.query("SELECT count(*)::text AS n FROM pg_stat_activity WHERE pid = $1::int", [pid]).first?["n"]
            if n == "0" { return true }
            usleep(20_000)
        } while Date() < deadline
        return false
    }

    /// Runs `body` with a fresh database, a connection to it for looking on, and a pool.
    static func withPool(maxIdle: Int = 4, _ body: (PGConnectionPool, PGConnection, TestDatabase) throws -> Void) throws {
        let db = try TestDatabase()
        defer { db.drop() }
        let admin = try db.connect()
        defer { admin.close() }
        let pool = PGConnectionPool(url: db.url, maxIdle: maxIdle)
        defer { pool.close() }
        try body(pool, admin, db)
    }

    @Test func anIdleSessionIsHandedOutAgain() throws {
        try Self.withPool { pool, admin, db in
            let first = try pool.take(applicationName: Self.name, statementTimeoutSeconds: 5)
            let pid = try Self.pid(first)
            pool.giveBack(first)
            #expect(pool.idleCount == 1)
            let again = try pool.take(applicationName: Self.name, statementTimeoutSeconds: 5)
            #expect(try Self.pid(again) == pid)
            #expect(pool.counts.opened == 1 && pool.counts.reused == 1)
            pool.giveBack(again)
        }
    }

    @Test func sessionsOfAnotherNameOrTimeoutAreNotShared() throws {
        try Self.withPool { pool, admin, db in
            let a = try pool.take(applicationName: "transcode-worker job", statementTimeoutSeconds: 5)
            let pidA = try Self.pid(a)
            pool.giveBack(a)
            let b = try pool.take(applicationName: "transcode-worker heartbeat", statementTimeoutSeconds: 5)
            #expect(try Self.pid(b) != pidA)
            #expect(try b.query("SELECT current_setting('application_name') AS v").first?["v"] == "transcode-worker heartbeat")
            let c = try pool.take(applicationName: "transcode-worker job", statementTimeoutSeconds: 7)
            #expect(try Self.pid(c) != pidA)
            #expect(try c.query("SELECT current_setting('statement_timeout') AS v").first?["v"] == "7s")
            #expect(pool.counts.opened == 3 && pool.counts.reused == 0)
            pool.giveBack(b)
            pool.giveBack(c)
            #expect(pool.idleCount == 3)
        }
    }

    @Test func aSessionLeftInsideATransactionIsClosedNotKept() throws {
        try Self.withPool { pool, admin, db in
            let c = try pool.take(applicationName: Self.name, statementTimeoutSeconds: 5)
            let pid = try Self.pid(c)
            try c.query("BEGIN")
            try c.query("CREATE TEMPORARY TABLE left_behind (x int)")
            pool.giveBack(c)
            #expect(pool.idleCount == 0)
            #expect(try Self.backendGone(pid, admin))
            let next = try pool.take(applicationName: Self.name, statementTimeoutSeconds: 5)
            #expect(try Self.pid(next) != pid)
            // A fresh session: nothing of the abandoned transaction is visible.
            #expect(try next.query("SELECT to_regclass('pg_temp.left_behind')::text AS t").first?["t"] == nil)
            pool.giveBack(next)
        }
    }

    @Test func aSessionTheServerEndedIsNotHandedOut() throws {
        try Self.withPool { pool, admin, db in
            let c = try pool.take(applicationName: Self.name, statementTimeoutSeconds: 5)
            let pid = try Self.pid(c)
            pool.giveBack(c)
            try admin.query("SELECT pg_terminate_backend($1::int)", [pid])
            #expect(try Self.backendGone(pid, admin))
            let next = try pool.take(applicationName: Self.name, statementTimeoutSeconds: 5)
            #expect(try Self.pid(next) != pid)
            #expect(try next.query("SELECT 1::text AS one").first?["one"] == "1")
            #expect(pool.counts.opened == 2 && pool.counts.reused == 0)
            pool.giveBack(next)
        }
    }

    @Test func aListeningSessionIsNotKept() throws {
        try Self.withPool { pool, admin, db in
            let c = try pool.take(applicationName: Self.name, statementTimeoutSeconds: 5)
            try c.listen("transcode_queued")
            pool.giveBack(c)
            #expect(pool.idleCount == 0)
        }
    }

    @Test func atMostMaxIdleAreKeptExpiredOnesAreClosedAndNoneAfterClose() throws {
        let db = try TestDatabase()
        defer { db.drop() }
        let admin = try db.connect()
        defer { admin.close() }
        let pool = PGConnectionPool(url: db.url, maxIdle: 2)
        let taken = try (0..<3).map { _ in try pool.take(applicationName: Self.name, statementTimeoutSeconds: 5) }
        for c in taken { pool.giveBack(c) }
        #expect(pool.idleCount == 2)
        pool.close()
        #expect(pool.idleCount == 0)
        let late = try PGConnection(url: db.url, applicationName: Self.name, statementTimeoutSeconds: 5)
        let latePid = try Self.pid(late)
        pool.giveBack(late)
        #expect(pool.idleCount == 0)
        #expect(try Self.backendGone(latePid, admin))

        let quick = PGConnectionPool(url: db.url, maxIdle: 2, maxIdleSeconds: 0)
        defer { quick.close() }
        let q = try quick.take(applicationName: Self.name, statementTimeoutSeconds: 5)
        let qPid = try Self.pid(q)
        quick.giveBack(q)
        usleep(2_000)
        quick.closeExpired()
        #expect(quick.idleCount == 0)
        #expect(try Self.backendGone(qPid, admin))
    }

    /// Two jobs in a row through one runner: the second reuses the first's sessions (its own and
    /// its heartbeat's) instead of opening two more.
    @Test func jobsInARowShareTheirSessions() throws {
        let f = try JobFixture()
        let pool = PGConnectionPool(url: f.db.url, maxIdle: 4)
        defer { pool.close() }
        let runner = JobRunner(config: f.config, storage: f.recorder,
                               logger: JSONLogger(workerId: f.config.workerId, minimum: .error, fd: TestOutput.logFD),
                               connections: pool)
        let first = try f.submitSample()
        var job = try f.claim()
        #expect(runner.run(job, control: JobControl()) == .ready(outputPrefix: job.outputPrefix))
        #expect(pool.counts.opened == 2)
        #expect(pool.idleCount == 2)
        let second = try f.submitSample()
        job = try f.claim()
        #expect(job.versionId == second)
        #expect(runner.run(job, control: JobControl()) == .ready(outputPrefix: job.outputPrefix))
        #expect(pool.counts.opened == 2)
        #expect(pool.counts.reused == 2)
        #expect(try f.row(first)["status"] == "ready")
        #expect(try f.row(second)["status"] == "ready")
    }
}
