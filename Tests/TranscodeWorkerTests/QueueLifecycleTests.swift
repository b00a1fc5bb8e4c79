import Foundation
import Testing
@testable import TranscodeWorker
@testable import JSONCore
@testable import ObjectStorage
@testable import PGQueue
@testable import WorkerHTTP
@testable import WorkerRuntime

/// The life of one version through the queue SQL (`QueueStore`, `transcode_finalize`,
/// `transcode_cancel`, the NOTIFY trigger), checked on the rows of a real Postgres. Every test
/// gets a fresh database.
@Suite("Queue lifecycle on real Postgres", .enabled(if: postgresConfigured))
struct QueueLifecycleTests {

    // MARK: Enqueue and wake-ups

    @Test func enqueueAnswersByStateAndWakesWorkers() throws {
        let db = try TestDatabase()
        defer { db.drop() }
        let c = try db.connect()
        let store = QueueStore(connection: c)
        let wake = try QueueListener(db, channel: SchemaCatalog.queuedChannel)
        let room = QueueKit.newID()

        // An upload in progress wakes nobody.
        let v = try QueueKit.insert(c, room: room, status: "uploading")
        // The column default stamped the upload's start; the queue wait must start at enqueue.
        try c.query("UPDATE room_versions SET enqueued_at = now() - interval '1 hour' WHERE id = $1::uuid", [v])
        #expect(try wake.collect(for: 0.3).isEmpty)

        #expect(try store.enqueue(versionId: v) == .queued(attempt: 0))
        var r = try QueueKit.row(c, v)
        #expect(r["status"] == "queued")
        #expect(r["lease_id"] == nil)
        #expect(try QueueKit.value(c, "SELECT enqueued_at > now() - interval '1 minute' FROM room_versions WHERE id = $1::uuid", [v]) == "t")
        #expect(try QueueKit.value(c, "SELECT run_after <= now() FROM room_versions WHERE id = $1::uuid", [v]) == "t")
        let afterEnqueue = try wake.wait { $0.contains { $0.payload == v } }
        #expect(afterEnqueue.map(\.payload) == [v])
        #expect(afterEnqueue.allSatisfy { $0.channel == SchemaCatalog.queuedChannel })

        // Running: deduplicated, nothing changes.
        let job = try #require(try store.claim(workerId: "w-enqueue", leaseSeconds: 30))
        #expect(job.versionId == v)
        #expect(try store.enqueue(versionId: v) == .deduplicated(status: "transcoding"))
        r = try QueueKit.row(c, v)
        #expect(r["status"] == "transcoding")
        #expect(r["lease_id"] == job.leaseId)
        #expect(try wake.collect(for: 0.3).isEmpty, "a claim or a deduplicated enqueue must not wake workers")

        // A release (graceful shutdown) announces the version again.
        #expect(try store.release(job))
        let afterRelease = try wake.wait { $0.contains { $0.payload == v } }
        #expect(afterRelease.map(\.payload) == [v])

        // Ready and failed versions are not queued again by an enqueue.
        let again = try #require(try store.claim(workerId: "w-enqueue", leaseSeconds: 30))
        let done = try store.finalize(versionId: v, leaseId: again.leaseId, status: "ready", outputs: QueueKit.outputs(again))
        #expect(done.ok)
        #expect(try store.enqueue(versionId: v) == .invalidState(status: "ready"))
        #expect(try QueueKit.row(c, v)["status"] == "ready")

        let f = try QueueKit.insert(c, room: room, status: "uploading")
        #expect(try store.cancel(versionId: f).status == "failed")
        #expect(try store.enqueue(versionId: f) == .invalidState(status: "failed"))
        #expect(try QueueKit.row(c, f)["status"] == "failed")

        // Unknown and malformed ids.
        #expect(try store.enqueue(versionId: QueueKit.newID()) == .notFound)
        #expect(try store.enqueue(versionId: UUID().uuidString) == .notFound)
        #expect(try store.enqueue(versionId: "not-a-uuid") == .notFound)
        #expect(try store.enqueue(versionId: "") == .notFound)
        #expect(try store.enqueue(versionId: "'; DROP TABLE room_versions; --") == .notFound)

        // A version inserted already queued (the backend's insert, `submit`) announces itself.
        _ = try wake.collect(for: 0.2)
        let s = QueueKit.newID()
        try store.submit(versionId: s, roomId: room, roomName: "r", usdzKey: "src/a.usdz", jsonKey: "src/a.json")
        let afterInsert = try wake.wait { $0.contains { $0.payload == s } }
        #expect(afterInsert.map(\.payload) == [s])

        // A version scheduled for later announces nothing (the poll picks it up when due).
        _ = try QueueKit.insert(c, room: room, runAfterSeconds: 3600)
        #expect(try wake.collect(for: 0.3).isEmpty)
        wake.close()
    }

    /// Regression: the enqueue UPDATE used to match `status = 'queued'` too, so a repeated
    /// upload-complete call answered `.queued`, reset `run_after` to now() (moving the version
    /// behind everything enqueued since, and cutting a backoff short) and sent another NOTIFY.
    @Test func enqueueOfAQueuedVersionIsDeduplicatedAndKeepsItsPlace() throws {
        let db = try TestDatabase()
        defer { db.drop() }
        let c = try db.connect()
        let store = QueueStore(connection: c)
        let room = QueueKit.newID()
        let v = try QueueKit.insert(c, room: room, status: "uploading")
        #expect(try store.enqueue(versionId: v) == .queued(attempt: 0))
        // Its place in line: queued a minute ago.
        try c.query("UPDATE room_versions SET run_after = now() - interval '1 minute' WHERE id = $1::uuid", [v])
        let before = try QueueKit.row(c, v)
        let wake = try QueueListener(db, channel: SchemaCatalog.queuedChannel)

        #expect(try store.enqueue(versionId: v) == .deduplicated(status: "queued"))
        let after = try QueueKit.row(c, v)
        #expect(after["run_after"] == before["run_after"], "a repeated enqueue must not move the version to the back")
        #expect(after["enqueued_at"] == before["enqueued_at"])
        #expect(try wake.collect(for: 0.3).isEmpty, "nothing changed, so nobody needs waking")

        // Nor may it cut a backoff short (here the rescuer's, after a worker died).
        _ = try #require(try store.claim(workerId: "w", leaseSeconds: 30))
        try QueueKit.expireLease(c, v)
        #expect(try store.rescueExpired(baseDelaySeconds: 600) == [v])
        let backoff = try QueueKit.row(c, v)["run_after"]
        #expect(try store.enqueue(versionId: v) == .deduplicated(status: "queued"))
        #expect(try QueueKit.row(c, v)["run_after"] == backoff)
        #expect(try store.claim(workerId: "w", leaseSeconds: 30) == nil)
        wake.close()
    }

    // MARK: Heartbeat

    @Test func heartbeatExtendsTheLeaseRecordsThePhaseAndReportsCancelAndLoss() throws {
        let db = try TestDatabase()
        defer { db.drop() }
        let c = try db.connect()
        let store = QueueStore(connection: c)
        let room = QueueKit.newID()
        let v = try QueueKit.insert(c, room: room)
        let job = try #require(try store.claim(workerId: "w-hb", leaseSeconds: 30))
        #expect(job.versionId == v)
        #expect(try QueueKit.row(c, v)["transcode_phase"] == "parsing")

        // Nearly expired: the heartbeat must push the expiry out by the new lease length.
        try c.query("""
            UPDATE room_versions SET lease_expires_at = now() + interval '1 second',
                   heartbeat_at = now() - interval '10 seconds' WHERE id = $1::uuid
            """, [v])
        #expect(try store.heartbeat(job, leaseSeconds: 120, phase: "layering") == .alive(cancelRequested: false))
        let remaining = try #require(Double(try QueueKit.value(c, "SELECT extract(epoch FROM lease_expires_at - now()) FROM room_versions WHERE id = $1::uuid", [v]) ?? ""))
        #expect(remaining > 110 && remaining <= 121)
        #expect(try QueueKit.value(c, "SELECT heartbeat_at > now() - interval '5 seconds' FROM room_versions WHERE id = $1::uuid", [v]) == "t")
        #expect(try QueueKit.row(c, v)["transcode_phase"] == "layering")
        // Without a phase the last one stays.
        #expect(try store.heartbeat(job, leaseSeconds: 120) == .alive(cancelRequested: false))
        #expect(try QueueKit.row(c, v)["transcode_phase"] == "layering")
        #expect(try store.heartbeat(job, leaseSeconds: 120, phase: "uploading_outputs") == .alive(cancelRequested: false))
        var r = try QueueKit.row(c, v)
        #expect(r["transcode_phase"] == "uploading_outputs")
        #expect(r["status"] == "transcoding")
        #expect(r["lease_id"] == job.leaseId)
        #expect(r["attempt"] == "1")

        // An operator cancels: the row keeps running until the worker sees the flag.
        let cancel = try store.cancel(versionId: v)
        #expect(cancel.ok && cancel.running && cancel.status == "transcoding")
        #expect(try store.heartbeat(job, leaseSeconds: 120) == .alive(cancelRequested: true))
        r = try QueueKit.row(c, v)
        #expect(r["status"] == "transcoding")
        #expect(r["cancel_requested_at"] != nil)

        // Another version: its worker stalls, the rescuer re-queues it, another worker claims it.
        let w = try QueueKit.insert(c, room: room)
        let stale = try #require(try store.claim(workerId: "w-old", leaseSeconds: 30))
        #expect(stale.versionId == w)
        try QueueKit.expireLease(c, w)
        #expect(try store.rescueExpired(baseDelaySeconds: 0) == [w])
        #expect(try store.heartbeat(stale, leaseSeconds: 30, phase: "preview") == .leaseLost)
        let fresh = try #require(try store.claim(workerId: "w-new", leaseSeconds: 30))
        #expect(fresh.versionId == w)
        #expect(fresh.leaseId != stale.leaseId)
        let expiryBefore = try QueueKit.row(c, w)["lease_expires_at"]
        #expect(try store.heartbeat(stale, leaseSeconds: 600, phase: "preview") == .leaseLost)
        r = try QueueKit.row(c, w)
        #expect(r["lease_id"] == fresh.leaseId)
        #expect(r["locked_by"] == "w-new")
        #expect(r["lease_expires_at"] == expiryBefore, "a stale heartbeat must not extend the new lease")
        #expect(r["transcode_phase"] == "parsing")
        #expect(try store.heartbeat(fresh, leaseSeconds: 30) == .alive(cancelRequested: false))
    }

    // MARK: Retries

    /// Regression: `retryLater` passes untyped text parameters, and one of them also goes into
    /// `jsonb_build_object` (`VARIADIC "any"`); without `::text` casts Postgres refused the whole
    /// statement with `could not determine data type of parameter $3` (SQLSTATE 42P08).
    @Test func retriesBackOffThenTheLastAttemptFailsWithAnEvent() throws {
        let db = try TestDatabase()
        defer { db.drop() }
        let c = try db.connect()
        let store = QueueStore(connection: c)
        let events = try QueueListener(db, channel: SchemaCatalog.eventsChannel)
        let room = QueueKit.newID()
        let v = try QueueKit.insert(c, room: room, maxAttempts: 3)
        let base = 2.0

        for attempt in 1...2 {
            let job = try #require(try store.claim(workerId: "w-retry", leaseSeconds: 30))
            #expect(job.versionId == v)
            #expect(job.attempt == attempt)
            #expect(job.maxAttempts == 3)
            #expect(try store.retryLater(job, code: "STORAGE_UNAVAILABLE", message: "storage answered 503 (\(attempt))",
                                         baseDelaySeconds: base, maxDelaySeconds: 600) != nil)
            let r = try QueueKit.row(c, v)
            #expect(r["status"] == "queued")
            #expect(r["lease_id"] == nil && r["locked_by"] == nil && r["lease_expires_at"] == nil)
            #expect(r["transcode_phase"] == nil)
            #expect(r["attempt"] == String(attempt))
            #expect(r["last_error_code"] == "STORAGE_UNAVAILABLE")
            // run_after and updated_at come from the same now(): the difference is the delay.
            let delay = try #require(Double(try QueueKit.value(c, "SELECT extract(epoch FROM run_after - updated_at) FROM room_versions WHERE id = $1::uuid", [v]) ?? ""))
            let nominal = base * pow(3, Double(attempt - 1))
            #expect(delay >= nominal * 0.9 - 0.001 && delay <= nominal * 1.1 + 0.001, "attempt \(attempt): delay \(delay) s, nominal \(nominal) s")
            // Backing off: not claimable yet.
            #expect(try store.claim(workerId: "w-retry", leaseSeconds: 30) == nil)
            try c.query("UPDATE room_versions SET run_after = now() WHERE id = $1::uuid", [v])
        }

        let last = try #require(try store.claim(workerId: "w-retry", leaseSeconds: 30))
        #expect(last.attempt == 3)
        #expect(try store.retryLater(last, code: "STORAGE_UNAVAILABLE", message: "storage answered 503 (3)",
                                     baseDelaySeconds: base) == nil)
        // Attempts used up: the lease is still this worker's, so it can finalize.
        var r = try QueueKit.row(c, v)
        #expect(r["status"] == "transcoding")
        #expect(r["lease_id"] == last.leaseId)
        let failed = try store.finalize(versionId: v, leaseId: last.leaseId, status: "failed",
                                        error: QueueKit.failure("STORAGE_UNAVAILABLE", "storage answered 503 (3)", retryable: true))
        #expect(failed.ok && failed.status == "failed" && !failed.idempotentReplay)
        r = try QueueKit.row(c, v)
        #expect(r["status"] == "failed")
        #expect(r["lease_id"] == nil)
        #expect(r["last_error_code"] == "STORAGE_UNAVAILABLE")
        #expect(r["last_error"] == "storage answered 503 (3)")
        let errors = QueueKit.array(r["errors"])
        #expect(errors.count == 3)
        #expect(errors.map { ($0["attempt"] as? NSNumber)?.intValue } == [1, 2, 3])
        #expect(errors.map { $0["code"] as? String } == Array(repeating: "STORAGE_UNAVAILABLE", count: 3))
        #expect(errors.map { $0["message"] as? String } == (1...3).map { "storage answered 503 (\($0))" })
        #expect(errors.allSatisfy { ($0["worker"] as? String) == "w-retry" })
        #expect(errors.last?["final"] as? Bool == true)
        #expect(errors.dropLast().allSatisfy { $0["final"] == nil })

        let got = try events.wait { QueueKit.events($0, for: v).contains { $0.event == "failed" } }
        let mine = QueueKit.events(got, for: v)
        #expect(mine.map(\.event) == ["failed"], "retries send no event; the final failure sends one")
        let e = try #require(mine.first)
        #expect(e.topic == "room:\(room)")
        #expect(e.payload["schema"] as? String == "transcode-failed/v1")
        #expect(e.payload["version_id"] as? String == v)
        #expect(e.payload["room_id"] as? String == room)
        #expect((e.payload["attempt"] as? NSNumber)?.intValue == 3)
        #expect(e.payload["at"] is String)
        // As the app reads it: `error` is the string code, the reason and flags beside it.
        #expect(e.payload["error"] as? String == "ROOM_TRANSCODE_FAILED")
        #expect(e.payload["reason"] as? String == "STORAGE_UNAVAILABLE")
        #expect(e.payload["retryable"] as? Bool == true)
        #expect((e.payload["failure_count"] as? NSNumber)?.intValue == 1)
        #expect(e.payload["status"] as? String == "failed")
        let later = try events.collect(for: 0.3)
        #expect(QueueKit.events(later, for: v).isEmpty, "no second event")
        #expect(try store.claim(workerId: "w-retry", leaseSeconds: 30) == nil)
        events.close()
    }

    @Test func backoffIsCappedAndTheWorkerLimitEndsRetriesEarly() throws {
        let db = try TestDatabase()
        defer { db.drop() }
        let c = try db.connect()
        let store = QueueStore(connection: c)
        let v = try QueueKit.insert(c, room: QueueKit.newID(), maxAttempts: 5)

        let first = try #require(try store.claim(workerId: "w", leaseSeconds: 30))
        #expect(try store.retryLater(first, code: "TIMEOUT", message: "t", baseDelaySeconds: 0) != nil)
        // A zero base retries at once.
        let second = try #require(try store.claim(workerId: "w", leaseSeconds: 30))
        #expect(second.attempt == 2)
        // base·3 = 30 s, capped at 4 s (±10 %).
        #expect(try store.retryLater(second, code: "TIMEOUT", message: "t", baseDelaySeconds: 10, maxDelaySeconds: 4) != nil)
        let delay = try #require(Double(try QueueKit.value(c, "SELECT extract(epoch FROM run_after - updated_at) FROM room_versions WHERE id = $1::uuid", [v]) ?? ""))
        #expect(delay >= 3.6 - 0.001 && delay <= 4.4 + 0.001)
        try c.query("UPDATE room_versions SET run_after = now() WHERE id = $1::uuid", [v])

        // The worker allows 3 attempts although the row allows 5.
        let third = try #require(try store.claim(workerId: "w", leaseSeconds: 30))
        #expect(third.attempt == 3)
        #expect(try store.retryLater(third, code: "TIMEOUT", message: "t", maxAttempts: 3) == nil)
        let r = try QueueKit.row(c, v)
        #expect(r["lease_id"] == third.leaseId)
        #expect(r["status"] == "transcoding")
        #expect(QueueKit.array(r["errors"]).count == 2)
        // A stale lease cannot retry.
        #expect(try store.retryLater(second, code: "TIMEOUT", message: "t") == nil)
        #expect(try QueueKit.row(c, v)["lease_id"] == third.leaseId)
    }

    // MARK: Rescuer

    @Test func rescuerRequeuesExpiredLeasesThenTakesOverExhaustedOnes() throws {
        let db = try TestDatabase()
        defer { db.drop() }
        let c = try db.connect()
        let store = QueueStore(connection: c)
        let events = try QueueListener(db, channel: SchemaCatalog.eventsChannel)
        let room = QueueKit.newID()
        let v = try QueueKit.insert(c, room: room, maxAttempts: 3)
        // A healthy lease on another version is never touched.
        let healthyId = try QueueKit.insert(c, room: room, priority: 5)

        var job = try #require(try store.claim(workerId: "w-dead-1", leaseSeconds: 30))
        #expect(job.versionId == v)
        let healthy = try #require(try store.claim(workerId: "w-healthy", leaseSeconds: 300))
        #expect(healthy.versionId == healthyId)
        #expect(try store.rescueExpired().isEmpty, "nothing has expired yet")

        for attempt in 1...2 {
            try QueueKit.expireLease(c, v)
            #expect(try store.takeOverExhausted(workerId: "rescuer").isEmpty, "attempts are left")
            #expect(try store.rescueExpired(baseDelaySeconds: 5, maxDelaySeconds: 600) == [v])
            let r = try QueueKit.row(c, v)
            #expect(r["status"] == "queued")
            #expect(r["lease_id"] == nil && r["locked_by"] == nil && r["lease_expires_at"] == nil && r["heartbeat_at"] == nil)
            #expect(r["attempt"] == String(attempt))
            #expect(r["last_error_code"] == "LEASE_EXPIRED")
            #expect(r["last_error"]?.contains("w-dead-\(attempt)") == true)
            let errors = QueueKit.array(r["errors"])
            #expect(errors.count == attempt)
            #expect(errors.last?["code"] as? String == "LEASE_EXPIRED")
            #expect((errors.last?["attempt"] as? NSNumber)?.intValue == attempt)
            #expect(errors.last?["worker"] as? String == "w-dead-\(attempt)")
            // The one retry policy (QueueStore.backoffSQL): 5·3^(attempt−1) s × U(0.9, 1.1).
            let delay = try #require(Double(try QueueKit.value(c, "SELECT extract(epoch FROM run_after - updated_at) FROM room_versions WHERE id = $1::uuid", [v]) ?? ""))
            let base = 5 * pow(3, Double(attempt - 1))
            #expect(delay >= base * 0.9 - 0.01 && delay <= base * 1.1 + 0.01, "delay \(delay) s for base \(base) s")
            #expect(try store.heartbeat(job, leaseSeconds: 30) == .leaseLost)
            #expect(try store.claim(workerId: "w-dead-\(attempt + 1)", leaseSeconds: 30) == nil, "backing off")
            try c.query("UPDATE room_versions SET run_after = now() WHERE id = $1::uuid", [v])
            job = try #require(try store.claim(workerId: "w-dead-\(attempt + 1)", leaseSeconds: 30))
            #expect(job.attempt == attempt + 1)
        }

        // The third worker dies too: no attempts left, so the rescuer takes the lease over.
        let oldLease = job.leaseId
        try QueueKit.expireLease(c, v)
        #expect(try store.rescueExpired().isEmpty)
        let taken = try store.takeOverExhausted(workerId: "rescuer")
        #expect(taken.count == 1)
        let t = try #require(taken.first)
        #expect(t.versionId == v && t.roomId == room && t.attempt == 3 && t.status == "transcoding")
        #expect(t.leaseId != oldLease)
        var r = try QueueKit.row(c, v)
        #expect(r["lease_id"] == t.leaseId)
        #expect(r["locked_by"] == "rescuer")
        let remaining = try #require(Double(try QueueKit.value(c, "SELECT extract(epoch FROM lease_expires_at - now()) FROM room_versions WHERE id = $1::uuid", [v]) ?? ""))
        #expect(remaining > 100 && remaining <= 121)
        // A second sweep finds nothing (the takeover lease is fresh).
        #expect(try store.takeOverExhausted(workerId: "rescuer-2").isEmpty)
        #expect(try store.heartbeat(job, leaseSeconds: 30) == .leaseLost)

        let out = try store.finalize(versionId: v, leaseId: t.leaseId, status: "failed",
                                     error: QueueKit.failure("LEASE_EXPIRED", "the worker stopped heartbeating", retryable: true))
        #expect(out.ok && out.status == "failed")
        r = try QueueKit.row(c, v)
        #expect(r["status"] == "failed")
        #expect(r["last_error_code"] == "LEASE_EXPIRED")
        #expect(r["lease_id"] == nil)
        let errors = QueueKit.array(r["errors"])
        #expect(errors.count == 3)
        #expect(errors.last?["final"] as? Bool == true)
        #expect(errors.last?["worker"] as? String == "rescuer")

        // The dead worker comes back and reports: too late either way.
        let lateFailed = try store.finalize(versionId: v, leaseId: oldLease, status: "failed",
                                           error: QueueKit.failure("PARSE_FAILED", "late"))
        #expect(!lateFailed.ok && lateFailed.error == "LEASE_LOST")
        let lateReady = try store.finalize(versionId: v, leaseId: oldLease, status: "ready", outputs: QueueKit.outputs(job))
        #expect(!lateReady.ok && lateReady.error == "LEASE_LOST")
        r = try QueueKit.row(c, v)
        #expect(r["status"] == "failed" && r["glb_path"] == nil && r["last_error_code"] == "LEASE_EXPIRED")

        let got = try events.wait { QueueKit.events($0, for: v).contains { $0.event == "failed" } }
        let mine = QueueKit.events(got, for: v)
        #expect(mine.map(\.event) == ["failed"])
        #expect(mine.first?.payload["reason"] as? String == "LEASE_EXPIRED")

        // The healthy lease was left alone throughout.
        let h = try QueueKit.row(c, healthyId)
        #expect(h["lease_id"] == healthy.leaseId && h["status"] == "transcoding" && h["last_error_code"] == nil)
        #expect(try store.heartbeat(healthy, leaseSeconds: 30) == .alive(cancelRequested: false))
        events.close()
    }

    /// Regression (transcode_finalize, failed replay): the rescuer's `LEASE_EXPIRED` entry carries
    /// the old lease id too, so matching the last `errors` entry by lease alone told a rescued
    /// worker `ok, idempotent_replay` (status queued) instead of `LEASE_LOST`. Only a final entry
    /// may count as a replay.
    @Test func staleWorkerReportingFailureAfterARescueGetsLeaseLost() throws {
        let db = try TestDatabase()
        defer { db.drop() }
        let c = try db.connect()
        let store = QueueStore(connection: c)
        let v = try QueueKit.insert(c, room: QueueKit.newID(), maxAttempts: 3)
        let job = try #require(try store.claim(workerId: "w-stalled", leaseSeconds: 30))
        try QueueKit.expireLease(c, v)
        #expect(try store.rescueExpired(baseDelaySeconds: 0) == [v])

        let out = try store.finalize(versionId: v, leaseId: job.leaseId, status: "failed",
                                     error: QueueKit.failure("PARSE_FAILED", "gave up"))
        #expect(!out.ok)
        #expect(out.error == "LEASE_LOST")
        #expect(!out.idempotentReplay)
        let r = try QueueKit.row(c, v)
        #expect(r["status"] == "queued")
        #expect(r["last_error_code"] == "LEASE_EXPIRED")
    }

    // MARK: Release

    @Test func releaseGivesTheAttemptBack() throws {
        let db = try TestDatabase()
        defer { db.drop() }
        let c = try db.connect()
        let store = QueueStore(connection: c)
        let v = try QueueKit.insert(c, room: QueueKit.newID(), maxAttempts: 5)

        // A first attempt that died (rescued at once), so the release has an attempt to give back.
        let first = try #require(try store.claim(workerId: "w-a", leaseSeconds: 30))
        #expect(first.attempt == 1)
        try QueueKit.expireLease(c, v)
        #expect(try store.rescueExpired(baseDelaySeconds: 0) == [v])
        let second = try #require(try store.claim(workerId: "w-b", leaseSeconds: 30))
        #expect(second.attempt == 2)
        #expect(try store.heartbeat(second, leaseSeconds: 30, phase: "preview") == .alive(cancelRequested: false))
        // Make run_after clearly old so "now" is visible.
        try c.query("UPDATE room_versions SET run_after = now() - interval '1 hour' WHERE id = $1::uuid", [v])

        #expect(try store.release(second))
        let r = try QueueKit.row(c, v)
        #expect(r["status"] == "queued")
        #expect(r["attempt"] == "1", "the interrupted attempt does not count")
        #expect(r["lease_id"] == nil && r["locked_by"] == nil && r["locked_at"] == nil)
        #expect(r["lease_expires_at"] == nil && r["heartbeat_at"] == nil && r["transcode_phase"] == nil)
        #expect(try QueueKit.value(c, "SELECT run_after BETWEEN now() - interval '1 minute' AND now() FROM room_versions WHERE id = $1::uuid", [v]) == "t")
        let errors = QueueKit.array(r["errors"])
        #expect(errors.map { $0["code"] as? String } == ["LEASE_EXPIRED", "WORKER_SHUTDOWN"])
        #expect(errors.last?["worker"] as? String == "w-b")
        // The release does not overwrite the last real error.
        #expect(r["last_error_code"] == "LEASE_EXPIRED")

        // Released twice: the lease is already gone.
        #expect(try !store.release(second))
        #expect(try store.heartbeat(second, leaseSeconds: 30) == .leaseLost)
        // Claimable at once, with the same attempt number as the interrupted one.
        let third = try #require(try store.claim(workerId: "w-c", leaseSeconds: 30))
        #expect(third.versionId == v)
        #expect(third.attempt == 2)
    }

    // MARK: Finalize

    @Test func finalizeIsFencedIdempotentAndSendsOneEvent() throws {
        let db = try TestDatabase()
        defer { db.drop() }
        let c = try db.connect()
        let store = QueueStore(connection: c)
        let events = try QueueListener(db, channel: SchemaCatalog.eventsChannel)
        let room = QueueKit.newID()
        let v = try QueueKit.insert(c, room: room)

        let job = try #require(try store.claim(workerId: "w-fin", leaseSeconds: 30))
        #expect(job.outputRevision == 0)
        #expect(job.outputPrefix == "rooms/\(room)/versions/\(v)/r1-\(job.leaseId.prefix(8))/")
        let outputs = QueueKit.outputs(job, schema: 3)
        let glb = job.outputPrefix + "model.glb"

        #expect(try store.finalize(versionId: v, leaseId: job.leaseId, status: "done", outputs: outputs).error == "INVALID_STATUS")
        #expect(try store.finalize(versionId: QueueKit.newID(), leaseId: job.leaseId, status: "ready", outputs: outputs).error == "VERSION_NOT_FOUND")
        #expect(try QueueKit.row(c, v)["status"] == "transcoding")

        let done = try store.finalize(versionId: v, leaseId: job.leaseId, status: "ready", outputs: outputs)
        #expect(done.ok && done.status == "ready" && done.outputRevision == 1 && !done.idempotentReplay && done.error == nil)
        var r = try QueueKit.row(c, v)
        #expect(r["status"] == "ready")
        #expect(r["glb_path"] == glb)
        #expect(r["manifest_path"] == job.outputPrefix + "layer_manifest.json")
        #expect(r["thumbnail_path"] == job.outputPrefix + "thumb_256.webp")
        #expect(r["output_revision"] == "1")
        #expect(r["manifest_schema_version"] == "3")
        #expect(r["transcoded_at"] != nil)
        #expect(r["lease_id"] == nil && r["locked_by"] == nil && r["lease_expires_at"] == nil && r["transcode_phase"] == nil)
        let thumbs = QueueKit.array(r["thumbnail_paths"])
        #expect(thumbs.count == 1)

        // The same call again (the response was lost): 200, nothing changes, no second event.
        let replay = try store.finalize(versionId: v, leaseId: job.leaseId, status: "ready", outputs: outputs)
        #expect(replay.ok && replay.idempotentReplay && replay.status == "ready" && replay.outputRevision == 1)
        // A stale worker with its own outputs: refused.
        var staleOutputs = QueueKit.outputs(job)
        if case .object(var o) = staleOutputs {
            o["glb_path"] = .string("rooms/\(room)/versions/\(v)/r1-deadbeef/model.glb")
            staleOutputs = .object(o)
        }
        let stale = try store.finalize(versionId: v, leaseId: QueueKit.newID(), status: "ready", outputs: staleOutputs)
        #expect(!stale.ok && stale.error == "LEASE_LOST")
        let staleFailed = try store.finalize(versionId: v, leaseId: QueueKit.newID(), status: "failed",
                                             error: QueueKit.failure("PARSE_FAILED", "x"))
        #expect(!staleFailed.ok && staleFailed.error == "LEASE_LOST")
        r = try QueueKit.row(c, v)
        #expect(r["status"] == "ready" && r["glb_path"] == glb && r["output_revision"] == "1" && r["last_error_code"] == nil)

        let got = try events.wait { QueueKit.events($0, for: v).contains { $0.event == "ready" } }
        let later = try events.collect(for: 0.4)
        let all = QueueKit.events(got + later, for: v)
        #expect(all.map(\.event) == ["ready"], "exactly one event for one successful finalize")
        let e = try #require(all.first)
        #expect(e.topic == "room:\(room)")
        #expect(e.payload["schema"] as? String == "transcode-ready/v1")
        #expect(e.payload["version_id"] as? String == v)
        #expect(e.payload["room_id"] as? String == room)
        #expect(e.payload["glb_path"] == nil && e.payload["manifest_path"] == nil, "events carry no paths")
        #expect(e.payload["status"] as? String == "ready")
        #expect((e.payload["seq"] as? NSNumber)?.int64Value == job.eventSeq + 1, "the terminal event follows the attempt's block")
        #expect((e.payload["output_revision"] as? NSNumber)?.intValue == 1)
        #expect((e.payload["manifest_schema_version"] as? NSNumber)?.intValue == 3)
        #expect(e.payload["reprocess"] as? Bool == false)
        #expect(e.payload["thumbnails"] == nil)

        // Failed, then the failed call replayed.
        let w = try QueueKit.insert(c, room: room)
        let job2 = try #require(try store.claim(workerId: "w-fin", leaseSeconds: 30))
        #expect(job2.versionId == w)
        let err = QueueKit.failure("PARSE_FAILED", "not a USDZ package", phase: "parsing")
        let failed = try store.finalize(versionId: w, leaseId: job2.leaseId, status: "failed", error: err)
        #expect(failed.ok && failed.status == "failed" && !failed.idempotentReplay)
        let failedAgain = try store.finalize(versionId: w, leaseId: job2.leaseId, status: "failed", error: err)
        #expect(failedAgain.ok && failedAgain.idempotentReplay && failedAgain.status == "failed")
        #expect(try store.finalize(versionId: w, leaseId: QueueKit.newID(), status: "failed", error: err).error == "LEASE_LOST")
        // A ready report for a version that failed: refused.
        #expect(try store.finalize(versionId: w, leaseId: job2.leaseId, status: "ready", outputs: QueueKit.outputs(job2)).error == "LEASE_LOST")
        let rw = try QueueKit.row(c, w)
        #expect(rw["status"] == "failed" && rw["last_error_code"] == "PARSE_FAILED" && rw["output_revision"] == "0")
        #expect(QueueKit.array(rw["errors"]).count == 1)
        #expect(QueueKit.array(rw["errors"]).first?["phase"] as? String == "parsing")
        let wEvents = QueueKit.events(try events.collect(for: 0.4), for: w)
        #expect(wEvents.map(\.event) == ["failed"])
        events.close()
    }

    // MARK: Reprocess

    @Test func reprocessKeepsTheVersionReadyUntilTheNewOutputsAreIn() throws {
        let db = try TestDatabase()
        defer { db.drop() }
        let c = try db.connect()
        let store = QueueStore(connection: c)
        let events = try QueueListener(db, channel: SchemaCatalog.eventsChannel)
        let room = QueueKit.newID()

        // Three versions made at manifest schema 1, one already at schema 2.
        var old: [String: (glb: String, manifest: String)] = [:]
        var atSchema1: [String] = []
        for _ in 0..<3 {
            let (id, job) = try QueueKit.makeReady(c, store, room: room, schema: 1)
            atSchema1.append(id)
            old[id] = (job.outputPrefix + "model.glb", job.outputPrefix + "layer_manifest.json")
        }
        let (current, _) = try QueueKit.makeReady(c, store, room: room, schema: 2)
        // Let the set-up's own `ready` events arrive, so that later counts are the reprocess's.
        _ = try events.wait { notes in (atSchema1 + [current]).allSatisfy { !QueueKit.events(notes, for: $0).isEmpty } }

        // Dry run: the list, and nothing changes.
        #expect(try store.markReprocess(belowSchema: 2, limit: 10, dryRun: true) == atSchema1.sorted())
        #expect(try QueueKit.value(c, "SELECT count(*) FROM room_versions WHERE reprocess_requested_at IS NOT NULL") == "0")
        #expect(try QueueKit.value(c, "SELECT count(*) FROM room_versions WHERE priority <> 0") == "0")
        #expect(try store.markReprocess(belowSchema: 2, limit: 2, dryRun: true).count == 2)

        // The limit is respected; later calls pick up the rest and skip what is already marked.
        let firstBatch = try store.markReprocess(belowSchema: 2, limit: 2)
        #expect(firstBatch.count == 2)
        #expect(Set(firstBatch).isSubset(of: Set(atSchema1)))
        let secondBatch = try store.markReprocess(belowSchema: 2, limit: 10)
        #expect(Set(firstBatch + secondBatch) == Set(atSchema1))
        #expect(secondBatch.count == 1)
        #expect(try store.markReprocess(belowSchema: 2, limit: 10).isEmpty)
        // The version already at schema 2 is only picked for a higher schema.
        #expect(try store.markReprocess(belowSchema: 3, limit: 10, dryRun: true) == [current])
        #expect(try store.markReprocess(versionId: atSchema1[0]) == false, "already marked")
        for id in atSchema1 {
            let r = try QueueKit.row(c, id)
            #expect(r["status"] == "ready" && r["glb_path"] == old[id]?.glb && r["reprocess_requested_at"] != nil)
            #expect(r["priority"] == "20" && r["attempt"] == "0")
        }
        #expect(try QueueKit.row(c, current)["reprocess_requested_at"] == nil)

        // Watch the marked rows from another connection for the rest of the test.
        let watcher = try ReadyWatcher(db, ids: atSchema1)
        defer { _ = watcher.stop() }

        // A fresh upload arriving after the marks still goes first.
        let fresh = try QueueKit.insert(c, room: room)
        let freshJob = try #require(try store.claim(workerId: "w-re", leaseSeconds: 30))
        #expect(freshJob.versionId == fresh)
        #expect(!freshJob.isReprocess && freshJob.status == "transcoding")
        #expect(try store.finalize(versionId: fresh, leaseId: freshJob.leaseId, status: "ready", outputs: QueueKit.outputs(freshJob)).ok)

        // Reprocess 1: succeeds, the paths and revision swap in one step.
        let j1 = try #require(try store.claim(workerId: "w-re", leaseSeconds: 30))
        #expect(Set(atSchema1).contains(j1.versionId))
        #expect(j1.isReprocess && j1.status == "ready" && j1.attempt == 1 && j1.outputRevision == 1)
        #expect(j1.outputPrefix.contains("/r2-"))
        let o1 = try #require(old[j1.versionId])
        var seen = try QueueKit.row(watcher.connection, j1.versionId)
        #expect(seen["status"] == "ready" && seen["glb_path"] == o1.glb && seen["lease_id"] == j1.leaseId)
        #expect(try store.heartbeat(j1, leaseSeconds: 30, phase: "layering") == .alive(cancelRequested: false))
        seen = try QueueKit.row(watcher.connection, j1.versionId)
        #expect(seen["status"] == "ready" && seen["glb_path"] == o1.glb && seen["manifest_path"] == o1.manifest)
        let done = try store.finalize(versionId: j1.versionId, leaseId: j1.leaseId, status: "ready", outputs: QueueKit.outputs(j1, schema: 2))
        #expect(done.ok && done.status == "ready" && done.outputRevision == 2)
        seen = try QueueKit.row(watcher.connection, j1.versionId)
        #expect(seen["status"] == "ready")
        #expect(seen["glb_path"] == j1.outputPrefix + "model.glb")
        #expect(seen["manifest_path"] == j1.outputPrefix + "layer_manifest.json")
        #expect(seen["output_revision"] == "2" && seen["manifest_schema_version"] == "2")
        #expect(seen["reprocess_requested_at"] == nil && seen["lease_id"] == nil)

        // Reprocess 2: fails; the version stays ready on its old outputs.
        let j2 = try #require(try store.claim(workerId: "w-re", leaseSeconds: 30))
        #expect(j2.isReprocess && j2.status == "ready")
        let o2 = try #require(old[j2.versionId])
        let failed = try store.finalize(versionId: j2.versionId, leaseId: j2.leaseId, status: "failed",
                                        error: QueueKit.failure("PARSE_FAILED", "new parser rejects it"))
        #expect(failed.ok && failed.status == "ready" && failed.outputRevision == 1)
        let r2 = try QueueKit.row(c, j2.versionId)
        #expect(r2["status"] == "ready" && r2["glb_path"] == o2.glb && r2["manifest_path"] == o2.manifest)
        #expect(r2["output_revision"] == "1" && r2["manifest_schema_version"] == "1")
        #expect(r2["reprocess_requested_at"] == nil && r2["lease_id"] == nil)
        #expect(r2["last_error_code"] == "PARSE_FAILED")
        // Its failure is not retried as a reprocess, and the failed replay is idempotent.
        #expect(try store.finalize(versionId: j2.versionId, leaseId: j2.leaseId, status: "failed",
                                   error: QueueKit.failure("PARSE_FAILED", "new parser rejects it")).idempotentReplay)

        // Reprocess 3: given back on shutdown, stays ready and claimable, then succeeds.
        let j3 = try #require(try store.claim(workerId: "w-re", leaseSeconds: 30))
        #expect(j3.isReprocess)
        #expect(try store.release(j3))
        let r3 = try QueueKit.row(c, j3.versionId)
        #expect(r3["status"] == "ready" && r3["reprocess_requested_at"] != nil && r3["attempt"] == "0")
        let j3b = try #require(try store.claim(workerId: "w-re", leaseSeconds: 30))
        #expect(j3b.versionId == j3.versionId && j3b.isReprocess && j3b.attempt == 1)
        #expect(try store.finalize(versionId: j3b.versionId, leaseId: j3b.leaseId, status: "ready",
                                   outputs: QueueKit.outputs(j3b, schema: 2)).ok)
        #expect(try store.claim(workerId: "w-re", leaseSeconds: 30) == nil)
        #expect(try store.isIdle())

        let polls = watcher.stop()
        #expect(polls > 0)
        #expect(watcher.anomalies.isEmpty, "a reprocessed version was seen not ready: \(watcher.anomalies.prefix(5))")

        let got = try events.wait(timeout: 5) { all in
            QueueKit.events(all, for: j1.versionId).count >= 1 && QueueKit.events(all, for: j2.versionId).count >= 1
                && QueueKit.events(all, for: j3.versionId).count >= 1
        }
        let e1 = QueueKit.events(got, for: j1.versionId)
        #expect(e1.map(\.event) == ["ready"])
        #expect(e1.first?.payload["reprocess"] as? Bool == true)
        #expect((e1.first?.payload["output_revision"] as? NSNumber)?.intValue == 2)
        #expect(e1.first?.payload["glb_path"] == nil, "events carry no paths: clients read them from the row")
        let e2 = QueueKit.events(got, for: j2.versionId)
        #expect(e2.map(\.event) == ["reprocess_failed"], "a failed reprocess must not tell clients the room failed")
        #expect(e2.first?.payload["schema"] as? String == "transcode-failed/v1")
        #expect(QueueKit.events(got, for: j3.versionId).map(\.event) == ["ready"])
        events.close()
    }

    // MARK: Cancel

    @Test func cancelFailsQueuedFlagsRunningAndWithdrawsReprocess() throws {
        let db = try TestDatabase()
        defer { db.drop() }
        let c = try db.connect()
        let store = QueueStore(connection: c)
        let events = try QueueListener(db, channel: SchemaCatalog.eventsChannel)
        let room = QueueKit.newID()

        // Ready with a pending reprocess (made first, so later claims are deterministic).
        let (rp, rpJob) = try QueueKit.makeReady(c, store, room: room, schema: 1)
        #expect(try store.markReprocess(versionId: rp))
        let rpCancel = try store.cancel(versionId: rp)
        #expect(rpCancel.ok && !rpCancel.running && rpCancel.status == "ready")
        var r = try QueueKit.row(c, rp)
        #expect(r["status"] == "ready" && r["reprocess_requested_at"] == nil)
        #expect(r["glb_path"] == rpJob.outputPrefix + "model.glb" && r["output_revision"] == "1")
        #expect(try store.claim(workerId: "w", leaseSeconds: 30) == nil, "the withdrawn reprocess is not claimable")
        let rpAgain = try store.cancel(versionId: rp)
        #expect(!rpAgain.ok && rpAgain.error == "INVALID_STATE" && rpAgain.status == "ready")

        // Queued: failed at once with reason CANCELLED.
        let q = try QueueKit.insert(c, room: room)
        let qc = try store.cancel(versionId: q)
        #expect(qc.ok && !qc.running && qc.status == "failed")
        r = try QueueKit.row(c, q)
        #expect(r["status"] == "failed" && r["last_error_code"] == "CANCELLED" && r["lease_id"] == nil)
        #expect(QueueKit.array(r["errors"]).last?["code"] as? String == "CANCELLED")
        #expect(try store.claim(workerId: "w", leaseSeconds: 30) == nil)
        let qAgain = try store.cancel(versionId: q)
        #expect(!qAgain.ok && qAgain.error == "INVALID_STATE" && qAgain.status == "failed")

        // Queued but backing off after a failed attempt (its worker died): also failed at once.
        let b = try QueueKit.insert(c, room: room)
        let bj = try #require(try store.claim(workerId: "w", leaseSeconds: 30))
        #expect(bj.versionId == b)
        try QueueKit.expireLease(c, b)
        #expect(try store.rescueExpired(baseDelaySeconds: 600) == [b])
        #expect(try store.cancel(versionId: b).status == "failed")
        #expect(try QueueKit.row(c, b)["status"] == "failed")

        // Still uploading: failed too.
        let u = try QueueKit.insert(c, room: room, status: "uploading")
        #expect(try store.cancel(versionId: u).status == "failed")

        // Running: only flagged; the worker stops at its next heartbeat and reports CANCELLED.
        let run = try QueueKit.insert(c, room: room)
        let job = try #require(try store.claim(workerId: "w", leaseSeconds: 30))
        #expect(job.versionId == run)
        let rc = try store.cancel(versionId: run)
        #expect(rc.ok && rc.running && rc.status == "transcoding")
        r = try QueueKit.row(c, run)
        #expect(r["status"] == "transcoding" && r["cancel_requested_at"] != nil && r["lease_id"] == job.leaseId)
        #expect(try store.cancel(versionId: run).running, "cancelling twice is harmless")
        #expect(try store.heartbeat(job, leaseSeconds: 30) == .alive(cancelRequested: true))
        let out = try store.finalize(versionId: run, leaseId: job.leaseId, status: "failed",
                                     error: QueueKit.failure("CANCELLED", "cancelled by an operator"))
        #expect(out.ok && out.status == "failed")
        r = try QueueKit.row(c, run)
        #expect(r["status"] == "failed" && r["last_error_code"] == "CANCELLED" && r["cancel_requested_at"] == nil)

        // Unknown and malformed ids.
        #expect(try store.cancel(versionId: QueueKit.newID()).error == "VERSION_NOT_FOUND")
        #expect(try store.cancel(versionId: "42").error == "VERSION_NOT_FOUND")

        let got = try events.wait { all in [q, b, u, run].allSatisfy { !QueueKit.events(all, for: $0).isEmpty } }
        for id in [q, b, u, run] {
            let mine = QueueKit.events(got, for: id)
            #expect(mine.map(\.event) == ["failed"], "version \(id)")
            #expect(mine.first?.payload["error"] as? String == "ROOM_TRANSCODE_FAILED")
            #expect(mine.first?.payload["reason"] as? String == "CANCELLED")
            #expect(mine.first?.payload["retryable"] as? Bool == false)
            #expect((mine.first?.payload["failure_count"] as? NSNumber)?.intValue == 1)
            #expect(mine.first?.payload["schema"] as? String == "transcode-failed/v1")
        }
        let tail = try events.collect(for: 0.3)
        #expect(QueueKit.events(got + tail, for: rp).filter { $0.event != "ready" }.isEmpty,
                "withdrawing a reprocess sends no failure")
        events.close()
    }

    /// Regression: the claim used to clear `cancel_requested_at`, so when a cancelled version's
    /// worker died before its next heartbeat, the rescuer re-queued it and the next claim wiped
    /// the request: the version was transcoded although an operator had cancelled it.
    @Test func cancelOfARunningVersionSurvivesItsWorkerDying() throws {
        let db = try TestDatabase()
        defer { db.drop() }
        let c = try db.connect()
        let store = QueueStore(connection: c)
        let v = try QueueKit.insert(c, room: QueueKit.newID(), maxAttempts: 5)
        _ = try #require(try store.claim(workerId: "w-doomed", leaseSeconds: 30))
        #expect(try store.cancel(versionId: v).running)
        try QueueKit.expireLease(c, v)
        #expect(try store.rescueExpired(baseDelaySeconds: 0) == [v])

        let r = try QueueKit.row(c, v)
        if r["status"] == "failed" {
            #expect(r["last_error_code"] == "CANCELLED")
        } else {
            let next = try #require(try store.claim(workerId: "w-next", leaseSeconds: 30))
            #expect(next.versionId == v)
            #expect(try store.heartbeat(next, leaseSeconds: 30) == .alive(cancelRequested: true),
                    "the operator's cancel was lost when the version was claimed again")
        }
    }

    // MARK: Operator retry

    @Test func retryFailedVersionsOneOrAllWithFilters() throws {
        let db = try TestDatabase()
        defer { db.drop() }
        let c = try db.connect()
        let store = QueueStore(connection: c)
        let roomA = QueueKit.newID(), roomB = QueueKit.newID()

        let (readyA, _) = try QueueKit.makeReady(c, store, room: roomA, schema: 1)
        // a1: failed by its worker; a2, aOld, b1: cancelled while queued.
        let a1 = try QueueKit.insert(c, room: roomA, maxAttempts: 2)
        let j = try #require(try store.claim(workerId: "w", leaseSeconds: 30))
        #expect(j.versionId == a1)
        try QueueKit.expireLease(c, a1)
        #expect(try store.rescueExpired(baseDelaySeconds: 0) == [a1])
        let j2 = try #require(try store.claim(workerId: "w", leaseSeconds: 30))
        #expect(try store.finalize(versionId: a1, leaseId: j2.leaseId, status: "failed", error: QueueKit.failure("TIMEOUT", "t")).ok)
        let a2 = try QueueKit.insert(c, room: roomA)
        let aOld = try QueueKit.insert(c, room: roomA)
        let b1 = try QueueKit.insert(c, room: roomB)
        for id in [a2, aOld, b1] { #expect(try store.cancel(versionId: id).status == "failed") }
        try c.query("UPDATE room_versions SET updated_at = now() - interval '2 days' WHERE id = $1::uuid", [aOld])
        let waitingA = try QueueKit.insert(c, room: roomA, runAfterSeconds: 3600)
        let since = try #require(try QueueKit.value(c, "SELECT (now() - interval '1 day')::text"))

        // One at a time: only failed versions.
        #expect(try !store.retryFailed(versionId: readyA))
        #expect(try !store.retryFailed(versionId: waitingA))
        #expect(try !store.retryFailed(versionId: QueueKit.newID()))
        #expect(try !store.retryFailed(versionId: "bogus"))

        // Dry run: the list only.
        #expect(try store.retryAllFailed(since: since, roomId: nil, dryRun: true) == [a1, a2, b1].sorted())
        #expect(try store.retryAllFailed(since: nil, roomId: nil, dryRun: true) == [a1, a2, aOld, b1].sorted())
        #expect(try store.retryAllFailed(since: nil, roomId: roomB, dryRun: true) == [b1])
        #expect(try QueueKit.value(c, "SELECT count(*) FROM room_versions WHERE status = 'failed'") == "4")

        // By room.
        #expect(try store.retryAllFailed(since: nil, roomId: roomB) == [b1])
        var r = try QueueKit.row(c, b1)
        #expect(r["status"] == "queued" && r["priority"] == "10" && r["attempt"] == "0" && r["last_error_code"] == nil)
        #expect(try QueueKit.value(c, "SELECT enqueued_at > now() - interval '1 minute' AND run_after <= now() FROM room_versions WHERE id = $1::uuid", [b1]) == "t")

        // One.
        #expect(try store.retryFailed(versionId: a1))
        r = try QueueKit.row(c, a1)
        #expect(r["status"] == "queued" && r["priority"] == "10" && r["attempt"] == "0")
        #expect(r["last_error_code"] == nil && r["last_error"] == nil)
        #expect(QueueKit.array(r["errors"]).count == 2, "the history is kept")
        #expect(try !store.retryFailed(versionId: a1), "already queued")

        // Since a day ago, room A: a2 only (aOld is older, a1 is no longer failed).
        #expect(try store.retryAllFailed(since: since, roomId: roomA) == [a2])
        #expect(try QueueKit.row(c, aOld)["status"] == "failed")
        #expect(try store.retryAllFailed(since: nil, roomId: nil, dryRun: true) == [aOld])
        #expect(try QueueKit.row(c, readyA)["status"] == "ready")

        // Retried versions run after fresh uploads (priority 10 > 0), and with fresh attempts.
        let fresh = try QueueKit.insert(c, room: roomB)
        let firstClaim = try #require(try store.claim(workerId: "w", leaseSeconds: 30))
        #expect(firstClaim.versionId == fresh)
        var retried: Set<String> = []
        while let next = try store.claim(workerId: "w", leaseSeconds: 30) {
            #expect(next.attempt == 1)
            retried.insert(next.versionId)
        }
        #expect(retried == [a1, a2, b1])
    }

    // MARK: Status

    @Test func statusCountsWaitingInFlightAgeAndFailures() throws {
        let db = try TestDatabase()
        defer { db.drop() }
        let c = try db.connect()
        let store = QueueStore(connection: c)
        let room = QueueKit.newID()

        let empty = try store.status()
        #expect(empty.counts.isEmpty && empty.waiting == 0 && empty.inFlight == 0 && empty.oldestQueuedSeconds == nil)
        #expect(empty.recentFailures.isEmpty && empty.leases.isEmpty)

        _ = try QueueKit.makeReady(c, store, room: room, schema: 1)
        let (r2, _) = try QueueKit.makeReady(c, store, room: room, schema: 1)
        #expect(try store.markReprocess(versionId: r2))
        for _ in 0..<2 { _ = try QueueKit.makeFailed(c, store, room: room, reason: "PARSE_FAILED") }
        let old = try QueueKit.makeFailed(c, store, room: room, reason: "PARSE_FAILED")
        try c.query("UPDATE room_versions SET updated_at = now() - interval '48 hours' WHERE id = $1::uuid", [old])
        let cancelled = try QueueKit.insert(c, room: room)
        #expect(try store.cancel(versionId: cancelled).ok)
        let t1 = try QueueKit.insert(c, room: room)
        #expect(try store.claim(workerId: "w-a", leaseSeconds: 60)?.versionId == t1)
        let t2 = try QueueKit.insert(c, room: room)
        #expect(try store.claim(workerId: "w-b", leaseSeconds: 60)?.versionId == t2)
        try QueueKit.expireLease(c, t2)
        _ = try QueueKit.insert(c, room: room, status: "uploading")
        let q1 = try QueueKit.insert(c, room: room)
        try c.query("UPDATE room_versions SET enqueued_at = now() - interval '120 seconds' WHERE id = $1::uuid", [q1])
        _ = try QueueKit.insert(c, room: room)
        let q3 = try QueueKit.insert(c, room: room, runAfterSeconds: 600)
        try c.query("UPDATE room_versions SET last_error_code = 'STORAGE_UNAVAILABLE', attempt = 1 WHERE id = $1::uuid", [q3])

        let s = try store.status()
        #expect(s.counts == ["uploading": 1, "queued": 3, "transcoding": 2, "ready": 2, "failed": 4])
        #expect(s.waiting == 4, "three queued (one backing off) and one reprocess")
        #expect(s.reprocessWaiting == 1)
        #expect(s.inFlight == 2)
        #expect(s.expiredLeases == 1)
        let oldest = try #require(s.oldestQueuedSeconds)
        #expect(oldest >= 119 && oldest < 180)
        #expect(Set(s.leases.map(\.worker)) == ["w-a", "w-b"])
        #expect(Set(s.leases.map(\.versionId)) == [t1, t2])
        let expired = try #require(s.leases.first { $0.versionId == t2 })
        #expect(expired.leaseRemainingSeconds < 0)
        let live = try #require(s.leases.first { $0.versionId == t1 })
        #expect(live.leaseRemainingSeconds > 30 && live.attempt == 1 && live.phase == "parsing" && live.roomId == room)
        #expect(s.failureWindowHours == 24)
        #expect(s.recentFailures.map(\.reason) == ["PARSE_FAILED", "CANCELLED", "STORAGE_UNAVAILABLE"])
        #expect(s.recentFailures.map(\.count) == [2, 1, 1])
        #expect(s.recentFailures.allSatisfy { !$0.lastAt.isEmpty })

        let wide = try store.status(failureWindowHours: 72)
        #expect(wide.recentFailures.first?.reason == "PARSE_FAILED" && wide.recentFailures.first?.count == 3)
        #expect(wide.failureWindowHours == 72)
        #expect(try !store.isIdle())
    }
}

// MARK: - Helpers shared by the queue suites

/// Row set-up and inspection for the queue tests. Everything is plain SQL on the test database.
enum QueueKit {
    static func newID() -> String { UUID().uuidString.lowercased() }

    /// Inserts a room (when new) and one version with any status and schedule; returns its id.
    @discardableResult
    static func insert(_ c: PGConnection, room: String, status: String = "queued", priority: Int = 0,
                       maxAttempts: Int = 5, runAfterSeconds: Double = 0) throws -> String {
        let id = newID()
        try c.query("INSERT INTO rooms (id, name) VALUES ($1::uuid, 'queue test') ON CONFLICT (id) DO NOTHING", [room])
        try c.query("""
            INSERT INTO room_versions (id, room_id, status, source_usdz_path, source_json_path, priority, max_attempts, run_after)
            VALUES ($1::uuid, $2::uuid, $3::room_version_status, $4, $5, $6::smallint, $7::smallint,
                    now() + make_interval(secs => $8::double precision))
            """, [id, room, status, "sources/\(id).usdz", "sources/\(id).json", String(priority), String(maxAttempts),
                  String(runAfterSeconds)])
        return id
    }

    /// Inserts a version, claims it and finalizes it `ready` at manifest `schema`.
    static func makeReady(_ c: PGConnection, _ store: QueueStore, room: String, schema: Int) throws -> (String, ClaimedJob) {
        let id = try insert(c, room: room)
        let job = try #require(try store.claim(workerId: "w-setup", leaseSeconds: 60))
        #expect(job.versionId == id)
        let out = try store.finalize(versionId: id, leaseId: job.leaseId, status: "ready", outputs: outputs(job, schema: schema))
        #expect(out.ok)
        return (id, job)
    }

    /// Inserts a version, claims it and finalizes it `failed` with `reason`.
    static func makeFailed(_ c: PGConnection, _ store: QueueStore, room: String, reason: String) throws -> String {
        let id = try insert(c, room: room)
        let job = try #require(try store.claim(workerId: "w-setup", leaseSeconds: 60))
        #expect(job.versionId == id)
        #expect(try store.finalize(versionId: id, leaseId: job.leaseId, status: "failed", error: failure(reason, "setup")).ok)
        return id
    }

    /// Pretends the lease holder stopped heartbeating a while ago.
    static func expireLease(_ c: PGConnection, _ id: String) throws {
        try c.query("""
            UPDATE room_versions SET lease_expires_at = now() - interval '1 second',
                   heartbeat_at = now() - interval '2 minutes' WHERE id = $1::uuid AND lease_id IS NOT NULL
            """, [id])
    }

    static func outputs(_ job: ClaimedJob, schema: Int = 1) -> JSONValue {
        .object([
            "glb_path": .string(job.outputPrefix + "model.glb"),
            "manifest_path": .string(job.outputPrefix + "layer_manifest.json"),
            "thumbnail_path": .string(job.outputPrefix + "thumb_256.webp"),
            "thumbnails": .array([.object(["path": .string(job.outputPrefix + "thumb_256.webp"), "size": .int(256)])]),
            "manifest_schema_version": .int(Int64(schema)),
        ])
    }

    static func failure(_ reason: String, _ message: String, phase: String? = nil, retryable: Bool = false) -> JSONValue {
        var o: [String: JSONValue] = ["reason": .string(reason), "message": .string(message), "retryable": .bool(retryable)]
        if let phase { o["phase"] = .string(phase) }
        return .object(o)
    }

    static func row(_ c: PGConnection, _ id: String) throws -> PGRow {
        try #require(try QueueStore(connection: c).show(versionId: id))
    }

    /// The first column of the first row.
    static func value(_ c: PGConnection, _ sql: String, _ params: [String?] = []) throws -> String? {
        try c.query(sql, params).first?.values.first ?? nil
    }

    static func array(_ text: String?) -> [[String: Any]] {
        guard let text, let data = text.data(using: .utf8),
              let a = try? JSONSerialization.jsonObject(with: data) as? [[String: Any]] else { return [] }
        return a
    }

    struct Event {
        var topic: String
        var event: String
        var payload: [String: Any]
    }

    /// The events (from `transcode_events`) about one version, in arrival order.
    static func events(_ notes: [PGNotification], for versionId: String) -> [Event] {
        notes.compactMap { n -> Event? in
            guard n.channel == SchemaCatalog.eventsChannel, let data = n.payload.data(using: .utf8),
                  let o = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                  let payload = o["payload"] as? [String: Any], payload["version_id"] as? String == versionId
            else { return nil }
            return Event(topic: o["topic"] as? String ?? "", event: o["event"] as? String ?? "", payload: payload)
        }
    }
}

/// A session that LISTENs on one channel and keeps what arrives.
final class QueueListener: @unchecked Sendable {
    let connection: PGConnection
    private var pending: [PGNotification] = []

    init(_ db: TestDatabase, channel: String) throws {
        connection = try db.connect()
        try connection.listen(channel)
    }

    /// Waits until `done` holds for what arrived since the last call (or `timeout` passes), and
    /// returns it all.
    func wait(timeout: Double = 5, until done: ([PGNotification]) -> Bool) throws -> [PGNotification] {
        let deadline = Date().addingTimeInterval(timeout)
        while !done(pending) {
            let left = deadline.timeIntervalSinceNow
            if left <= 0 { break }
            pending += try connection.waitForNotifications(timeout: min(left, 0.25))
        }
        defer { pending = [] }
        return pending
    }

    /// Everything that arrives in the next `seconds` (and was pending).
    func collect(for seconds: Double) throws -> [PGNotification] {
        try wait(timeout: seconds) { _ in false }
    }

    func close() { connection.close() }
}

/// Polls versions from its own connection until stopped and records every sighting of one that
/// is not `ready` with a published `glb_path` (what clients would see).
final class ReadyWatcher: @unchecked Sendable {
    let connection: PGConnection
    private let poller: PGConnection
    private let lock = NSLock()
    private var stopped = false
    private var joined = false
    private var samples = 0
    private var seen: [String] = []
    private let finished = DispatchSemaphore(value: 0)

    var anomalies: [String] {
        lock.lock()
        defer { lock.unlock() }
        return seen
    }

    init(_ db: TestDatabase, ids: [String]) throws {
        connection = try db.connect()
        poller = try db.connect()
        let list = "{" + ids.joined(separator: ",") + "}"
        let thread = Thread { [self] in
            while true {
                self.lock.lock()
                let stop = self.stopped
                self.lock.unlock()
                if stop { break }
                do {
                    let rows = try self.poller.query(
                        "SELECT id, status::text AS status, glb_path, manifest_path FROM room_versions WHERE id = ANY($1::uuid[])", [list])
                    self.lock.lock()
                    self.samples += 1
                    for r in rows where r["status"] != "ready" || r["glb_path"] == nil || r["manifest_path"] == nil {
                        self.seen.append("\(r["id"] ?? "?"): \(r["status"] ?? "nil") \(r["glb_path"] ?? "nil")")
                    }
                    self.lock.unlock()
                } catch {
                    self.lock.lock()
                    self.seen.append("query failed: \(error)")
                    self.stopped = true
                    self.lock.unlock()
                }
            }
            self.finished.signal()
        }
        thread.start()
    }

    /// Stops polling (idempotent); returns the number of polls made.
    func stop() -> Int {
        lock.lock()
        stopped = true
        let wait = !joined
        joined = true
        lock.unlock()
        if wait { finished.wait() }
        lock.lock()
        defer { lock.unlock() }
        return samples
    }
}
