import Foundation
import Testing
@testable import TranscodeWorker
@testable import JSONCore
@testable import PGQueue
@testable import WorkerRuntime

// MARK: - Helpers shared by the queue suites

/// Row set-up and inspection for the queue tests. Everything is plain SQL on the test database.
enum QueueKit {
    static func newID() -> String { UUID().uuidString.lowercased() }

    /// A fresh migrated database, a connection to it and a queue store on that connection. The
    /// caller drops the database (`defer { db.drop() }`).
    static func open() throws -> (TestDatabase, PGConnection, QueueStore) {
        let db = try TestDatabase()
        do {
            let c = try db.connect()
            return (db, c, QueueStore(connection: c))
        } catch {
            db.drop()
            throw error
        }
    }

    /// Inserts a room (when new) and one version with any status and schedule; returns its id.
    @discardableResult
    static func insert(_ c: PGConnection, room: String, status: String = "queued", priority: Int = 0,
                       maxAttempts: Int = 5, runAfterSeconds: Double = 0) throws -> String {
        let id = newID()
        try c.query("INSERT INTO rooms (id, name) VALUES ($1::uuid, 'queue test') ON CONFLICT (id) DO NOTHING", [room])
        try c.query("""
            INSERT INTO transcode_private.room_versions (id, room_id, status, source_usdz_path, source_json_path, priority, max_attempts, run_after)
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
            UPDATE transcode_private.room_versions SET lease_expires_at = now() - interval '1 second',
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
                        "SELECT id, status::text AS status, glb_path, manifest_path FROM transcode_private.room_versions WHERE id = ANY($1::uuid[])", [list])
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
