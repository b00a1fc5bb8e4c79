import Foundation
import Testing
@testable import TranscodeWorker
@testable import PGQueue

/// The rescuer's side: expired leases queued again, and stale workers fenced out.
extension QueueLifecycleTests {
    // MARK: Rescuer

    @Test func rescuerRequeuesExpiredLeasesThenTakesOverExhaustedOnes() throws {
        let (db, c, store) = try QueueKit.open()
        defer { db.drop() }
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
            let delay = try #require(Double(try QueueKit.value(c, "SELECT extract(epoch FROM run_after - updated_at) FROM transcode_private.room_versions WHERE id = $1::uuid", [v]) ?? ""))
            let base = 5 * pow(3, Double(attempt - 1))
            #expect(delay >= base * 0.9 - 0.01 && delay <= base * 1.1 + 0.01, "delay \(delay) s for base \(base) s")
            #expect(try store.heartbeat(job, leaseSeconds: 30) == .leaseLost)
            #expect(try store.claim(workerId: "w-dead-\(attempt + 1)", leaseSeconds: 30) == nil, "backing off")
            try c.query("UPDATE transcode_private.room_versions SET run_after = now() WHERE id = $1::uuid", [v])
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
        let remaining = try #require(Double(try QueueKit.value(c, "SELECT extract(epoch FROM lease_expires_at - now()) FROM transcode_private.room_versions WHERE id = $1::uuid", [v]) ?? ""))
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
        let (db, c, store) = try QueueKit.open()
        defer { db.drop() }
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
}
