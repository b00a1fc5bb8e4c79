import Foundation
import Testing
import TestSupport
@testable import ObjectStorage
@testable import PGQueue
@testable import WorkerRuntime

/// Deletions under Supabase's roles, and the orphan sweep of objects no row refers to.
@Suite("Deletion under Supabase roles and the orphan sweep (real Postgres)", .enabled(if: postgresConfigured), .serialized)
struct DeletionRoleAndOrphanTests {
    /// Runs `sql` as `role` (`anon`, `authenticated` as `user`, `service_role`) in a transaction
    /// that is committed when `commit`; the error text, or nil when it went through.
    static func run(_ c: PGConnection, as role: String, user: String? = nil, _ sql: String, _ params: [String?] = [],
                    commit: Bool = false) -> String? {
        do {
            try c.query("BEGIN")
            try c.query("SET LOCAL ROLE \(role)")
            if let user {
                try c.query("SELECT set_config('request.jwt.claim.sub', $1, true), set_config('request.jwt.claims', $2, true)",
                            [user, "{\"sub\":\"\(user)\",\"role\":\"authenticated\"}"])
            }
            try c.query(sql, params)
            try c.query(commit ? "COMMIT" : "ROLLBACK")
            return nil
        } catch {
            _ = try? c.query("ROLLBACK")
            return error.description
        }
    }

    @Test func anOwnerOrTheServiceRoleDeletingARoomQueuesItsObjectsAndClientsCannotTouchTheQueue() throws {
        let world = try DeletionWorld(supabase: true)
        let c = world.connection
        try c.execute(script: RoleWorld.backendRoomPolicySQL)
        try c.execute(script: "CREATE POLICY rooms_owner_delete ON rooms FOR DELETE TO authenticated USING (owner_id = auth.uid());")
        let owner = UUID().uuidString.lowercased(), stranger = UUID().uuidString.lowercased()
        let mine = try world.room(owner: owner)
        let other = try world.room(owner: stranger)
        try world.connection.query("DELETE FROM transcode_private.deletions")

        // Someone else cannot delete the room, so nothing is queued.
        #expect(Self.run(c, as: "authenticated", user: stranger, "DELETE FROM rooms WHERE id = $1::uuid", [mine.room], commit: true) == nil)
        #expect(try world.queue().isEmpty)
        // The owner deletes it (the account deletion's statement): the trigger queues it though
        // the owner holds no privilege on the queue.
        #expect(Self.run(c, as: "authenticated", user: owner, "DELETE FROM rooms WHERE id = $1::uuid", [mine.room], commit: true) == nil)
        #expect(try world.queue().map { $0["room_id"] } == [mine.room, mine.room])
        // The service role deletes a room and reads the queue.
        #expect(Self.run(c, as: "service_role", "DELETE FROM rooms WHERE id = $1::uuid", [other.room], commit: true) == nil)
        #expect(Self.run(c, as: "service_role", "SELECT count(*) FROM transcode_private.deletions") == nil)
        #expect(try world.queue().count == 4)

        // Client roles can neither read nor write the queue, nor call its functions.
        let attempts = [
            "SELECT * FROM transcode_private.deletions",
            "INSERT INTO transcode_private.deletions (reason, room_id) VALUES ('room_deleted', gen_random_uuid())",
            "UPDATE transcode_private.deletions SET next_at = now() + interval '1 year'",
            "DELETE FROM transcode_private.deletions",
            "TRUNCATE transcode_private.deletions",
            "SELECT nextval('transcode_private.deletions_id_seq')",
        ]
        for role in ["anon", "authenticated"] {
            for sql in attempts {
                let error = Self.run(c, as: role, user: role == "anon" ? nil : owner, sql)
                #expect(error?.contains("permission denied") == true, "\(role): \(sql) -> \(error ?? "went through")")
            }
        }
        #expect(try world.queue().count == 4)

        let outcome = try world.sweep()
        #expect(outcome.finished == 4 && outcome.objects == 30)
        #expect(try world.objects(ofRoom: mine.room) == 0 && world.objects(ofRoom: other.room) == 0)
    }

    @Test func theOrphanSweepsDryRunDeletesNothingAndTheRealRunOnlyOrphansPastTheGrace() throws {
        let world = try DeletionWorld()
        let live = try world.room()
        let gone = try world.room()
        let queued = try world.room()
        // Rows gone without a queue entry (a TRUNCATE, a delete before migration 19).
        try world.connection.query("DELETE FROM rooms WHERE id = $1::uuid", [gone.room])
        try world.connection.query("DELETE FROM rooms WHERE id = $1::uuid", [queued.room])
        try world.connection.query("DELETE FROM transcode_private.deletions WHERE room_id = $1::uuid", [gone.room])
        // A version prefix of a live room with no row, and a key that is not the worker's.
        let strayVersion = "rooms/\(live.room)/versions/\(UUID().uuidString.lowercased())/"
        try world.outputs.put(strayVersion + "r1-cccccccc/model.glb", bytes: [1], contentType: "model/gltf-binary", cacheControl: nil)
        try world.outputs.put("rooms/not-a-room/notes.txt", bytes: [1], contentType: "text/plain", cacheControl: nil)
        // Everything so far is two days old.
        let old = Date().addingTimeInterval(-2 * 86_400)
        for store in [world.sources, world.outputs] {
            let root = try #require((store as? FileObjectStore)?.root)
            for key in try store.list(prefix: "rooms/") {
                try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: root + "/" + key)
            }
        }
        // An upload that has no row yet (it comes after its objects).
        let young = "rooms/\(UUID().uuidString.lowercased())/versions/\(UUID().uuidString.lowercased())/source.usdz"
        try world.sources.put(young, bytes: [1], contentType: "model/vnd.usdz+zip")
        let stores = DeletionSweeper.distinct([world.sources, world.outputs])
        let before = try world.objects(under: "rooms/")

        let dry = try OrphanSweeper.sweep(store: world.store, stores: stores, graceSeconds: 86_400, dryRun: true, logger: world.logger)
        #expect(Set(dry.prefixes) == ["rooms/\(gone.room)/", strayVersion])
        #expect(dry.prefixes.count == 3, "the gone room in both stores, the stray version in one")
        #expect(dry.objects == 16 && dry.failures == 0)
        #expect(try world.objects(under: "rooms/") == before, "a dry run deletes nothing")

        let real = try OrphanSweeper.sweep(store: world.store, stores: stores, graceSeconds: 86_400, dryRun: false, logger: world.logger)
        #expect(real.prefixes == dry.prefixes && real.objects == 16 && real.failures == 0)
        #expect(try world.objects(ofRoom: gone.room) == 0 && world.objects(under: strayVersion) == 0)
        #expect(try world.objects(ofRoom: live.room) == 15)
        #expect(try world.objects(ofRoom: queued.room) == 15, "the deletion queue owns it")
        #expect(try world.sources.size(young) != nil && world.outputs.size("rooms/not-a-room/notes.txt") != nil)
        #expect(try world.objects(under: "rooms/") == before - 16)
    }

    @Test func theSettingsParseAndPrivateRoomsGetTheirOwnCacheControl() throws {
        let plain = WorkerConfig(environment: [:])
        #expect(plain.deletion == DeletionSettings())
        #expect(plain.deletion.orphanMode == .dryRun && plain.deletion.intervalSeconds == 5)
        #expect(plain.outputCacheControl(visibility: "private") == WorkerConfig.defaultOutputCacheControl)
        let set = WorkerConfig(environment: ["TRANSCODE_DELETION_INTERVAL_SECONDS": "2", "TRANSCODE_ORPHAN_SWEEP": "on",
                                             "TRANSCODE_ORPHAN_GRACE_SECONDS": "3600",
                                             "TRANSCODE_PRIVATE_OUTPUT_CACHE_CONTROL": "private, max-age=600"])
        #expect(set.environmentProblems.isEmpty)
        #expect(set.deletion.intervalSeconds == 2 && set.deletion.orphanMode == .on && set.deletion.orphanGraceSeconds == 3600)
        #expect(set.outputCacheControl(visibility: "public") == WorkerConfig.defaultOutputCacheControl)
        #expect(set.outputCacheControl(visibility: "private") == "private, max-age=600")
        #expect(set.outputCacheControl(visibility: nil) == "private, max-age=600")
        var none = plain
        try none.set("private-output-cache-control", "none")
        #expect(none.outputCacheControl(visibility: "private") == nil)
        let bad = WorkerConfig(environment: ["TRANSCODE_ORPHAN_SWEEP": "yes", "TRANSCODE_ORPHAN_GRACE_SECONDS": "60"])
        #expect(bad.environmentProblems.count == 2)
        #expect(DeletionSettings().retryDelay(afterAttempts: 0) == 5 && DeletionSettings().retryDelay(afterAttempts: 10) == 300)
        let metrics = Metrics()
        metrics.orphansSwept(mode: "dry-run", objects: 3, bytes: 12)
        #expect(metrics.render().contains("transcode_orphan_objects_total{mode=\"dry-run\"} 3\n"))
    }
}

/// The same deletions with two S3 buckets (moto): sources in one, outputs in the other.
@Suite("Deletion leaves nothing (S3 storage, real Postgres)", .enabled(if: postgresConfigured && s3Configured), .serialized)
struct DeletionS3Tests {
    @Test func deletingARoomDeletesEveryStoredObjectInBothBuckets() throws {
        try DeletionLifecycleTests.roomDeletion(try DeletionWorld(s3: true))
    }

    @Test func anS3OutageAndARestartMidDeletionLoseNothing() throws {
        try DeletionLifecycleTests.outageAndRestart(try DeletionWorld(s3: true)) { store in
            // The same bucket behind an endpoint where nothing listens: every request is refused.
            let credentials = try #require(SigV4Credentials.fromEnvironment(TestS3.environment))
            return try S3ObjectStore(endpoint: "http://127.0.0.1:9", bucket: store.bucket, prefix: "", region: "us-east-1",
                                     credentials: credentials, timeout: 5, pageSize: 3, slashInQuery: true)
        }
    }

    @Test func theOrphanSweepFindsAndDeletesAGoneRoomInBothBuckets() throws {
        let world = try DeletionWorld(s3: true)
        let live = try world.room()
        let gone = try world.room()
        try world.connection.query("DELETE FROM rooms WHERE id = $1::uuid", [gone.room])
        try world.connection.query("DELETE FROM transcode_private.deletions")
        let stores = DeletionSweeper.distinct([world.sources, world.outputs])
        // S3 sets the modification time: the sweep looks from a day later.
        let later = Date().timeIntervalSince1970 + 86_400
        let dry = try OrphanSweeper.sweep(store: world.store, stores: stores, graceSeconds: 3600, dryRun: true, logger: world.logger, now: later)
        #expect(dry.prefixes == ["rooms/\(gone.room)/", "rooms/\(gone.room)/"] && dry.objects == 15)
        #expect(try world.objects(ofRoom: gone.room) == 15)
        let real = try OrphanSweeper.sweep(store: world.store, stores: stores, graceSeconds: 3600, dryRun: false, logger: world.logger, now: later)
        #expect(real.objects == 15 && real.failures == 0)
        #expect(try world.objects(ofRoom: gone.room) == 0 && world.objects(ofRoom: live.room) == 15)
    }
}
