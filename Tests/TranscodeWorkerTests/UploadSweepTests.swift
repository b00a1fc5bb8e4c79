import Foundation
import Testing
import TestSupport
@testable import TranscodeWorker
@testable import ObjectStorage
@testable import PGQueue
@testable import WorkerRuntime
@testable import WorkerCore

/// The upload sweep on real Postgres and file storage: versions whose upload-complete call was
/// lost are queued once their sources are in storage, and fail with `UPLOAD_EXPIRED` when they
/// never arrive.
@Suite("Upload sweep (lost upload-complete) on real Postgres", .enabled(if: postgresConfigured), .serialized)
struct UploadSweepTests {
    /// A database (plain or a Supabase project), a storage folder and a configuration with the
    /// default upload settings (stale 600 s, expiry 86400 s).
    final class World: @unchecked Sendable {
        let db: TestDatabase
        let project: SupabaseProject?
        let connection: PGConnection
        let store: QueueStore
        let storageDir: String
        let storage: FileObjectStore
        var config: WorkerConfig

        init(supabase: Bool = false) throws {
            (db, project, connection) = try worldDatabase(supabase: supabase)
            store = QueueStore(connection: connection)
            storageDir = NSTemporaryDirectory() + "upload-sweep-" + UUID().uuidString
            try FileManager.default.createDirectory(atPath: storageDir, withIntermediateDirectories: true)
            storage = try FileObjectStore(root: storageDir)
            config = WorkerConfig(environment: [:])
            config.databaseURL = db.url
        }

        deinit {
            if project == nil {
                connection.close()
                db.drop()
            }
            try? FileManager.default.removeItem(atPath: storageDir)
        }

        /// Inserts an `uploading` version last changed `quietSeconds` ago. `usdz` / `json`: the
        /// keys to record (nil: none; `""`: the default key under the version's prefix);
        /// `upload`: whether to store those objects.
        @discardableResult
        func uploading(quietSeconds: Double, usdz: String? = "", json: String? = "", upload: Bool) throws -> (version: String, room: String) {
            let room = UUID().uuidString.lowercased(), version = UUID().uuidString.lowercased()
            let prefix = "rooms/\(room)/versions/\(version)/"
            let usdzKey = usdz.map { $0.isEmpty ? prefix + "source.usdz" : $0 }
            let jsonKey = json.map { $0.isEmpty ? prefix + "roomplan.json" : $0 }
            try connection.query("INSERT INTO rooms (id, name) VALUES ($1::uuid, 'sweep test')", [room])
            try connection.query("""
                INSERT INTO transcode_private.room_versions (id, room_id, status, source_usdz_path, source_json_path, created_at, updated_at)
                VALUES ($1::uuid, $2::uuid, 'uploading', $3, $4, now() - $5::double precision * interval '1 second',
                        now() - $5::double precision * interval '1 second')
                """, [version, room, usdzKey, jsonKey, String(quietSeconds)])
            if upload {
                for key in [usdzKey, jsonKey].compactMap({ $0 }) { try storage.put(key, bytes: [1, 2, 3], contentType: "application/octet-stream") }
            }
            return (version, room)
        }

        func row(_ version: String) throws -> PGRow {
            try #require(try connection.query("""
                SELECT status::text AS status, last_error_code, failure_count, event_seq, errors::text AS errors,
                       updated_at::text AS updated_at, enqueued_at IS NOT NULL AS enqueued
                  FROM transcode_private.room_versions WHERE id = $1::uuid
                """, [version]).first)
        }

        func sweep(storage: (any ObjectStore)? = nil, on store: QueueStore? = nil) throws -> UploadSweeper.Outcome {
            try UploadSweeper.sweep(store: store ?? self.store, storage: storage ?? self.storage, config: config, logger: nil)
        }
    }

    static let day: Double = 86_400

    @Test func aStaleUploadWithItsSourcesIsQueuedAndWakesTheWorkers() throws {
        let world = try World()
        let listener = try world.db.connect()
        defer { listener.close() }
        try listener.listen(SchemaCatalog.queuedChannel)
        let v = try world.uploading(quietSeconds: 1200, upload: true)

        #expect(try world.sweep() == UploadSweeper.Outcome(requeued: 1))
        let row = try world.row(v.version)
        #expect(row["status"] == "queued")
        #expect(row.bool("enqueued") == true)
        let heard = try listener.waitForNotifications(timeout: 5)
        #expect(heard.map(\.payload) == [v.version])
        // A worker can claim it now.
        #expect(try world.store.claim(workerId: "tw-sweep", leaseSeconds: 60)?.versionId == v.version)
        // The next pass finds nothing.
        #expect(try world.sweep() == UploadSweeper.Outcome())
    }

    @Test func aYoungUploadIsLeftAlone() throws {
        let world = try World()
        let v = try world.uploading(quietSeconds: 60, upload: true)
        let before = try world.row(v.version)["updated_at"]
        #expect(try world.sweep() == UploadSweeper.Outcome())
        let row = try world.row(v.version)
        #expect(row["status"] == "uploading")
        #expect(row["updated_at"] == before)
    }

    @Test func aStaleUploadWithoutItsSourcesWaitsUntilTheExpiry() throws {
        let world = try World()
        let missing = try world.uploading(quietSeconds: 1200, upload: false)
        // One of two sources uploaded is not enough either.
        let half = try world.uploading(quietSeconds: 1200, upload: false)
        try world.storage.put("rooms/\(half.room)/versions/\(half.version)/source.usdz", bytes: [1], contentType: "model/vnd.usdz+zip")
        #expect(try world.sweep() == UploadSweeper.Outcome(waiting: 2))
        for v in [missing, half] {
            let row = try world.row(v.version)
            #expect(row["status"] == "uploading")
            #expect(row.int("failure_count") == 0)
        }
    }

    @Test func anExpiredUploadFailsWithUploadExpiredAndTheFailedEvent() throws {
        let world = try World(supabase: true)
        let c = world.connection
        let v = try world.uploading(quietSeconds: 2 * Self.day, upload: false)
        #expect(try world.sweep() == UploadSweeper.Outcome(expired: 1))

        let row = try world.row(v.version)
        #expect(row["status"] == "failed")
        #expect(row["last_error_code"] == "UPLOAD_EXPIRED")
        #expect(row.int("failure_count") == 1)
        #expect(row.int("event_seq") == 1)
        let errors = try #require(try JSONSerialization.jsonObject(with: Data((row["errors"] ?? "").utf8)) as? [[String: Any]])
        #expect(errors.count == 1)
        #expect(errors.last?["code"] as? String == "UPLOAD_EXPIRED")
        #expect(errors.last?["final"] as? Bool == true)

        let failed = try SupabaseStandIn.messages(c, topic: "room:\(v.room)").filter { $0.event == "failed" }
        try #require(failed.count == 1)
        let p = failed[0].payload
        #expect(p["schema"] as? String == "transcode-failed/v1")
        #expect(p["version_id"] as? String == v.version)
        #expect(p["error"] as? String == "ROOM_TRANSCODE_FAILED")
        #expect(p["reason"] as? String == "UPLOAD_EXPIRED")
        #expect(p["message"] as? String == SchemaCatalog.currentSafeMessages.first { $0.reason == "UPLOAD_EXPIRED" }?.message)
        #expect(p["retryable"] as? Bool == false)
        #expect((p["failure_count"] as? NSNumber)?.intValue == 1)
        #expect((p["seq"] as? NSNumber)?.intValue == 1)
        #expect(p["status"] as? String == "failed")

        // The same payload shape as every other failed event (a cancelled upload's).
        let other = try world.uploading(quietSeconds: 0, upload: false)
        _ = try world.store.cancel(versionId: other.version)
        let cancelled = try #require(try SupabaseStandIn.messages(c, topic: "room:\(other.room)").first { $0.event == "failed" })
        #expect(Set(cancelled.payload.keys) == Set(p.keys))
        // Earlier reasons keep their messages.
        let old = try c.query("SELECT transcode_safe_message('SOURCE_NOT_FOUND') AS m").first?["m"]
        #expect(old == SchemaCatalog.safeMessages.first { $0.reason == "SOURCE_NOT_FOUND" }?.message)
        // A scan that turns up later can be queued again by an operator.
        #expect(try world.store.retryFailed(versionId: v.version))
        #expect(try world.row(v.version)["status"] == "queued")
    }

    @Test func keysOutsideTheVersionsPrefixAreNeverQueuedAndExpire() throws {
        let world = try World()
        let elsewhere = "rooms/\(UUID().uuidString.lowercased())/versions/x/source.usdz"
        try world.storage.put(elsewhere, bytes: [1], contentType: "model/vnd.usdz+zip")
        let stale = try world.uploading(quietSeconds: 1200, usdz: elsewhere, json: nil, upload: false)
        let expired = try world.uploading(quietSeconds: 2 * Self.day, usdz: elsewhere, json: nil, upload: false)
        let noKeys = try world.uploading(quietSeconds: 2 * Self.day, usdz: nil, json: nil, upload: false)

        #expect(try world.sweep() == UploadSweeper.Outcome(expired: 2, waiting: 1))
        #expect(try world.row(stale.version)["status"] == "uploading")
        #expect(try world.row(expired.version)["last_error_code"] == "UPLOAD_EXPIRED")
        #expect(try world.row(noKeys.version)["last_error_code"] == "UPLOAD_EXPIRED")
    }

    @Test func anEnqueueDuringTheStorageCheckHasNoSecondEffect() throws {
        let world = try World()
        let listener = try world.db.connect()
        defer { listener.close() }
        try listener.listen(SchemaCatalog.queuedChannel)
        let v = try world.uploading(quietSeconds: 1200, upload: true)
        let hook = try world.db.connect()
        defer { hook.close() }
        let enqueued = SweepBox<EnqueueOutcome?>(nil)
        let done = DispatchSemaphore(value: 0)
        // The app's upload-complete arrives while the sweep checks storage (it waits for the row).
        let storage = HookedStore(base: world.storage) {
            Thread {
                enqueued.value = try? QueueStore(connection: hook).enqueue(versionId: v.version)
                done.signal()
            }.start()
            Thread.sleep(forTimeInterval: 0.3)
        }
        #expect(try world.sweep(storage: storage) == UploadSweeper.Outcome(requeued: 1))
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(enqueued.value == .deduplicated(status: "queued"))
        #expect(try world.row(v.version)["status"] == "queued")
        var heard: [String] = []
        let end = Date().addingTimeInterval(1.5)
        while Date() < end { heard += try listener.waitForNotifications(timeout: 0.3).map(\.payload) }
        #expect(heard == [v.version], "one wake-up, not two")

        // The other order: the enqueue came first, so neither sweep step changes anything.
        let w = try world.uploading(quietSeconds: 2 * Self.day, upload: false)
        #expect(try world.store.enqueue(versionId: w.version) == .queued(attempt: 0))
        #expect(try world.store.requeueUpload(versionId: w.version) == false)
        #expect(try world.store.expireUpload(versionId: w.version) == false)
        let row = try world.row(w.version)
        #expect(row["status"] == "queued")
        #expect(row.int("failure_count") == 0)
        #expect(row.int("event_seq") == 0)
    }

    @Test func replicasSweepingAtOnceTakeDifferentVersions() throws {
        let world = try World()
        let v = try world.uploading(quietSeconds: 1200, upload: true)
        let other = QueueStore(connection: try world.db.connect())
        defer { other.connection.close() }
        let second = SweepBox<UploadSweeper.Outcome?>(nil)
        // While the first sweep holds the version (checking storage), a second replica sweeps.
        let storage = HookedStore(base: world.storage) {
            second.value = try? world.sweep(on: other)
        }
        #expect(try world.sweep(storage: storage) == UploadSweeper.Outcome(requeued: 1))
        #expect(second.value == UploadSweeper.Outcome(), "the locked version is skipped, not waited for")
        #expect(try world.row(v.version)["status"] == "queued")
    }

    @Test func theDaemonRunsTheSweepAndCountsIt() throws {
        let world = try World()
        let v = try world.uploading(quietSeconds: 2 * Self.day, upload: false)
        var config = world.config
        config.rescueSeconds = 0.2
        config.pollSeconds = 0.2
        config.gcIntervalSeconds = 0
        let daemon = WorkerDaemon(config: config, storage: world.storage, logger: JSONLogger(workerId: "tw-sweep", minimum: .error, fd: TestOutput.logFD))
        let exited = DispatchSemaphore(value: 0)
        Thread { _ = daemon.run(); exited.signal() }.start()
        let end = Date().addingTimeInterval(15)
        while Date() < end, try world.row(v.version)["status"] == "uploading" { Thread.sleep(forTimeInterval: 0.1) }
        daemon.stopNow()
        #expect(exited.wait(timeout: .now() + 15) == .success)
        #expect(try world.row(v.version)["last_error_code"] == "UPLOAD_EXPIRED")
        let metrics = daemon.metrics.render()
        #expect(metrics.contains("transcode_uploads_expired_total 1\n"))
        #expect(metrics.contains("transcode_uploads_requeued_total 0\n"))
    }
}

@Suite("Upload sweep settings")
struct UploadSweepSettingsTests {
    @Test func defaultsFlagsAndTheirRelation() throws {
        let defaults = WorkerConfig(environment: [:])
        #expect(defaults.uploadStaleSeconds == 600)
        #expect(defaults.uploadExpireSeconds == 86_400)
        try defaults.validate()

        let env = WorkerConfig(environment: ["TRANSCODE_UPLOAD_STALE_SECONDS": "900", "TRANSCODE_UPLOAD_EXPIRE_SECONDS": "300"])
        #expect(throws: UsageError.self) { try env.validate() }

        var flags = WorkerConfig(environment: [:])
        try flags.set("upload-stale-seconds", "0")
        try flags.set("upload-expire-seconds", "120")
        try flags.validate()
        #expect(flags.uploadStaleSeconds == 0 && flags.uploadExpireSeconds == 120)
        #expect(throws: UsageError.self) { try flags.set("upload-expire-seconds", "-1") }
    }}

/// A value shared with a thread.
final class SweepBox<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: T
    init(_ value: T) { stored = value }
    var value: T {
        get { lock.lock(); defer { lock.unlock() }; return stored }
        set { lock.lock(); stored = newValue; lock.unlock() }
    }
}

/// An object store that runs `hook` once, on the first `size` call, before answering.
final class HookedStore: ForwardingStore, @unchecked Sendable {
    private let lock = NSLock()
    private var hook: (() -> Void)?
    init(base: FileObjectStore, hook: @escaping () -> Void) {
        self.hook = hook
        super.init(base)
    }

    override func size(_ key: String) throws(StorageError) -> Int? {
        lock.lock()
        let h = hook
        hook = nil
        lock.unlock()
        h?()
        return try base.size(key)
    }
}
