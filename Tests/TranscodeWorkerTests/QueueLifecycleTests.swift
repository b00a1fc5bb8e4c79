import Foundation
import Testing
@testable import TranscodeWorker
@testable import PGQueue

/// The life of one version through the queue SQL (`QueueStore`, `transcode_finalize`,
/// `transcode_cancel`, the NOTIFY trigger), checked on the rows of a real Postgres. Every test
/// gets a fresh database.
@Suite("Queue lifecycle on real Postgres", .enabled(if: postgresConfigured))
struct QueueLifecycleTests {

    // MARK: Enqueue and wake-ups

    @Test func enqueueAnswersByStateAndWakesWorkers() throws {
        let (db, c, store) = try QueueKit.open()
        defer { db.drop() }
        let wake = try QueueListener(db, channel: SchemaCatalog.queuedChannel)
        let room = QueueKit.newID()

        // An upload in progress wakes nobody.
        let v = try QueueKit.insert(c, room: room, status: "uploading")
        // The column default stamped the upload's start; the queue wait must start at enqueue.
        try c.query("UPDATE transcode_private.room_versions SET enqueued_at = now() - interval '1 hour' WHERE id = $1::uuid", [v])
        #expect(try wake.collect(for: 0.3).isEmpty)

        #expect(try store.enqueue(versionId: v) == .queued(attempt: 0))
        var r = try QueueKit.row(c, v)
        #expect(r["status"] == "queued")
        #expect(r["lease_id"] == nil)
        #expect(try QueueKit.value(c, "SELECT enqueued_at > now() - interval '1 minute' FROM transcode_private.room_versions WHERE id = $1::uuid", [v]) == "t")
        #expect(try QueueKit.value(c, "SELECT run_after <= now() FROM transcode_private.room_versions WHERE id = $1::uuid", [v]) == "t")
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
        let (db, c, store) = try QueueKit.open()
        defer { db.drop() }
        let room = QueueKit.newID()
        let v = try QueueKit.insert(c, room: room, status: "uploading")
        #expect(try store.enqueue(versionId: v) == .queued(attempt: 0))
        // Its place in line: queued a minute ago.
        try c.query("UPDATE transcode_private.room_versions SET run_after = now() - interval '1 minute' WHERE id = $1::uuid", [v])
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
}
