import Foundation
import Testing
@testable import TranscodeWorker
@testable import JSONCore
@testable import ObjectStorage
@testable import PGQueue
@testable import WorkerRuntime
@testable import WorkerCore

/// Lines a command printed, collected from any thread.
final class CapturedLines: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []

    func append(_ line: String) {
        lock.lock()
        lines.append(line)
        lock.unlock()
    }

    var all: [String] {
        lock.lock()
        defer { lock.unlock() }
        return lines
    }

    /// The only line, parsed as a JSON object.
    func object() throws -> [String: Any] {
        let text = try #require(all.count == 1 ? all[0] : nil, "expected one line, got \(all)")
        return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }
}

@Suite("Operator commands on real Postgres", .enabled(if: postgresConfigured))
struct OperatorCommandTests {
    /// Runs `transcode-worker <args> --database-url <db>` and returns the exit status.
    func tool(_ db: TestDatabase, _ args: String...) -> Int32 {
        CommandLineTool.main(args + ["--database-url", db.url])
    }

    /// A room with `count` queued versions, inserted through the queue store.
    func seeded(_ db: TestDatabase, count: Int) throws -> (QueueStore, [String]) {
        let store = QueueStore(connection: try db.connect())
        let room = UUID().uuidString.lowercased()
        var ids: [String] = []
        for _ in 0..<count {
            let id = UUID().uuidString.lowercased()
            try store.submit(versionId: id, roomId: room, roomName: "test", usdzKey: "rooms/\(room)/versions/\(id)/source.usdz",
                             jsonKey: nil)
            ids.append(id)
        }
        return (store, ids.sorted())
    }

    /// Claims and finalizes every queued version as `ready` with manifest schema `schema`.
    func makeReady(_ store: QueueStore, schema: Int) throws {
        while let job = try store.claim(workerId: "test-worker", leaseSeconds: 60) {
            let outputs = JSONValue.object([
                "glb_path": .string(job.outputPrefix + "model.glb"),
                "manifest_path": .string(job.outputPrefix + "layer_manifest.json"),
                "thumbnail_path": .string(job.outputPrefix + "thumbs/hero.webp"),
                "thumbnails": .array([.object(["path": .string(job.outputPrefix + "thumbs/hero.webp"), "kind": .string("hero"),
                                               "width": .int(1024), "height": .int(768)])]),
                "manifest_schema_version": .int(Int64(schema)),
            ])
            let done = try store.finalize(versionId: job.versionId, leaseId: job.leaseId, status: "ready", outputs: outputs)
            #expect(done.ok)
        }
    }

    func temporaryDirectory() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("operator-tests-" + UUID().uuidString)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    @Test func migrateIsIdempotent() throws {
        let db = try TestDatabase(migrate: false)
        defer { db.drop() }
        #expect(tool(db, "migrate") == ExitStatus.ok)
        #expect(tool(db, "migrate") == ExitStatus.ok)
        #expect(tool(db, "migrate", "--status") == ExitStatus.ok)
        let c = try db.connect()
        #expect(try Migrator.appliedVersions(c) == SchemaCatalog.migrations.map(\.version))

        let out = CapturedLines()
        var status = try MigrateCommand(["--status", "--json", "--database-url", db.url])
        status.options.emit = out.append
        #expect(try status.run() == ExitStatus.ok)
        let obj = try out.object()
        #expect((obj["pending"] as? [Any])?.isEmpty == true)
        #expect((obj["current_version"] as? Int) == SchemaCatalog.migrations.map(\.version).max())
    }

    @Test func submitStoresFilesThenEnqueueDeduplicates() throws {
        let db = try TestDatabase()
        defer { db.drop() }
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let usdz = dir.appendingPathComponent("scan.usdz"), json = dir.appendingPathComponent("scan.json")
        try Data("not really a usdz".utf8).write(to: usdz)
        try Data("{}".utf8).write(to: json)
        let redacted = dir.appendingPathComponent("redacted/textures")
        try FileManager.default.createDirectory(at: redacted, withIntermediateDirectories: true)
        try Data([1, 2, 3]).write(to: redacted.appendingPathComponent("albedo.png"))
        let storage = dir.appendingPathComponent("storage").path
        let room = UUID().uuidString.lowercased(), version = UUID().uuidString.lowercased()

        #expect(tool(db, "submit", "--usdz", usdz.path, "--roomplan", json.path, "--room", room, "--version", version,
                     "--redacted-textures", dir.appendingPathComponent("redacted").path, "--max-attempts", "3",
                     "--storage-url", "file://" + storage) == ExitStatus.ok)
        let store = QueueStore(connection: try db.connect())
        let row = try #require(try store.show(versionId: version))
        #expect(row["status"] == "queued")
        #expect(row["room_id"] == room)
        #expect(row.int("max_attempts") == 3)
        #expect(row["source_usdz_path"] == "rooms/\(room)/versions/\(version)/source.usdz")
        #expect(row["source_json_path"] == "rooms/\(room)/versions/\(version)/roomplan.json")
        let files = try FileObjectStore(root: storage)
        #expect(try files.get("rooms/\(room)/versions/\(version)/source.usdz", maxBytes: 1000) == Array("not really a usdz".utf8))
        #expect(try files.get("rooms/\(room)/versions/\(version)/roomplan.json", maxBytes: 1000) == Array("{}".utf8))
        let redactions = try store.redactions(versionId: version)
        #expect(redactions.map(\.texturePath) == ["textures/albedo.png"])
        #expect(redactions.map(\.storageKey) == ["rooms/\(room)/versions/\(version)/redacted/textures/albedo.png"])

        // Queued already: enqueue changes nothing.
        let out = CapturedLines()
        var enqueue = try EnqueueCommand([version, "--json", "--database-url", db.url])
        enqueue.options.emit = out.append
        #expect(try enqueue.run() == ExitStatus.ok)
        #expect(try out.object()["result"] as? String == "deduplicated")
        #expect(try store.show(versionId: version)?["status"] == "queued")

        // The same version id again, or a missing file: exit 3; no id printed.
        #expect(tool(db, "submit", "--usdz", usdz.path, "--version", version, "--storage-url", "file://" + storage)
                == ExitStatus.invalidInput)
        #expect(tool(db, "submit", "--usdz", dir.appendingPathComponent("missing.usdz").path,
                     "--storage-url", "file://" + storage) == ExitStatus.invalidInput)
        #expect(tool(db, "submit", "--roomplan", json.path) == ExitStatus.usage)

        // The plain output starts with the id alone.
        let plain = CapturedLines()
        var submit = try SubmitCommand(["--usdz", usdz.path, "--database-url", db.url, "--storage-url", "file://" + storage])
        submit.options.emit = plain.append
        #expect(try submit.run() == ExitStatus.ok)
        let id = try #require(plain.all.first)
        #expect(QueueStore.isUUID(id) && id == id.lowercased())
        #expect(try store.show(versionId: id)?["status"] == "queued")
    }

    @Test func enqueueUnknownOrMalformed() throws {
        let db = try TestDatabase()
        defer { db.drop() }
        #expect(tool(db, "enqueue", UUID().uuidString.lowercased()) == ExitStatus.invalidInput)
        #expect(tool(db, "enqueue", "not-a-uuid") == ExitStatus.usage)
        #expect(tool(db, "enqueue") == ExitStatus.usage)
        #expect(tool(db, "show", UUID().uuidString.lowercased()) == ExitStatus.invalidInput)
        #expect(tool(db, "cancel", UUID().uuidString.lowercased()) == ExitStatus.invalidInput)
        #expect(tool(db, "retry", UUID().uuidString.lowercased()) == ExitStatus.invalidInput)
        #expect(tool(db, "reprocess", UUID().uuidString.lowercased()) == ExitStatus.invalidInput)
    }

    @Test func enqueueQueuesAnUploadedRowOnce() throws {
        let db = try TestDatabase()
        defer { db.drop() }
        // The backend's own insert: only the columns it knows.
        let c = try db.connect()
        let room = UUID().uuidString.lowercased(), version = UUID().uuidString.lowercased()
        try c.query("INSERT INTO rooms (id) VALUES ($1::uuid)", [room])
        try c.query("""
            INSERT INTO transcode_private.room_versions (id, room_id, status, source_usdz_path, source_json_path)
            VALUES ($1::uuid, $2::uuid, 'uploading', 'a/source.usdz', 'a/roomplan.json')
            """, [version, room])
        let first = CapturedLines()
        var enqueue = try EnqueueCommand([version, "--json", "--database-url", db.url])
        enqueue.options.emit = first.append
        #expect(try enqueue.run() == ExitStatus.ok)
        #expect(try first.object()["result"] as? String == "queued")
        let store = QueueStore(connection: c)
        #expect(try store.show(versionId: version)?["status"] == "queued")
        let again = CapturedLines()
        enqueue.options.emit = again.append
        #expect(try enqueue.run() == ExitStatus.ok)
        #expect(try again.object()["deduplicated"] as? Bool == true)
        // Running: still deduplicated.
        _ = try #require(try store.claim(workerId: "w1", leaseSeconds: 60))
        #expect(tool(db, "enqueue", version) == ExitStatus.ok)
        #expect(try store.show(versionId: version)?["status"] == "transcoding")
    }

    @Test func enqueueRefusesFinishedVersions() throws {
        let db = try TestDatabase()
        defer { db.drop() }
        let (store, ids) = try seeded(db, count: 1)
        try makeReady(store, schema: 1)
        #expect(tool(db, "enqueue", ids[0]) == ExitStatus.invalidInput)
        #expect(try store.show(versionId: ids[0])?["status"] == "ready")
    }

    @Test func cancelQueuedFailsItWithCancelled() throws {
        let db = try TestDatabase()
        defer { db.drop() }
        let (store, ids) = try seeded(db, count: 1)
        #expect(tool(db, "cancel", ids[0]) == ExitStatus.ok)
        let row = try #require(try store.show(versionId: ids[0]))
        #expect(row["status"] == "failed")
        #expect(row["last_error_code"] == "CANCELLED")
        // Failed now: nothing left to cancel.
        #expect(tool(db, "cancel", ids[0]) == ExitStatus.invalidInput)
    }

    @Test func cancelRunningRequestsAStop() throws {
        let db = try TestDatabase()
        defer { db.drop() }
        let (store, ids) = try seeded(db, count: 1)
        let job = try #require(try store.claim(workerId: "w1", leaseSeconds: 60))
        let out = CapturedLines()
        var cancel = try CancelCommand([ids[0], "--json", "--database-url", db.url])
        cancel.options.emit = out.append
        #expect(try cancel.run() == ExitStatus.ok)
        let obj = try out.object()
        #expect(obj["result"] as? String == "stop_requested")
        #expect(obj["running"] as? Bool == true)
        #expect(try store.heartbeat(job, leaseSeconds: 60) == .alive(cancelRequested: true))
        #expect(try store.show(versionId: ids[0])?["status"] == "transcoding")
    }

    @Test func retryFailedDryRunThenForReal() throws {
        let db = try TestDatabase()
        defer { db.drop() }
        let (store, ids) = try seeded(db, count: 3)
        for id in ids.prefix(2) { #expect(try store.cancel(versionId: id).ok) }

        let out = CapturedLines()
        var dry = try RetryCommand(["--failed", "--dry-run", "--since", "1h", "--json", "--database-url", db.url])
        dry.options.emit = out.append
        #expect(try dry.run() == ExitStatus.ok)
        let obj = try out.object()
        #expect(obj["version_ids"] as? [String] == Array(ids.prefix(2)))
        #expect(obj["dry_run"] as? Bool == true)
        for id in ids.prefix(2) { #expect(try store.show(versionId: id)?["status"] == "failed") }

        // A room filter that matches nothing, and a window in the future, retry nothing.
        #expect(tool(db, "retry", "--failed", "--room", UUID().uuidString.lowercased()) == ExitStatus.ok)
        #expect(tool(db, "retry", "--failed", "--since", "2999-01-01T00:00:00Z") == ExitStatus.ok)
        for id in ids.prefix(2) { #expect(try store.show(versionId: id)?["status"] == "failed") }

        #expect(tool(db, "retry", "--failed") == ExitStatus.ok)
        for id in ids.prefix(2) {
            let row = try #require(try store.show(versionId: id))
            #expect(row["status"] == "queued")
            #expect(row.int("priority") == 10)
            #expect(row.int("attempt") == 0)
            #expect(row["last_error_code"] == nil)
        }
        #expect(try store.show(versionId: ids[2])?.int("priority") == 0)

        // One version: only a failed one can be retried.
        #expect(tool(db, "retry", ids[2]) == ExitStatus.invalidInput)
        #expect(try store.cancel(versionId: ids[2]).ok)
        #expect(tool(db, "retry", ids[2], "--dry-run") == ExitStatus.ok)
        #expect(try store.show(versionId: ids[2])?["status"] == "failed")
        #expect(tool(db, "retry", ids[2]) == ExitStatus.ok)
        #expect(try store.show(versionId: ids[2])?["status"] == "queued")
    }

    @Test func retryUsageErrors() throws {
        let db = try TestDatabase()
        defer { db.drop() }
        #expect(tool(db, "retry") == ExitStatus.usage)
        #expect(tool(db, "retry", "--failed", "--since", "5x") == ExitStatus.usage)
        #expect(tool(db, "retry", "--failed", "--since", "yesterday") == ExitStatus.usage)
        #expect(tool(db, "retry", "--since", "1h", UUID().uuidString) == ExitStatus.usage)
        #expect(tool(db, "retry", "--failed", "--room", "nope") == ExitStatus.usage)
        #expect(tool(db, "reprocess") == ExitStatus.usage)
        #expect(tool(db, "reprocess", "--below-schema", "0") == ExitStatus.usage)
        #expect(tool(db, "status", "--failure-window-hours", "x") == ExitStatus.usage)
        #expect(tool(db, "watch", "--timeout", "-1") == ExitStatus.usage)
        #expect(CommandLineTool.main(["status", "--bogus"]) == ExitStatus.usage)
    }

    @Test func sinceAcceptsAgesAndISOTimes() throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)  // 2027-01-15T08:00:00Z
        #expect(try RetryCommand.timestamp("24h", now: now) == "2027-01-14T08:00:00.000Z")
        #expect(try RetryCommand.timestamp("7d", now: now) == "2027-01-08T08:00:00.000Z")
        #expect(try RetryCommand.timestamp("30m", now: now) == "2027-01-15T07:30:00.000Z")
        #expect(try RetryCommand.timestamp("2026-05-01T12:00:00+02:00", now: now) == "2026-05-01T10:00:00.000Z")
        #expect(try RetryCommand.timestamp("2026-05-01T10:00:00.250Z", now: now) == "2026-05-01T10:00:00.250Z")
        #expect(try RetryCommand.timestamp("2026-05-01", now: now) == "2026-05-01T00:00:00.000Z")
        #expect(throws: UsageError.self) { try RetryCommand.timestamp("3y", now: now) }
        #expect(DatabaseOptions.timestamp("2026-05-01 10:00:00.123+00") == "2026-05-01T10:00:00.123Z")
        #expect(DatabaseOptions.timestamp("2026-05-01 12:00:00+05:30") == "2026-05-01T12:00:00+05:30")
        #expect(DatabaseOptions.timestamp("2026-05-01 12:00:00-07") == "2026-05-01T12:00:00-07:00")
        #expect(DatabaseOptions.timestamp("queued") == "queued")
    }

    @Test func reprocessMarksReadyVersionsThatStayReady() throws {
        let db = try TestDatabase()
        defer { db.drop() }
        let (store, ids) = try seeded(db, count: 3)
        try makeReady(store, schema: 1)
        for id in ids { #expect(try store.show(versionId: id)?["status"] == "ready") }

        #expect(tool(db, "reprocess", "--below-schema", "2", "--dry-run") == ExitStatus.ok)
        for id in ids { #expect(try store.show(versionId: id)?["reprocess_requested_at"] == nil) }
        // Already at schema 1: nothing below 1.
        #expect(tool(db, "reprocess", "--below-schema", "1") == ExitStatus.ok)
        for id in ids { #expect(try store.show(versionId: id)?["reprocess_requested_at"] == nil) }

        let out = CapturedLines()
        var batch = try ReprocessCommand(["--below-schema", "2", "--limit", "2", "--json", "--database-url", db.url])
        batch.options.emit = out.append
        #expect(try batch.run() == ExitStatus.ok)
        let obj = try out.object()
        #expect(obj["count"] as? Int == 2)
        #expect(obj["limit_reached"] as? Bool == true)
        #expect(obj["version_ids"] as? [String] == Array(ids.prefix(2)))
        #expect(tool(db, "reprocess", "--below-schema", "2", "--limit", "2") == ExitStatus.ok)
        for id in ids {
            let row = try #require(try store.show(versionId: id))
            #expect(row["status"] == "ready")
            #expect(row["reprocess_requested_at"] != nil)
            #expect(row.int("priority") == 20)
            #expect(row["glb_path"] != nil)
        }
        // Marked already: a single reprocess is refused, and the status shows them waiting.
        #expect(tool(db, "reprocess", ids[0]) == ExitStatus.invalidInput)
        let status = CapturedLines()
        var snapshot = try StatusCommand(["--json", "--database-url", db.url])
        snapshot.options.emit = status.append
        #expect(try snapshot.run() == ExitStatus.ok)
        let s = try status.object()
        #expect(s["reprocess_waiting"] as? Int == 3)
        #expect((s["counts"] as? [String: Any])?["ready"] as? Int == 3)

        // Withdrawn by cancel, then marked one by one.
        #expect(tool(db, "cancel", ids[0]) == ExitStatus.ok)
        #expect(try store.show(versionId: ids[0])?["status"] == "ready")
        #expect(try store.show(versionId: ids[0])?["reprocess_requested_at"] == nil)
        #expect(tool(db, "reprocess", ids[0]) == ExitStatus.ok)
        #expect(try store.show(versionId: ids[0])?["reprocess_requested_at"] != nil)
    }
}
