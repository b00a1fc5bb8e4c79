import Foundation
import Testing
@testable import TranscodeWorker
@testable import PGQueue

/// The executor's side: the heartbeat that keeps a lease, and giving an attempt back.
extension QueueLifecycleTests {
    // MARK: Heartbeat

    @Test func heartbeatExtendsTheLeaseRecordsThePhaseAndReportsCancelAndLoss() throws {
        let (db, c, store) = try QueueKit.open()
        defer { db.drop() }
        let room = QueueKit.newID()
        let v = try QueueKit.insert(c, room: room)
        let job = try #require(try store.claim(workerId: "w-hb", leaseSeconds: 30))
        #expect(job.versionId == v)
        #expect(try QueueKit.row(c, v)["transcode_phase"] == "parsing")

        // Nearly expired: the heartbeat must push the expiry out by the new lease length.
        try c.query("""
            UPDATE transcode_private.room_versions SET lease_expires_at = now() + interval '1 second',
                   heartbeat_at = now() - interval '10 seconds' WHERE id = $1::uuid
            """, [v])
        #expect(try store.heartbeat(job, leaseSeconds: 120, phase: "layering") == .alive(cancelRequested: false))
        let remaining = try #require(Double(try QueueKit.value(c, "SELECT extract(epoch FROM lease_expires_at - now()) FROM transcode_private.room_versions WHERE id = $1::uuid", [v]) ?? ""))
        #expect(remaining > 110 && remaining <= 121)
        #expect(try QueueKit.value(c, "SELECT heartbeat_at > now() - interval '5 seconds' FROM transcode_private.room_versions WHERE id = $1::uuid", [v]) == "t")
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

    // MARK: Release

    @Test func releaseGivesTheAttemptBack() throws {
        let (db, c, store) = try QueueKit.open()
        defer { db.drop() }
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
        try c.query("UPDATE transcode_private.room_versions SET run_after = now() - interval '1 hour' WHERE id = $1::uuid", [v])

        #expect(try store.release(second))
        let r = try QueueKit.row(c, v)
        #expect(r["status"] == "queued")
        #expect(r["attempt"] == "1", "the interrupted attempt does not count")
        #expect(r["lease_id"] == nil && r["locked_by"] == nil && r["locked_at"] == nil)
        #expect(r["lease_expires_at"] == nil && r["heartbeat_at"] == nil && r["transcode_phase"] == nil)
        #expect(try QueueKit.value(c, "SELECT run_after BETWEEN now() - interval '1 minute' AND now() FROM transcode_private.room_versions WHERE id = $1::uuid", [v]) == "t")
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
}
