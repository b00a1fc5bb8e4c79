import Foundation
import Testing
@testable import TranscodeWorker
@testable import PGQueue

/// The queue SQL under real contention: many sessions claiming, finalizing, rescuing, cancelling
/// and migrating at the same moment, each on its own connection (as separate worker processes
/// would be). Every test gets a fresh database.
@Suite("Queue concurrency on real Postgres", .enabled(if: postgresConfigured))
struct QueueConcurrencyTests {

    @Test func everyVersionIsClaimedExactlyOnceBySixteenWorkers() throws {
        let db = try TestDatabase()
        defer { db.drop() }
        let c = try db.connect()
        let room = QueueKit.newID()
        try c.query("INSERT INTO rooms (id, name) VALUES ($1::uuid, 'load')", [room])
        try c.query("""
            INSERT INTO transcode_private.room_versions (room_id, status, source_usdz_path, run_after)
            SELECT $1::uuid, 'queued', 'sources/' || g || '.usdz', now() - make_interval(secs => g)
              FROM generate_series(1, 200) g
            """, [room])
        // Scheduled for later (backoff): never claimed now.
        try c.query("""
            INSERT INTO transcode_private.room_versions (room_id, status, source_usdz_path, run_after)
            SELECT $1::uuid, 'queued', 'later/' || g || '.usdz', now() + interval '1 hour'
              FROM generate_series(1, 20) g
            """, [room])
        let future = Set(try c.query("SELECT id FROM transcode_private.room_versions WHERE run_after > now()").compactMap { $0["id"] })
        #expect(future.count == 20)

        let workers = 16
        let stores = try (0..<workers).map { _ in QueueStore(connection: try db.connect()) }
        let claims = Collected<(worker: Int, job: ClaimedJob)>()
        let failures = Collected<String>()
        let finished = ConcurrentRun.start(workers) { i in
            while true {
                do {
                    guard let job = try stores[i].claim(workerId: "w-\(i)", leaseSeconds: 300) else { return }
                    claims.append((i, job))
                } catch {
                    failures.append("worker \(i): \(error)")
                    return
                }
            }
        }
        #expect(finished, "the claimers did not finish in time")
        #expect(failures.items.isEmpty, "\(failures.items)")

        let all = claims.items
        #expect(all.count == 200)
        let ids = all.map(\.job.versionId)
        #expect(Set(ids).count == 200, "a version was claimed twice")
        #expect(Set(all.map(\.job.leaseId)).count == 200)
        #expect(Set(ids).isDisjoint(with: future), "a version scheduled for later was claimed")
        #expect(all.allSatisfy { $0.job.attempt == 1 && $0.job.status == "transcoding" && !$0.job.isReprocess })
        #expect(Set(all.map(\.worker)).count > 1, "the claims were not spread over several workers")

        // The rows agree with what each worker was told.
        var rows: [String: (lease: String?, worker: String?)] = [:]
        for r in try c.query("SELECT id, lease_id, locked_by FROM transcode_private.room_versions WHERE lease_id IS NOT NULL") {
            rows[r["id"] ?? ""] = (r["lease_id"], r["locked_by"])
        }
        #expect(rows.count == 200)
        for (worker, job) in all {
            #expect(rows[job.versionId]?.lease == job.leaseId)
            #expect(rows[job.versionId]?.worker == "w-\(worker)")
        }
        let summary = try #require(try c.query("""
            SELECT count(*) FILTER (WHERE status = 'transcoding') AS running,
                   count(DISTINCT lease_id) AS leases,
                   count(*) FILTER (WHERE status = 'queued' AND lease_id IS NULL AND attempt = 0 AND run_after > now()) AS later,
                   count(*) FILTER (WHERE lease_id IS NOT NULL AND lease_expires_at > now() + interval '200 seconds') AS fresh_leases
              FROM transcode_private.room_versions
            """).first)
        #expect(summary.int("running") == 200)
        #expect(summary.int("leases") == 200)
        #expect(summary.int("later") == 20)
        #expect(summary.int("fresh_leases") == 200)
        for s in stores { s.connection.close() }
    }

    @Test func claimsFollowPriorityThenFirstInFirstOut() throws {
        let (db, c, store) = try QueueKit.open()
        defer { db.drop() }
        let room = QueueKit.newID()

        // Inserted out of order: (priority, seconds since it became runnable).
        var expected: [(priority: Int, age: Double, id: String)] = []
        for age in [30.0, 10, 50, 20, 40] {
            for priority in [20, 0, 10] {
                let id = try QueueKit.insert(c, room: room, priority: priority, runAfterSeconds: -age - Double(priority) / 100)
                expected.append((priority, age + Double(priority) / 100, id))
            }
        }
        // Uploads arriving now, one after another, join the end of priority 0 in arrival order.
        var arrivals: [String] = []
        for _ in 0..<4 {
            let id = QueueKit.newID()
            try store.submit(versionId: id, roomId: room, roomName: nil, usdzKey: "sources/\(id).usdz", jsonKey: nil)
            arrivals.append(id)
            Thread.sleep(forTimeInterval: 0.002)
        }
        // Urgent but not due yet.
        let notYet = try QueueKit.insert(c, room: room, priority: 0, runAfterSeconds: 60)

        let older = expected.sorted { ($0.priority, -$0.age) < ($1.priority, -$1.age) }
        let want = older.filter { $0.priority == 0 }.map(\.id) + arrivals + older.filter { $0.priority != 0 }.map(\.id)
        var got: [String] = []
        while let job = try store.claim(workerId: "w", leaseSeconds: 30) { got.append(job.versionId) }
        #expect(got == want)
        #expect(!got.contains(notYet))
        #expect(try QueueKit.row(c, notYet)["status"] == "queued")
    }

    @Test func concurrentFinalizeOfOneLeaseSucceedsOnceAndSendsOneEvent() throws {
        let (db, c, store) = try QueueKit.open()
        defer { db.drop() }
        let events = try QueueListener(db, channel: SchemaCatalog.eventsChannel)
        let v = try QueueKit.insert(c, room: QueueKit.newID())
        let job = try #require(try store.claim(workerId: "w", leaseSeconds: 30))
        let outputs = QueueKit.outputs(job)

        let callers = 8
        let stores = try (0..<callers).map { _ in QueueStore(connection: try db.connect()) }
        let results = Collected<FinalizeOutcome>()
        let failures = Collected<String>()
        let finished = ConcurrentRun.start(callers) { i in
            do {
                results.append(try stores[i].finalize(versionId: v, leaseId: job.leaseId, status: "ready", outputs: outputs))
            } catch {
                failures.append("\(error)")
            }
        }
        #expect(finished)
        #expect(failures.items.isEmpty, "\(failures.items)")
        let out = results.items
        #expect(out.count == callers)
        #expect(out.allSatisfy { $0.ok && $0.status == "ready" && $0.outputRevision == 1 })
        #expect(out.filter { !$0.idempotentReplay }.count == 1, "exactly one call did the work")
        #expect(try QueueKit.row(c, v)["output_revision"] == "1")
        let first = try events.wait { !QueueKit.events($0, for: v).isEmpty }
        let later = try events.collect(for: 0.5)
        #expect(QueueKit.events(first + later, for: v).map(\.event) == ["ready"], "one event per successful finalize")
        events.close()
        for s in stores { s.connection.close() }
    }

    @Test func concurrentSweepsRescueOrTakeOverEachExpiredLeaseOnce() throws {
        let (db, c, store) = try QueueKit.open()
        defer { db.drop() }
        let room = QueueKit.newID()
        try c.query("INSERT INTO rooms (id, name) VALUES ($1::uuid, 'sweep')", [room])
        // 60 versions with attempts left, 20 on their last attempt.
        try c.query("""
            INSERT INTO transcode_private.room_versions (room_id, status, max_attempts)
            SELECT $1::uuid, 'queued', CASE WHEN g <= 60 THEN 5 ELSE 1 END FROM generate_series(1, 80) g
            """, [room])
        var claimed = 0
        while try store.claim(workerId: "w-dead", leaseSeconds: 30) != nil { claimed += 1 }
        #expect(claimed == 80)
        try c.query("UPDATE transcode_private.room_versions SET lease_expires_at = now() - interval '1 second'")

        let sweepers = 6
        let stores = try (0..<sweepers).map { _ in QueueStore(connection: try db.connect()) }
        let rescued = Collected<String>()
        let taken = Collected<ClaimedJob>()
        let failures = Collected<String>()
        let finished = ConcurrentRun.start(sweepers) { i in
            do {
                for _ in 0..<3 {
                    for id in try stores[i].rescueExpired(baseDelaySeconds: 0) { rescued.append(id) }
                    for job in try stores[i].takeOverExhausted(workerId: "rescuer-\(i)") { taken.append(job) }
                }
            } catch {
                failures.append("sweeper \(i): \(error)")
            }
        }
        #expect(finished)
        #expect(failures.items.isEmpty, "\(failures.items)")
        #expect(rescued.items.count == 60)
        #expect(Set(rescued.items).count == 60, "a version was rescued twice")
        #expect(taken.items.count == 20)
        #expect(Set(taken.items.map(\.versionId)).count == 20, "a version was taken over twice")
        #expect(Set(rescued.items).isDisjoint(with: Set(taken.items.map(\.versionId))))

        let summary = try #require(try c.query("""
            SELECT count(*) FILTER (WHERE status = 'queued' AND lease_id IS NULL
                                      AND jsonb_array_length(errors) = 1 AND errors -> 0 ->> 'code' = 'LEASE_EXPIRED') AS requeued,
                   count(*) FILTER (WHERE status = 'transcoding' AND locked_by LIKE 'rescuer-%'
                                      AND jsonb_array_length(errors) = 0 AND attempt = 1) AS taken_over
              FROM transcode_private.room_versions
            """).first)
        #expect(summary.int("requeued") == 60)
        #expect(summary.int("taken_over") == 20)
        for job in taken.items {
            let out = try store.finalize(versionId: job.versionId, leaseId: job.leaseId, status: "failed",
                                         error: QueueKit.failure("LEASE_EXPIRED", "the worker stopped heartbeating", retryable: true))
            #expect(out.ok && out.status == "failed")
        }
        #expect(try QueueKit.value(c, "SELECT count(*) FROM transcode_private.room_versions WHERE status = 'failed' AND last_error_code = 'LEASE_EXPIRED'") == "20")
        for s in stores { s.connection.close() }
    }

    @Test func cancelRacingClaimsNeverLosesOrDoublesAVersion() throws {
        let db = try TestDatabase()
        defer { db.drop() }
        let c = try db.connect()
        let room = QueueKit.newID()
        var ids: [String] = []
        for _ in 0..<80 { ids.append(try QueueKit.insert(c, room: room)) }
        let claimers = 4, cancellers = 2
        let stores = try (0..<(claimers + cancellers)).map { _ in QueueStore(connection: try db.connect()) }
        let claims = Collected<ClaimedJob>()
        let cancels = Collected<(id: String, outcome: CancelOutcome)>()
        let failures = Collected<String>()
        let order = ids
        let finished = ConcurrentRun.start(claimers + cancellers) { i in
            do {
                if i < claimers {
                    while let job = try stores[i].claim(workerId: "w-\(i)", leaseSeconds: 300) { claims.append(job) }
                } else {
                    // Both cancellers cancel every version, from opposite ends.
                    for id in (i == claimers ? order : Array(order.reversed())) {
                        cancels.append((id, try stores[i].cancel(versionId: id)))
                    }
                }
            } catch {
                failures.append("thread \(i): \(error)")
            }
        }
        #expect(finished)
        #expect(failures.items.isEmpty, "\(failures.items)")
        let claimed = Dictionary(claims.items.map { ($0.versionId, $0) }, uniquingKeysWith: { a, _ in a })
        #expect(claimed.count == claims.items.count, "a version was claimed twice")

        let rows = Dictionary(try c.query("""
            SELECT id, status::text AS status, lease_id, cancel_requested_at IS NOT NULL AS flagged, last_error_code,
                   jsonb_array_length(errors) AS n_errors
              FROM transcode_private.room_versions
            """).map { ($0["id"] ?? "", $0) }, uniquingKeysWith: { a, _ in a })
        for id in ids {
            let r = try #require(rows[id])
            let outcomes = cancels.items.filter { $0.id == id }.map(\.outcome)
            #expect(outcomes.count == 2)
            #expect(outcomes.allSatisfy { $0.ok || $0.error == "INVALID_STATE" })
            if let job = claimed[id] {
                // Claimed before any cancel failed it; the cancel that came later flagged it.
                #expect(r["status"] == "transcoding" && r["lease_id"] == job.leaseId && r.bool("flagged") == true, "\(id)")
                #expect(outcomes.allSatisfy { !($0.ok && !$0.running) }, "\(id) was both claimed and failed")
            } else {
                #expect(r["status"] == "failed" && r["lease_id"] == nil && r["last_error_code"] == "CANCELLED", "\(id)")
                #expect(r.int("n_errors") == 1, "\(id) was cancelled twice")
                #expect(outcomes.filter { $0.ok && !$0.running && $0.status == "failed" }.count == 1)
            }
        }
        for s in stores { s.connection.close() }
    }

    @Test func migrationsRacingOnAFreshDatabaseApplyOnce() throws {
        let db = try TestDatabase(migrate: false)
        defer { db.drop() }
        let replicas = 6
        let connections = try (0..<replicas).map { _ in try db.connect() }
        let applied = Collected<[Int]>()
        let failures = Collected<String>()
        let finished = ConcurrentRun.start(replicas) { i in
            do {
                let outcome = try Migrator.migrate(connections[i])
                applied.append(outcome.applied.map(\.version))
                if outcome.current != SchemaCatalog.migrations.map(\.version).max() {
                    failures.append("replica \(i): current \(outcome.current)")
                }
            } catch {
                failures.append("replica \(i): \(error)")
            }
        }
        #expect(finished)
        #expect(failures.items.isEmpty, "\(failures.items)")
        let versions = SchemaCatalog.migrations.map(\.version)
        #expect(applied.items.count == replicas)
        #expect(applied.items.flatMap { $0 }.sorted() == versions, "each migration applied by exactly one replica")
        let c = connections[0]
        #expect(try Migrator.appliedVersions(c) == versions)
        #expect(try QueueKit.value(c, "SELECT count(*) FROM transcode_schema_migrations") == String(versions.count))
        // The schema works.
        let store = QueueStore(connection: c)
        let v = try QueueKit.insert(c, room: QueueKit.newID())
        let job = try #require(try store.claim(workerId: "w", leaseSeconds: 30))
        #expect(job.versionId == v)
        #expect(try store.finalize(versionId: v, leaseId: job.leaseId, status: "ready", outputs: QueueKit.outputs(job)).ok)
        // The advisory lock was released by everyone: a later migrate returns at once.
        #expect(try Migrator.migrate(connections[replicas - 1]).applied.isEmpty)
        for conn in connections { conn.close() }
    }
}

/// Values gathered from several threads.
final class Collected<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [T] = []

    func append(_ v: T) {
        lock.lock()
        values.append(v)
        lock.unlock()
    }

    var items: [T] {
        lock.lock()
        defer { lock.unlock() }
        return values
    }
}

/// Starts `count` threads that begin `body` together (once all of them exist) and waits for all.
enum ConcurrentRun {
    /// Returns false when they did not finish within `timeout` seconds.
    static func start(_ count: Int, timeout: Double = 120, _ body: @escaping @Sendable (Int) -> Void) -> Bool {
        let ready = DispatchGroup()
        let done = DispatchGroup()
        let go = DispatchSemaphore(value: 0)
        for i in 0..<count {
            ready.enter()
            done.enter()
            let t = Thread {
                ready.leave()
                go.wait()
                body(i)
                done.leave()
            }
            t.start()
        }
        ready.wait()
        for _ in 0..<count { go.signal() }
        return done.wait(timeout: .now() + timeout) == .success
    }
}
