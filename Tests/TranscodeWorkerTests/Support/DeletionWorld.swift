import Foundation
import Testing
import TestSupport
@testable import ObjectStorage
@testable import PGQueue
@testable import WorkerRuntime

/// A database (plain or a Supabase project), a source store and an output store (two file folders
/// or two S3 buckets), and rooms whose versions have what a real one leaves in storage: sources,
/// a replacement texture and two output revisions, each with its model, manifest, report, plan and
/// thumbnails (15 objects per version).
final class DeletionWorld: @unchecked Sendable {
    let db: TestDatabase
    let project: SupabaseProject?
    let connection: PGConnection
    let store: QueueStore
    let sources: any ObjectStore
    let outputs: any ObjectStore
    private var folders: [String] = []
    var config: WorkerConfig
    let logger = JSONLogger(workerId: "tw-deletion-test", minimum: .error, fd: TestOutput.logFD)

    /// The files of one output revision.
    static let revisionFiles = ["model.glb", "layer_manifest.json", "report.html", "plan.svg", "thumbs/hero.webp", "thumbs/card.webp"]
    /// The source objects of one version, below its prefix.
    static let sourceFiles = ["source.usdz", "roomplan.json", "redacted/textures/face.png"]

    init(supabase: Bool = false, s3: Bool = false) throws {
        (db, project, connection) = try worldDatabase(supabase: supabase)
        store = QueueStore(connection: connection)
        if s3 {
            sources = try TestS3.makeStore()
            outputs = try TestS3.makeStore()
        } else {
            var made: [FileObjectStore] = []
            for name in ["uploads", "public"] {
                let dir = NSTemporaryDirectory() + "deletion-\(name)-" + UUID().uuidString.prefix(8)
                folders.append(dir)
                made.append(try FileObjectStore(root: dir))
            }
            sources = made[0]
            outputs = made[1]
        }
        config = WorkerConfig(environment: [:])
        config.databaseURL = db.url
        config.deletion.intervalSeconds = 0.2
        // Backoffs far longer than any test, so that "not due yet" never depends on speed.
        config.deletion.retryBaseSeconds = 3600
        config.deletion.retryMaxSeconds = 7200
    }

    deinit {
        if project == nil {
            connection.close()
            db.drop()
        }
        for dir in folders { try? FileManager.default.removeItem(atPath: dir) }
    }

    /// A new room with `versions` ready versions (see the type's notes); returns its ids.
    @discardableResult
    func room(versions: Int = 1, owner: String? = nil) throws -> (room: String, versions: [String]) {
        let room = UUID().uuidString.lowercased()
        try connection.query("INSERT INTO rooms (id, name) VALUES ($1::uuid, 'deletion test')", [room])
        if let owner { try connection.query("UPDATE rooms SET owner_id = $2::uuid WHERE id = $1::uuid", [room, owner]) }
        var ids: [String] = []
        for _ in 0..<versions { ids.append(try version(of: room)) }
        return (room, ids)
    }

    /// A ready version of `room` whose row names its second revision, with every object stored.
    func version(of room: String) throws -> String {
        let version = UUID().uuidString.lowercased()
        let root = "rooms/\(room)/versions/\(version)/"
        let current = root + "r2-bbbbbbbb/"
        try connection.query("""
            INSERT INTO transcode_private.room_versions (id, room_id, status, source_usdz_path, source_json_path, source_bucket,
                   glb_path, manifest_path, thumbnail_path, thumbnail_paths, output_bucket, output_revision, transcoded_at)
            VALUES ($1::uuid, $2::uuid, 'ready', $3, $4, $5, $6, $7, $8, $9::jsonb, $10, 2, now())
            """, [version, room, root + "source.usdz", root + "roomplan.json", sources.bucket, current + "model.glb",
                  current + "layer_manifest.json", current + "thumbs/card.webp",
                  #"[{"path":"\#(current)thumbs/hero.webp","kind":"hero"},{"path":"\#(current)thumbs/card.webp","kind":"card"}]"#,
                  outputs.bucket])
        try connection.query("INSERT INTO redactions (room_version_id, texture_path, redacted_path) VALUES ($1::uuid, 'textures/face.png', $2)",
                             [version, root + "redacted/textures/face.png"])
        try connection.query("UPDATE rooms SET current_version_id = $2::uuid, thumbnail_path = $3, thumbnail_bucket = $4 WHERE id = $1::uuid",
                             [room, version, current + "thumbs/card.webp", outputs.bucket])
        for file in Self.sourceFiles { try sources.put(root + file, bytes: [1, 2, 3], contentType: "application/octet-stream") }
        for revision in ["r1-aaaaaaaa/", "r2-bbbbbbbb/"] {
            for file in Self.revisionFiles {
                try outputs.put(root + revision + file, bytes: [4, 5, 6, 7], contentType: "application/octet-stream", cacheControl: nil)
            }
        }
        return version
    }

    /// Objects under `prefix` in both stores.
    func objects(under prefix: String) throws -> Int {
        try sources.list(prefix: prefix).count + outputs.list(prefix: prefix).count
    }

    /// Whether a directory for `prefix` is left in either file store (always false on S3).
    func folderLeft(_ prefix: String) -> Bool {
        [sources, outputs].contains { store in
            guard let root = (store as? FileObjectStore)?.root else { return false }
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: root + "/" + prefix, isDirectory: &isDirectory) && isDirectory.boolValue
        }
    }

    /// Objects of `room` in both stores.
    func objects(ofRoom room: String) throws -> Int { try objects(under: "rooms/\(room)/") }

    /// The rows of the deletion queue, oldest first.
    func queue() throws -> [PGRow] {
        try connection.query("""
            SELECT id, reason, room_id::text AS room_id, version_id::text AS version_id, attempts, last_error,
                   keys::text AS keys, buckets::text AS buckets, next_at > now() AS waiting
              FROM transcode_private.deletions ORDER BY id
            """)
    }

    /// One pass of the deletion sweep over these stores (or the given ones).
    func sweep(sources: (any ObjectStore)? = nil, outputs: (any ObjectStore)? = nil, on store: QueueStore? = nil) throws -> DeletionSweeper.Outcome {
        try DeletionSweeper.sweep(store: store ?? self.store, sources: sources ?? self.sources, outputs: outputs ?? self.outputs,
                                  config: config, logger: logger)
    }

    /// Makes every waiting deletion due now (instead of waiting out its backoff).
    func makeDue() throws { try connection.query("UPDATE transcode_private.deletions SET next_at = now()") }

    /// Polls `condition` every 50 ms for at most `seconds`; its last value.
    func eventually(seconds: Double = 60, _ condition: () throws -> Bool) rethrows -> Bool {
        let until = Date().addingTimeInterval(seconds)
        while Date() < until {
            if try condition() { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return try condition()
    }
}

/// A store that fails every listing and delete with `STORAGE_UNAVAILABLE` while `down` is set: an
/// outage of the storage behind it.
final class OutageStore: ForwardingStore, @unchecked Sendable {
    private let lock = NSLock()
    private var isDown = true
    var down: Bool {
        get { lock.lock(); defer { lock.unlock() }; return isDown }
        set { lock.lock(); isDown = newValue; lock.unlock() }
    }

    private func check(_ what: String) throws(StorageError) {
        if down { throw StorageError(code: .unavailable, message: "\(what): connection refused") }
    }

    override func list(prefix: String) throws(StorageError) -> [String] {
        try check("list \(prefix)")
        return try base.list(prefix: prefix)
    }
    override func delete(_ key: String) throws(StorageError) {
        try check("delete \(key)")
        try base.delete(key)
    }
}

/// A store that deletes `deleteFirst` objects, then closes the sweeper's database connection (the
/// worker dies mid-deletion) and fails every later delete.
final class CrashingStore: ForwardingStore, @unchecked Sendable {
    let connection: PGConnection
    let deleteFirst: Int
    private let lock = NSLock()
    private var deleted = 0
    private(set) var crashed = false

    init(_ base: any ObjectStore, connection: PGConnection, deleteFirst: Int) {
        self.connection = connection
        self.deleteFirst = deleteFirst
        super.init(base)
    }

    override func delete(_ key: String) throws(StorageError) {
        lock.lock()
        deleted += 1
        let dies = deleted > deleteFirst
        let first = dies && !crashed
        if dies { crashed = true }
        lock.unlock()
        if first { connection.close() }
        if dies { throw StorageError(code: .unavailable, message: "the process ended") }
        try base.delete(key)
    }
}
