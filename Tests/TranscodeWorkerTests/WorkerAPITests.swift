import Foundation
import Testing
import TestSupport
@testable import TranscodeWorker
@testable import ObjectStorage
@testable import PGQueue
@testable import WorkerHTTP
@testable import WorkerRuntime

/// The worker's HTTP API over real loopback (libmicrohttpd on 127.0.0.1, an ephemeral port)
/// against a real database.
@Suite("Worker HTTP API", .enabled(if: postgresConfigured), .serialized)
struct WorkerAPITests {
    static let token = "t0ken-for-tests-0123456789abcdef-xyz"

    /// A database, a server on a free port, and a switchable draining flag.
    final class Harness: @unchecked Sendable {
        let db: TestDatabase
        let connection: PGConnection
        let metrics = Metrics()
        let api: WorkerAPI
        let server: HTTPServer
        let drain = DrainBox()

        init(token: String? = WorkerAPITests.token) throws {
            db = try TestDatabase()
            connection = try db.connect()
            let box = drain
            api = WorkerAPI(databaseURL: db.url, apiToken: token, metrics: metrics,
                            logger: JSONLogger(workerId: "api-test", minimum: .error, fd: TestOutput.logFD), isDraining: { box.value })
            server = try HTTPServer(address: "127.0.0.1:0", handler: api.handle)
        }

        func close() {
            server.stop()
            api.close()
            connection.close()
            db.drop()
        }

        /// Inserts a version in `status` and returns its id.
        func insert(status: String) throws -> String {
            let room = UUID().uuidString.lowercased(), version = UUID().uuidString.lowercased()
            try connection.query("INSERT INTO rooms (id) VALUES ($1::uuid)", [room])
            try connection.query("""
                INSERT INTO transcode_private.room_versions (id, room_id, status, source_usdz_path, source_json_path, glb_path, manifest_path,
                                           manifest_schema_version)
                VALUES ($1::uuid, $2::uuid, $3::room_version_status, 'a/source.usdz', 'a/roomplan.json',
                        CASE WHEN $3 = 'ready' THEN 'o/room.glb' END, CASE WHEN $3 = 'ready' THEN 'o/manifest.json' END,
                        CASE WHEN $3 = 'ready' THEN 1 END)
                """, [version, room, status])
            return version
        }

        /// Sends a request; `auth` nil sends no Authorization header.
        func send(_ method: String, _ path: String, body: String? = nil, rawBody: [UInt8]? = nil,
                  auth: String? = "Bearer " + WorkerAPITests.token) throws -> HTTPResponse {
            var headers: [(String, String)] = []
            if let auth { headers.append(("Authorization", auth)) }
            let bytes = rawBody ?? body.map { Array($0.utf8) } ?? []
            if !bytes.isEmpty { headers.append(("Content-Type", "application/json")) }
            return try HTTPClient().send(HTTPRequest(method: method, url: server.url(path), headers: headers, body: bytes, timeout: 10))
        }
    }

    /// A flag the test flips while the server reads it.
    final class DrainBox: @unchecked Sendable {
        private let lock = NSLock()
        private var flag = false
        var value: Bool {
            get { lock.lock(); defer { lock.unlock() }; return flag }
            set { lock.lock(); flag = newValue; lock.unlock() }
        }
    }

    static func json(_ r: HTTPResponse) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(r.body)) as? [String: Any])
    }

    @Test func probes() throws {
        let h = try Harness()
        defer { h.close() }
        #expect(h.server.port > 0)
        let live = try h.send("GET", "/livez", auth: nil)
        #expect(live.status == 200)
        #expect(try Self.json(live)["status"] as? String == "ok")
        let ready = try h.send("GET", "/readyz", auth: nil)
        #expect(ready.status == 200)
        #expect(try Self.json(ready)["status"] as? String == "ready")
        h.drain.value = true
        let draining = try h.send("GET", "/readyz", auth: nil)
        #expect(draining.status == 503)
        #expect(try Self.json(draining)["status"] as? String == "draining")
        #expect(try h.send("GET", "/livez", auth: nil).status == 200)
        #expect(try h.send("POST", "/livez", auth: nil).status == 405)
        #expect(try h.send("GET", "/nope", auth: nil).status == 404)
    }

    @Test func readyzReportsAnUnreachableDatabase() throws {
        let api = WorkerAPI(databaseURL: "postgresql://postgres@127.0.0.1:1/none", apiToken: nil, metrics: Metrics(),
                            logger: JSONLogger(workerId: "api-test", minimum: .error, fd: TestOutput.logFD), isDraining: { false })
        let server = try HTTPServer(address: "127.0.0.1:0", handler: api.handle)
        defer { server.stop() }
        let r = try HTTPClient().send(HTTPRequest(method: "GET", url: server.url("/readyz"), timeout: 10))
        #expect(r.status == 503)
        #expect(try Self.json(r)["status"] as? String == "db_unavailable")
    }

    @Test func metricsText() throws {
        let h = try Harness()
        defer { h.close() }
        _ = try h.insert(status: "queued")
        h.metrics.jobFinished(outcome: "failed", reason: "PARSE_FAILED")
        h.metrics.observePhase("parsing", seconds: 0.3)
        h.metrics.retried()
        h.metrics.leaseWasLost()
        h.metrics.setInFlight(2)
        let r = try h.send("GET", "/metrics", auth: nil)
        #expect(r.status == 200)
        #expect(r.headers["content-type"]?.hasPrefix("text/plain; version=0.0.4") == true)
        let text = String(decoding: r.body, as: UTF8.self)
        for (name, type) in [("transcode_jobs_total", "counter"), ("transcode_phase_duration_seconds", "histogram"),
                             ("transcode_queue_depth", "gauge"), ("transcode_queue_oldest_age_seconds", "gauge"),
                             ("transcode_jobs_in_flight", "gauge"), ("transcode_retries_total", "counter"),
                             ("transcode_lease_lost_total", "counter")] {
            #expect(text.contains("# HELP \(name) "), "\(name)")
            #expect(text.contains("# TYPE \(name) \(type)\n"), "\(name)")
        }
        #expect(text.contains("transcode_jobs_total{outcome=\"failed\",reason=\"PARSE_FAILED\"} 1\n"))
        #expect(text.contains("transcode_phase_duration_seconds_bucket{phase=\"parsing\",le=\"0.25\"} 0\n"))
        #expect(text.contains("transcode_phase_duration_seconds_bucket{phase=\"parsing\",le=\"0.5\"} 1\n"))
        #expect(text.contains("transcode_phase_duration_seconds_bucket{phase=\"parsing\",le=\"+Inf\"} 1\n"))
        #expect(text.contains("transcode_phase_duration_seconds_count{phase=\"parsing\"} 1\n"))
        #expect(text.contains("transcode_queue_depth{status=\"queued\"} 1\n"))
        #expect(text.contains("transcode_jobs_in_flight 2\n"))
        #expect(text.contains("transcode_retries_total 1\n"))
        #expect(text.contains("transcode_lease_lost_total 1\n"))
        #expect(text.hasSuffix("\n"))
    }

    @Test func v1Authorization() throws {
        let h = try Harness()
        defer { h.close() }
        let id = try h.insert(status: "uploading")
        let body = #"{"version_id":"\#(id)"}"#
        let missing = try h.send("POST", "/v1/enqueue", body: body, auth: nil)
        #expect(missing.status == 401)
        #expect(try Self.json(missing)["error"] as? String == "UNAUTHORIZED")
        #expect(try h.send("POST", "/v1/enqueue", body: body, auth: "Bearer wrong").status == 401)
        #expect(try h.send("POST", "/v1/enqueue", body: body, auth: "Bearer " + Self.token + "x").status == 401)
        #expect(try h.send("POST", "/v1/enqueue", body: body, auth: Self.token).status == 401)
        #expect(try h.send("POST", "/v1/enqueue", body: body).status == 202)

        let off = try Harness(token: nil)
        defer { off.close() }
        let disabled = try off.send("POST", "/v1/enqueue", body: body)
        #expect(disabled.status == 503)
        #expect(try Self.json(disabled)["error"] as? String == "API_DISABLED")
    }

    @Test func enqueueContract() throws {
        let h = try Harness()
        defer { h.close() }
        let id = try h.insert(status: "uploading")
        let first = try h.send("POST", "/v1/enqueue", body: #"{"version_id":"\#(id)","reason":"upload_complete"}"#)
        #expect(first.status == 202)
        let a = try Self.json(first)
        #expect(a["version_id"] as? String == id)
        #expect(a["status"] as? String == "queued")
        #expect(a["attempt"] as? Int == 0)
        #expect(a["deduplicated"] as? Bool == false)
        let second = try h.send("POST", "/v1/enqueue", body: #"{"version_id":"\#(id)"}"#)
        #expect(second.status == 200)
        let b = try Self.json(second)
        #expect(b["status"] as? String == "queued")
        #expect(b["deduplicated"] as? Bool == true)

        let unknown = try h.send("POST", "/v1/enqueue", body: #"{"version_id":"\#(UUID().uuidString.lowercased())"}"#)
        #expect(unknown.status == 404)
        #expect(try Self.json(unknown)["error"] as? String == "VERSION_NOT_FOUND")
        #expect(try h.send("POST", "/v1/enqueue", body: #"{"version_id":"not-a-uuid"}"#).status == 404)

        // A late re-sent upload-complete for a version already handled is answered as a duplicate.
        for status in ["ready", "failed"] {
            let done = try h.insert(status: status)
            let again = try h.send("POST", "/v1/enqueue", body: #"{"version_id":"\#(done)"}"#)
            #expect(again.status == 200)
            #expect(try Self.json(again)["status"] as? String == status)
            #expect(try Self.json(again)["deduplicated"] as? Bool == true)
        }

        h.drain.value = true
        let draining = try h.send("POST", "/v1/enqueue", body: #"{"version_id":"\#(id)"}"#)
        #expect(draining.status == 503)
        #expect(draining.headers["retry-after"] == "5")
        #expect(try Self.json(draining)["error"] as? String == "DRAINING")
    }

    @Test func badRequests() throws {
        let h = try Harness()
        defer { h.close() }
        let malformed = try h.send("POST", "/v1/enqueue", body: #"{"version_id": "#)
        #expect(malformed.status == 400)
        #expect(try Self.json(malformed)["error"] as? String == "MALFORMED_JSON")
        #expect(try h.send("POST", "/v1/enqueue", body: "{}").status == 400)
        #expect(try h.send("POST", "/v1/reprocess", body: "[1,2]").status == 400)

        let big = try h.send("POST", "/v1/enqueue", rawBody: [UInt8](repeating: UInt8(ascii: " "), count: 17 * 1024))
        #expect(big.status == 413)
        #expect(try Self.json(big)["error"] as? String == "PAYLOAD_TOO_LARGE")
        // A body at the limit is read.
        let atLimit = try h.send("POST", "/v1/enqueue", rawBody: [UInt8](repeating: UInt8(ascii: " "), count: 16 * 1024))
        #expect(atLimit.status == 400)

        #expect(try h.send("GET", "/v1/enqueue").status == 405)
        #expect(try h.send("DELETE", "/v1/versions/\(UUID().uuidString.lowercased())").status == 405)
        #expect(try h.send("POST", "/v1/unknown").status == 404)
        #expect(try h.send("POST", "/v1/versions/x/explode").status == 404)
    }

    @Test func adminActions() throws {
        let h = try Harness()
        defer { h.close() }
        // Retry: only failed versions.
        let failed = try h.insert(status: "failed")
        let retry = try h.send("POST", "/v1/versions/\(failed)/retry")
        #expect(retry.status == 202)
        #expect(try h.connection.query("SELECT status::text AS s, priority FROM transcode_private.room_versions WHERE id = $1::uuid", [failed])
            .first?["s"] == "queued")
        let again = try h.send("POST", "/v1/versions/\(failed)/retry")
        #expect(again.status == 409)
        #expect(try Self.json(again)["status"] as? String == "queued")
        #expect(try h.send("POST", "/v1/versions/\(UUID().uuidString.lowercased())/retry").status == 404)

        // Cancel a queued version: not running.
        let cancel = try h.send("POST", "/v1/versions/\(failed)/cancel")
        #expect(cancel.status == 202)
        #expect(try Self.json(cancel)["running"] as? Bool == false)
        #expect(try h.send("POST", "/v1/versions/\(UUID().uuidString.lowercased())/cancel").status == 404)

        // Reprocess one ready version, then not again.
        let ready = try h.insert(status: "ready")
        #expect(try h.send("POST", "/v1/versions/\(ready)/reprocess").status == 202)
        let twice = try h.send("POST", "/v1/versions/\(ready)/reprocess")
        #expect(twice.status == 409)

        // Batch reprocess.
        _ = try h.insert(status: "ready")
        _ = try h.insert(status: "ready")
        let batch = try h.send("POST", "/v1/reprocess", body: #"{"below_manifest_schema_version":3,"limit":1}"#)
        #expect(batch.status == 202)
        #expect(try Self.json(batch)["marked"] as? Int == 1)
        let rest = try h.send("POST", "/v1/reprocess", body: #"{"below_manifest_schema_version":3,"limit":500}"#)
        #expect(try Self.json(rest)["marked"] as? Int == 1)
        let none = try h.send("POST", "/v1/reprocess", body: #"{"below_manifest_schema_version":3,"limit":500}"#)
        #expect(try Self.json(none)["marked"] as? Int == 0)

        // Show.
        let show = try h.send("GET", "/v1/versions/\(failed)")
        #expect(show.status == 200)
        let row = try Self.json(show)
        #expect(row["id"] as? String == failed)
        #expect(row["status"] as? String == "failed")
        #expect(row["attempt"] as? Int == 0)
        #expect(row["errors"] is [Any])
        #expect(row.keys.contains("lease_expires_at"))
        #expect(row.keys.contains("run_after"))
        #expect(try h.send("GET", "/v1/versions/\(UUID().uuidString.lowercased())").status == 404)
        #expect(try h.send("GET", "/v1/versions/not-a-uuid").status == 404)
    }

    @Test func serverStopsCleanlyAndRejectsBadAddresses() throws {
        let server = try HTTPServer(address: "127.0.0.1:0") { _ in HTTPServerResponse(status: 204) }
        let url = server.url("/")
        #expect(try HTTPClient().send(HTTPRequest(method: "GET", url: url, timeout: 5)).status == 204)
        server.stop()
        server.stop()
        #expect(throws: HTTPClientError.self) { try HTTPClient().send(HTTPRequest(method: "GET", url: url, timeout: 2)) }
        for bad in ["", "8080", "host:80", "1.2.3.4:70000", "1.2.3.4:x"] {
            #expect(HTTPServer.parse(address: bad) == nil, "\(bad)")
        }
        #expect(HTTPServer.parse(address: "0.0.0.0:8080")?.port == 8080)
        #expect(HTTPServer.configuredAddress([:]) == "0.0.0.0:8080")
        #expect(HTTPServer.configuredAddress(["TRANSCODE_HTTP_ADDR": "127.0.0.1:9"]) == "127.0.0.1:9")
    }
}
