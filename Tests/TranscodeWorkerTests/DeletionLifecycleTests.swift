import Foundation
import Testing
import TestSupport
@testable import ObjectStorage
@testable import PGQueue
@testable import WorkerRuntime

/// Deleting a room or a version deletes every stored object of it, in the source bucket and in
/// the output bucket, through the durable queue the delete triggers write (migration 19): on real
/// Postgres, with file stores here and S3 buckets in `DeletionS3Tests`.
@Suite("Deletion leaves nothing (file storage, real Postgres)", .enabled(if: postgresConfigured), .serialized)
struct DeletionLifecycleTests {
    @Test func deletingARoomDeletesEveryStoredObjectInBothBuckets() throws {
        try Self.roomDeletion(try DeletionWorld())
    }

    @Test func aStorageOutageAndARestartMidDeletionLoseNothing() throws {
        try Self.outageAndRestart(try DeletionWorld(), outage: { OutageStore($0) })
    }

    @Test func deletingOneVersionLeavesTheRoomsOtherVersion() throws {
        let world = try DeletionWorld()
        let room = try world.room(versions: 2)
        // The room's current version (its card) is the one deleted.
        let (gone, kept) = (room.versions[1], room.versions[0])
        #expect(try world.objects(ofRoom: room.room) == 30)
        try world.connection.query("DELETE FROM transcode_private.room_versions WHERE id = $1::uuid", [gone])
        let queue = try world.queue()
        try #require(queue.count == 1)
        #expect(queue[0]["reason"] == "version_deleted" && queue[0]["version_id"] == gone)
        // The row named its sources, outputs, thumbnails and redacted texture, with both buckets.
        #expect(queue[0]["keys"]?.contains("redacted/textures/face.png") == true)
        #expect(queue[0]["keys"]?.contains("r2-bbbbbbbb/thumbs/hero.webp") == true)
        #expect(queue[0]["buckets"]?.contains(world.outputs.bucket) == true && queue[0]["buckets"]?.contains(world.sources.bucket) == true)

        let outcome = try world.sweep()
        #expect(outcome.finished == 1 && outcome.objects == 15 && outcome.failures == 0 && outcome.refusedKeys == 0)
        #expect(try world.objects(under: "rooms/\(room.room)/versions/\(gone)/") == 0)
        #expect(!world.folderLeft("rooms/\(room.room)/versions/\(gone)/") && world.folderLeft("rooms/\(room.room)/versions/\(kept)/"))
        #expect(try world.objects(under: "rooms/\(room.room)/versions/\(kept)/") == 15)
        #expect(try world.queue().isEmpty)
        let card = try world.connection.query("SELECT current_version_id::text AS v FROM rooms WHERE id = $1::uuid", [room.room]).first
        #expect(card?["v"] == nil, "the room no longer names the deleted version")
    }

    @Test func keysOutsideTheDeletedRowsPrefixesAreNeverDeleted() throws {
        let world = try DeletionWorld()
        let victim = try world.room()
        let attacker = try world.room()
        let victimKey = "rooms/\(victim.room)/versions/\(victim.versions[0])/source.usdz"
        // A row naming another room's objects (the backend's keys are not trusted).
        try world.connection.query("UPDATE transcode_private.room_versions SET source_usdz_path = $2 WHERE id = $1::uuid",
                                   [attacker.versions[0], victimKey])
        try world.connection.query("INSERT INTO redactions (room_version_id, texture_path, redacted_path) VALUES ($1::uuid, 'x.png', 'elsewhere/x.png')",
                                   [attacker.versions[0]])
        try world.sources.put("elsewhere/x.png", bytes: [1], contentType: "image/png")
        try world.connection.query("DELETE FROM rooms WHERE id = $1::uuid", [attacker.room])
        let outcome = try world.sweep()
        #expect(outcome.finished == 2 && outcome.refusedKeys == 2)
        #expect(try world.objects(ofRoom: attacker.room) == 0)
        #expect(try world.objects(ofRoom: victim.room) == 15)
        #expect(try world.sources.size("elsewhere/x.png") != nil)
    }

    @Test func aRowThatExistsAgainIsNotDeleted() throws {
        let world = try DeletionWorld()
        let room = try world.room()
        // A restore puts the rows back before the sweep runs.
        try world.connection.query("BEGIN")
        try world.connection.query("CREATE TEMP TABLE saved_room ON COMMIT DROP AS SELECT * FROM rooms WHERE id = $1::uuid", [room.room])
        try world.connection.query("CREATE TEMP TABLE saved_versions ON COMMIT DROP AS SELECT * FROM transcode_private.room_versions WHERE room_id = $1::uuid",
                                   [room.room])
        try world.connection.query("DELETE FROM rooms WHERE id = $1::uuid", [room.room])
        try world.connection.query("UPDATE saved_room SET current_version_id = NULL")
        try world.connection.query("INSERT INTO rooms SELECT * FROM saved_room")
        try world.connection.query("UPDATE saved_versions SET lease_id = NULL")
        try world.connection.query("INSERT INTO transcode_private.room_versions SELECT * FROM saved_versions")
        try world.connection.query("COMMIT")
        #expect(try world.queue().count == 2)
        let outcome = try world.sweep()
        #expect(outcome.skipped == 2 && outcome.finished == 0 && outcome.objects == 0)
        #expect(try world.objects(ofRoom: room.room) == 15)
        #expect(try world.queue().isEmpty)
    }

    /// `run` itself: a worker whose storage is down keeps the deletion queued; after its restart
    /// with storage back, the room's objects are gone within the bounded wait.
    @Test func theDaemonDeletesARoomsObjectsAndARestartedDaemonFinishesWhatAnOutageLeft() throws {
        let world = try DeletionWorld()
        let room = try world.room()
        var config = world.config
        config.pollSeconds = 0.2
        config.gcIntervalSeconds = 0
        config.deletion.retryBaseSeconds = 0.2
        config.deletion.retryMaxSeconds = 5
        func daemon(sources: any ObjectStore, outputs: any ObjectStore) -> (WorkerDaemon, DispatchSemaphore) {
            let d = WorkerDaemon(config: config, storage: sources, outputStorage: outputs, logger: world.logger)
            let exited = DispatchSemaphore(value: 0)
            Thread { _ = d.run(); exited.signal() }.start()
            return (d, exited)
        }
        try world.connection.query("DELETE FROM rooms WHERE id = $1::uuid", [room.room])

        let (down, downExited) = daemon(sources: OutageStore(world.sources), outputs: OutageStore(world.outputs))
        #expect(try world.eventually { try world.queue().contains { ($0.int("attempts") ?? 0) >= 1 } })
        down.stopNow()
        #expect(downExited.wait(timeout: .now() + 30) == .success)
        #expect(try world.objects(ofRoom: room.room) == 15, "while storage was down")
        #expect(try world.queue().count == 2)

        let (up, upExited) = daemon(sources: world.sources, outputs: world.outputs)
        #expect(try world.eventually { try world.queue().isEmpty })
        // The pass records its counts after its last commit.
        #expect(world.eventually { up.metrics.render().contains("transcode_deletion_objects_deleted_total 15\n") })
        up.stopNow()
        #expect(upExited.wait(timeout: .now() + 30) == .success)
        #expect(try world.objects(ofRoom: room.room) == 0, "after the restart")
    }

    @Test func theClaimReadsTheRoomsVisibilityWhichPicksTheOutputsCacheControl() throws {
        let world = try DeletionWorld()
        world.config.deletion.privateOutputCacheControl = "private, max-age=600"
        for visibility in ["public", "private"] {
            let room = UUID().uuidString.lowercased()
            try world.connection.query("INSERT INTO rooms (id, name, visibility) VALUES ($1::uuid, 'cache', $2)", [room, visibility])
            try world.connection.query("INSERT INTO transcode_private.room_versions (room_id, status, source_usdz_path) VALUES ($1::uuid, 'queued', 'x')",
                                       [room])
            let job = try #require(try world.store.claim(workerId: "tw-cache", leaseSeconds: 60))
            #expect(job.roomVisibility == visibility)
            #expect(world.config.outputCacheControl(visibility: job.roomVisibility)
                    == (visibility == "public" ? WorkerConfig.defaultOutputCacheControl : "private, max-age=600"))
        }
    }

    // MARK: - Shared by the file and S3 suites

    /// A room with a ready version (two revisions, report, sources, a replacement texture) and a
    /// bystander room: the room's row is deleted and one pass leaves nothing of it.
    static func roomDeletion(_ world: DeletionWorld) throws {
        let room = try world.room()
        let bystander = try world.room()
        #expect(try world.objects(ofRoom: room.room) == 15, "before the deletion")
        #expect(try world.sources.list(prefix: "rooms/\(room.room)/").count == 3)
        #expect(try world.outputs.list(prefix: "rooms/\(room.room)/").count == 12)

        try world.connection.query("DELETE FROM rooms WHERE id = $1::uuid", [room.room])
        // The delete wrote the queue in its own transaction: the room and its version.
        #expect(try world.queue().map { $0["reason"] ?? "" }.sorted() == ["room_deleted", "version_deleted"])

        let outcome = try world.sweep()
        #expect(outcome.finished == 2 && outcome.failures == 0)
        #expect(outcome.objects == 15)
        #expect(try world.objects(ofRoom: room.room) == 0, "after the deletion")
        #expect(!world.folderLeft("rooms/\(room.room)/"), "a file store keeps no folder named by the room")
        #expect(try world.objects(ofRoom: bystander.room) == 15)
        #expect(try world.queue().isEmpty)
    }

    /// The same deletion with storage down for the first pass, then a worker that dies half-way
    /// through the second: a new sweeper (a restarted worker's thread) finishes it.
    static func outageAndRestart(_ world: DeletionWorld, outage: (any ObjectStore) throws -> any ObjectStore) throws {
        let room = try world.room()
        try world.connection.query("DELETE FROM rooms WHERE id = $1::uuid", [room.room])
        #expect(try world.queue().count == 2)

        // Storage is down: nothing is deleted, nothing is lost, both deletions wait with a backoff.
        let downSources = try outage(world.sources), downOutputs = try outage(world.outputs)
        let failed = try world.sweep(sources: downSources, outputs: downOutputs)
        #expect(failed.failures == 2 && failed.finished == 0)
        #expect(try world.objects(ofRoom: room.room) == 15, "after the outage")
        let waiting = try world.queue()
        #expect(waiting.count == 2 && waiting.allSatisfy { $0.int("attempts") == 1 && $0.bool("waiting") == true })
        #expect(waiting.allSatisfy { $0["last_error"]?.contains("STORAGE_UNAVAILABLE") == true })
        // A pass before the backoff ends takes nothing.
        #expect(try world.sweep() == DeletionSweeper.Outcome())

        // Storage is back; the worker dies after deleting a few objects (its database connection ends mid-way).
        try world.makeDue()
        let doomed = try world.db.connect()
        let crashing = CrashingStore(world.outputs, connection: doomed, deleteFirst: 4)
        #expect(throws: DatabaseError.self) { try world.sweep(outputs: crashing, on: QueueStore(connection: doomed)) }
        #expect(crashing.crashed)
        let mid = try world.objects(ofRoom: room.room)
        // The 3 sources and 4 outputs went before the worker died.
        #expect(mid == 8, "after the worker died mid-deletion: \(mid) left")
        #expect(try world.queue().count == 2, "the dead worker's deletion is still queued")

        // The restarted worker's sweeper picks the queue up on its own.
        let metrics = Metrics()
        let sweeper = DeletionSweeper(config: world.config, sources: world.sources, outputs: world.outputs,
                                      logger: world.logger, metrics: metrics)
        sweeper.start()
        defer { sweeper.stop() }
        #expect(try world.eventually { try world.queue().isEmpty && world.objects(ofRoom: room.room) == 0 })
        #expect(try world.objects(ofRoom: room.room) == 0, "after the restart")
        #expect(try world.eventually { metrics.render().contains("transcode_deletions_total{result=\"done\"} 2\n") })
        #expect(metrics.render().contains("transcode_deletions_pending 0\n"))
    }
}
