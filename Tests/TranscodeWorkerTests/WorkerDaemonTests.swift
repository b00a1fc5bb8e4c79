import Foundation
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import TranscodeWorker
@testable import ObjectStorage
@testable import PGQueue

/// `transcode-worker run` as real processes against real Postgres and file storage: crashes,
/// signals and draining.
@Suite("Worker daemon processes", .enabled(if: postgresConfigured), .serialized)
struct WorkerDaemonTests {
    static let samples = CommandLineToolTests.packageRoot.appendingPathComponent("samples/roomplan").path
    /// A `TRANSCODE_API_TOKEN` of the 32+ bytes the worker requires.
    static let apiToken = "daemon-test-api-token-0123456789abcdef"

    /// A database, a storage folder with the two-section sample, and helpers to start workers.
    final class Harness: @unchecked Sendable {
        let db: TestDatabase
        let storageDir: String
        let storage: FileObjectStore
        let store: QueueStore
        var workers: [BackgroundProgram] = []

        init() throws {
            db = try TestDatabase()
            storageDir = NSTemporaryDirectory() + "daemon-tests-" + UUID().uuidString
            try FileManager.default.createDirectory(atPath: storageDir, withIntermediateDirectories: true)
            storage = try FileObjectStore(root: storageDir)
            store = QueueStore(connection: try db.connect())
            let usdz = try Data(contentsOf: URL(fileURLWithPath: WorkerDaemonTests.samples + "/parametric_two_sections.usdz"))
            let json = try Data(contentsOf: URL(fileURLWithPath: WorkerDaemonTests.samples + "/parametric_two_sections.json"))
            try storage.put("uploads/sample/source.usdz", bytes: [UInt8](usdz), contentType: "model/vnd.usdz+zip")
            try storage.put("uploads/sample/roomplan.json", bytes: [UInt8](json), contentType: "application/json")
        }

        /// Inserts `n` queued versions of one room, all pointing at the sample.
        func submit(_ n: Int, maxAttempts: Int? = nil) throws -> [String] {
            let room = UUID().uuidString.lowercased()
            return try (0..<n).map { _ in
                let id = UUID().uuidString.lowercased()
                try store.submit(versionId: id, roomId: room, roomName: "daemon test", usdzKey: "uploads/sample/source.usdz",
                                 jsonKey: "uploads/sample/roomplan.json", maxAttempts: maxAttempts)
                return id
            }
        }

        /// Starts `transcode-worker run` with short timings; its log goes to a file.
        func startWorker(id: String, _ extra: [String] = [], environment extraEnvironment: [String: String] = [:]) throws -> BackgroundProgram {
            let arguments = ["run", "--worker-id", id, "--lease-seconds", "3", "--heartbeat-seconds", "0.5",
                             "--rescue-seconds", "0.5", "--poll-seconds", "0.5", "--retry-base-seconds", "0",
                             "--concurrency", "1"] + extra
            var env = ProcessInfo.processInfo.environment
            env["DATABASE_URL"] = db.url
            env["TRANSCODE_STORAGE_URL"] = "file://" + storageDir
            env["TRANSCODE_WORKER_BINARY"] = nil
            // Every version reads the one shared sample: a source prefix without the version id.
            env["TRANSCODE_SOURCE_PREFIX"] = "uploads/sample/"
            // Several workers run at once: each serves HTTP on a free loopback port.
            env["TRANSCODE_HTTP_ADDR"] = "127.0.0.1:0"
            env.merge(extraEnvironment) { _, new in new }
            let p = try BackgroundProgram(
                try #require(CommandLineToolTests.binary), arguments, environment: env, standardError: logPath(id))
            workers.append(p)
            return p
        }

        /// Where `startWorker(id:)` writes the worker's log.
        func logPath(_ id: String) -> String {
            storageDir + "/../\(URL(fileURLWithPath: storageDir).lastPathComponent)-\(id).log"
        }

        /// The `HOST:PORT` a worker's HTTP server reported in its log, once it did.
        func httpAddress(_ id: String, seconds: Double) -> String? {
            let end = Date().addingTimeInterval(seconds)
            while Date() < end {
                let text = (try? String(contentsOfFile: logPath(id), encoding: .utf8)) ?? ""
                for line in text.split(separator: "\n") where line.contains("http server listening") {
                    if let obj = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                       let address = obj["address"] as? String { return address }
                }
                Thread.sleep(forTimeInterval: 0.02)
            }
            return nil
        }

        func row(_ id: String) throws -> PGRow { try #require(try store.show(versionId: id)) }

        /// Polls until `predicate` holds (true) or `seconds` pass (false).
        func waitFor(_ seconds: Double, _ predicate: () throws -> Bool) rethrows -> Bool {
            let end = Date().addingTimeInterval(seconds)
            while Date() < end {
                if try predicate() { return true }
                Thread.sleep(forTimeInterval: 0.01)
            }
            return try predicate()
        }

        func waitExit(_ p: BackgroundProgram, seconds: Double) -> Bool {
            let end = Date().addingTimeInterval(seconds)
            while p.isRunning && Date() < end { Thread.sleep(forTimeInterval: 0.02) }
            return !p.isRunning
        }

        deinit {
            for w in workers where w.isRunning { w.signal(SIGKILL); w.waitUntilExit() }
            store.connection.close()
            db.drop()
            try? FileManager.default.removeItem(atPath: storageDir)
        }
    }

    /// Counts `ready` events per version on the events channel, from a connection of its own.
    final class EventCounter: @unchecked Sendable {
        let conn: PGConnection
        var ready: [String: Int] = [:]
        init(url: String) throws {
            conn = try PGConnection(url: url)
            try conn.listen(SchemaCatalog.eventsChannel)
        }
        func drain(for seconds: Double) throws {
            let end = Date().addingTimeInterval(seconds)
            repeat {
                for n in try conn.waitForNotifications(timeout: 0.05) {
                    guard let obj = try? JSONSerialization.jsonObject(with: Data(n.payload.utf8)) as? [String: Any],
                          obj["event"] as? String == "ready",
                          let payload = obj["payload"] as? [String: Any], let id = payload["version_id"] as? String
                    else { continue }
                    ready[id, default: 0] += 1
                }
            } while Date() < end
        }
    }

    @Test func drainsTheQueueAndExitsWhenIdle() throws {
        let h = try Harness()
        let ids = try h.submit(4)
        let events = try EventCounter(url: h.db.url)
        let w = try h.startWorker(id: "idle-a", ["--concurrency", "2", "--exit-when-idle"])
        #expect(h.waitExit(w, seconds: 300))
        #expect(w.terminationStatus == 0)
        try events.drain(for: 0.3)
        for id in ids {
            let r = try h.row(id)
            #expect(r["status"] == "ready")
            #expect(r.int("output_revision") == 1)
            #expect(r.int("attempt") == 1)
            let glb = try #require(r["glb_path"])
            #expect(glb.hasPrefix("rooms/\(r["room_id"]!)/versions/\(id)/r1-"))
            #expect(try h.storage.size(glb) ?? 0 > 1000)
            #expect(events.ready[id] == 1)
        }
    }

    @Test func aKilledWorkersJobIsFinishedElsewhereExactlyOnce() throws {
        let h = try Harness()
        let id = try h.submit(1)[0]
        let events = try EventCounter(url: h.db.url)
        let a = try h.startWorker(id: "doomed")
        #expect(try h.waitFor(120) { try h.row(id)["locked_by"] == "doomed" })
        a.signal(SIGKILL)
        a.waitUntilExit()
        #expect(try h.row(id)["status"] == "transcoding")
        let b = try h.startWorker(id: "survivor", ["--exit-when-idle"])
        #expect(h.waitExit(b, seconds: 300))
        #expect(b.terminationStatus == 0)
        try events.drain(for: 0.3)
        let r = try h.row(id)
        #expect(r["status"] == "ready")
        #expect(r.int("output_revision") == 1)
        #expect(r.int("attempt") == 2)
        #expect(r["errors"]?.contains("LEASE_EXPIRED") == true)
        #expect(events.ready[id] == 1)
        // Only the winning attempt's outputs were published.
        let published = try h.storage.list(prefix: "rooms/\(r["room_id"]!)/versions/\(id)/")
        let prefixes = Set(published.map { $0.split(separator: "/").prefix(5).joined(separator: "/") })
        #expect(prefixes.count == 1)
    }

    @Test func sigtermGivesTheJobBackWithoutBurningAnAttempt() throws {
        let h = try Harness()
        let id = try h.submit(1)[0]
        let w = try h.startWorker(id: "leaving", ["--shutdown-grace-seconds", "0"])
        #expect(try h.waitFor(120) { try h.row(id)["locked_by"] == "leaving" })
        w.signal(SIGTERM)
        #expect(h.waitExit(w, seconds: 30))
        #expect(w.terminationStatus == 0)
        let r = try h.row(id)
        if r["status"] == "ready" { return }  // the job won the race with the signal: nothing to give back
        #expect(r["status"] == "queued")
        #expect(r.int("attempt") == 0)
        #expect(r["lease_id"] == nil)
        #expect(r["errors"]?.contains("WORKER_SHUTDOWN") == true)
    }

    @Test func sigtermWithGraceLetsTheRunningJobFinish() throws {
        let h = try Harness()
        let ids = try h.submit(2)
        let w = try h.startWorker(id: "graceful", ["--shutdown-grace-seconds", "300"])
        #expect(try h.waitFor(120) { try h.row(ids[0])["locked_by"] == "graceful" })
        w.signal(SIGTERM)
        #expect(h.waitExit(w, seconds: 300))
        #expect(w.terminationStatus == 0)
        #expect(try h.row(ids[0])["status"] == "ready")
        // Draining claims nothing new.
        let second = try h.row(ids[1])
        #expect(second["status"] == "queued")
        #expect(second.int("attempt") == 0)
    }

    @Test func theHTTPServerAnswersProbesMetricsAndTheAPI() throws {
        let h = try Harness()
        let id = try h.submit(1)[0]
        let w = try h.startWorker(id: "served", environment: ["TRANSCODE_API_TOKEN": Self.apiToken])
        let address = try #require(h.httpAddress("served", seconds: 60))
        let base = "http://" + address
        func get(_ path: String) throws -> HTTPResponse {
            try HTTPClient().send(HTTPRequest(method: "GET", url: base + path, timeout: 10))
        }
        #expect(try get("/livez").status == 200)
        #expect(try get("/readyz").status == 200)
        #expect(try h.waitFor(120) { try h.row(id)["status"] == "ready" })
        var metrics = ""
        _ = try h.waitFor(10) {
            metrics = String(decoding: try get("/metrics").body, as: UTF8.self)
            return metrics.contains("transcode_jobs_total{outcome=\"ready\",reason=\"none\"} 1\n")
        }
        #expect(metrics.contains("transcode_jobs_total{outcome=\"ready\",reason=\"none\"} 1\n"))
        #expect(metrics.contains("transcode_phase_duration_seconds_count{phase=\"parsing\"} 1\n"))
        #expect(metrics.contains("transcode_jobs_in_flight 0\n"))
        let show = try HTTPClient().send(HTTPRequest(method: "GET", url: base + "/v1/versions/\(id)",
                                                     headers: [("Authorization", "Bearer \(Self.apiToken)")], timeout: 10))
        #expect(show.status == 200)
        w.signal(SIGTERM)
        #expect(h.waitExit(w, seconds: 30))
        #expect(w.terminationStatus == 0)
    }

    @Test func aSecondSignalStopsAtOnce() throws {
        let h = try Harness()
        let id = try h.submit(1)[0]
        let w = try h.startWorker(id: "impatient", ["--shutdown-grace-seconds", "600"])
        #expect(try h.waitFor(120) { try h.row(id)["locked_by"] == "impatient" })
        w.signal(SIGTERM)
        Thread.sleep(forTimeInterval: 0.05)
        w.signal(SIGINT)
        #expect(h.waitExit(w, seconds: 30))
        let r = try h.row(id)
        #expect(r["lease_id"] == nil)
        #expect(r["status"] == "ready" || (r["status"] == "queued" && r.int("attempt") == 0))
    }
}
