import Foundation
import TestSupport
import Testing
@testable import TranscodeWorker
@testable import JSONCore
@testable import ObjectStorage
@testable import PGQueue

#if canImport(Glibc)
import Glibc
@testable import WorkerCore
#endif

/// A fresh database deployed as a Supabase project has it (`SupabaseStandIn.deploy`), with one
/// open connection; dropped when released.
final class SupabaseProject {
    let db: TestDatabase
    let connection: PGConnection

    /// `through`: deploy only the migration files up to that migration (an older schema).
    init(through: Int? = nil) throws {
        db = try TestDatabase(migrate: false)
        connection = try db.connect()
        try SupabaseStandIn.deploy(on: connection, through: through)
    }

    deinit {
        connection.close()
        db.drop()
    }
}

@Suite("Supabase backend SQL (supabase/migrations) on real Postgres", .enabled(if: postgresConfigured), .serialized)
struct SupabaseBackendSQLTests {
    /// One generated file per release (the Supabase CLI applies a file once, by name): each is
    /// `migrate --print-sql --from A --through B` of its range, and the ranges follow each other
    /// from 1 to the last migration, so existing projects upgrade through the newest file.
    @Test func shippedMigrationsAreTheGeneratedScripts() throws {
        let generated = try SupabaseStandIn.migrationFiles().filter { $0.name.contains("_transcode_worker") && !$0.name.hasSuffix("_access.sql") }
        try #require(!generated.isEmpty)
        var next = 1
        for file in generated {
            let header = try #require(file.sql.split(separator: "\n").first.map(String.init))
            let numbers = header.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .punctuationCharacters)) }
            let from = try #require(numbers.first), through = try #require(numbers.last)
            #expect(from == next, "\(file.name) starts at migration \(from), expected \(next)")
            let flags = (from > 1 ? " --from \(from)" : "") + " --through \(through)"
            #expect(file.sql == Migrator.script(from: from, through: through),
                    "regenerate with: transcode-worker migrate --print-sql\(flags) > supabase/migrations/\(file.name)")
            next = through + 1
        }
        #expect(next == (SchemaCatalog.migrations.map(\.version).max() ?? 0) + 1, "the newest migrations have no file in supabase/migrations")
        #expect(Migrator.script(from: 4).contains("-- Migration 4:"))
        #expect(!Migrator.script(from: 4).contains("-- Migration 3:"))
        #expect(!Migrator.script(through: 4).contains("-- Migration 5:"))
    }

    @Test func deployedLikeTheSupabaseCLIThenTheWorkerFindsNothingToDo() throws {
        let project = try SupabaseProject()
        let c = project.connection
        defer { withExtendedLifetime(project) {} }
        #expect(try Migrator.appliedVersions(c) == SchemaCatalog.migrations.map(\.version))
        #expect(try Migrator.migrate(c).applied.isEmpty)
        // Deploying the newest file again (a re-run migration) changes nothing and fails nothing.
        // Files before migration 15 address `room_versions` in `public`, where the app's view now
        // stands: the CLI applies each file once, by name, and never runs them again.
        try SupabaseStandIn.deploy(on: c, after: 14)
        #expect(try Migrator.appliedVersions(c) == SchemaCatalog.migrations.map(\.version))
    }

    @Test func terminalEventsReachRealtimeIfAndOnlyIfTheChangeCommits() throws {
        let project = try SupabaseProject()
        let db = project.db, c = project.connection
        defer { withExtendedLifetime(project) {} }
        let store = QueueStore(connection: c)
        let room = UUID().uuidString.lowercased()
        let topic = "room:\(room)"
        let listener = try db.connect()
        defer { listener.close() }
        try listener.listen(SchemaCatalog.eventsChannel)

        // Ready: one private `ready` message, and the same event on pg_notify.
        let v1 = UUID().uuidString.lowercased()
        try store.submit(versionId: v1, roomId: room, roomName: nil, usdzKey: "u/\(v1).usdz", jsonKey: nil)
        let job1 = try #require(try store.claim(workerId: "tw-sql", leaseSeconds: 60))
        let outputs = JSONValue.object([
            "glb_path": .string(job1.outputPrefix + "model.glb"), "manifest_path": .string(job1.outputPrefix + "layer_manifest.json"),
            "thumbnails": .array([
                .object(["path": .string(job1.outputPrefix + "thumbs/card.webp"), "kind": .string("card")]),
                .object(["path": .string(job1.outputPrefix + "thumbs/hero.webp"), "kind": .string("hero")]),
            ]),
            "manifest_schema_version": .int(1),
        ])
        // Rolled back: nothing is sent, nothing changes.
        try c.query("BEGIN")
        #expect(try store.finalize(versionId: v1, leaseId: job1.leaseId, status: "ready", outputs: outputs).ok)
        try c.query("ROLLBACK")
        #expect(try SupabaseStandIn.messages(c, topic: topic).isEmpty)
        #expect(try listener.waitForNotifications(timeout: 0.3).isEmpty)
        #expect(try store.show(versionId: v1)?["status"] == "transcoding")

        #expect(try store.finalize(versionId: v1, leaseId: job1.leaseId, status: "ready", outputs: outputs).ok)
        var messages = try SupabaseStandIn.messages(c, topic: topic)
        #expect(messages.count == 1)
        #expect(messages.first?.event == "ready")
        #expect(messages.first?.isPrivate == false)
        #expect(messages.first?.payload["schema"] as? String == "transcode-ready/v1")
        #expect(messages.first?.payload["version_id"] as? String == v1)
        #expect((messages.first?.payload["output_revision"] as? NSNumber)?.intValue == 1)
        let notes = try listener.waitForNotifications(timeout: 2)
        #expect(notes.count == 1)
        #expect(notes.first?.payload.contains("\"event\": \"ready\"") == true || notes.first?.payload.contains("\"event\":\"ready\"") == true)
        // The hero thumbnail becomes thumbnail_path when the caller names none.
        #expect(try store.show(versionId: v1)?["thumbnail_path"] == job1.outputPrefix + "thumbs/hero.webp")
        // A replay is answered as such and sends nothing more.
        let replay = try store.finalize(versionId: v1, leaseId: job1.leaseId, status: "ready", outputs: outputs)
        #expect(replay.ok && replay.idempotentReplay)
        #expect(try SupabaseStandIn.messages(c, topic: topic).count == 1)

        // Failed and cancelled: `failed` messages.
        let v2 = UUID().uuidString.lowercased()
        try store.submit(versionId: v2, roomId: room, roomName: nil, usdzKey: "u/\(v2).usdz", jsonKey: nil)
        let job2 = try #require(try store.claim(workerId: "tw-sql", leaseSeconds: 60))
        #expect(try store.finalize(versionId: v2, leaseId: job2.leaseId, status: "failed", error: .object([
            "reason": .string("USDZ_PARSE_ERROR"), "message": .string("no mesh"), "phase": .string("parsing"), "retryable": .bool(false),
        ])).ok)
        let v3 = UUID().uuidString.lowercased()
        try store.submit(versionId: v3, roomId: room, roomName: nil, usdzKey: "u/\(v3).usdz", jsonKey: nil)
        #expect(try store.cancel(versionId: v3).ok)
        messages = try SupabaseStandIn.messages(c, topic: topic)
        #expect(messages.map(\.event) == ["ready", "failed", "failed"])
        #expect(messages.allSatisfy { !$0.isPrivate })
        let reasons = messages.dropFirst().map { $0.payload["reason"] as? String }
        #expect(reasons == ["USDZ_PARSE_ERROR", "CANCELLED"])
        #expect(messages.dropFirst().allSatisfy { $0.payload["error"] as? String == "ROOM_TRANSCODE_FAILED" })

        // Private channels are a database setting: the same events, `private` true.
        try c.query("SELECT set_config('transcode.realtime_private', 'on', false)")
        let v4 = UUID().uuidString.lowercased()
        try store.submit(versionId: v4, roomId: room, roomName: nil, usdzKey: "u/\(v4).usdz", jsonKey: nil)
        #expect(try store.cancel(versionId: v4).ok)
        #expect(try store.realtimePrivate())
        #expect(try SupabaseStandIn.messages(c, topic: topic).last?.isPrivate == true)
        try c.query("SELECT set_config('transcode.realtime_private', '', false)")
    }

    @Test func onlyTheServiceRoleMayFinalize() throws {
        let project = try SupabaseProject()
        let c = project.connection
        defer { withExtendedLifetime(project) {} }
        let probe = "SELECT transcode_finalize(gen_random_uuid(), gen_random_uuid(), 'ready', '{}'::jsonb, NULL)::text AS r"
        for role in ["anon", "authenticated"] {
            try c.query("SET ROLE \(role)")
            #expect(throws: DatabaseError.self) { try c.query(probe) }
            try c.query("RESET ROLE")
        }
        try c.query("GRANT USAGE ON SCHEMA public TO service_role")
        try c.query("GRANT SELECT, UPDATE ON room_versions TO service_role")
        try c.query("SET ROLE service_role")
        let answer = try c.query(probe).first?["r"]
        try c.query("RESET ROLE")
        #expect(answer?.contains("VERSION_NOT_FOUND") == true)
    }
}

@Suite("Full job flow in Supabase mode: Postgres, S3, transcode-done and broadcasts over HTTP",
       .enabled(if: postgresConfigured && s3Configured), .serialized)
struct SupabaseFlowTests {
    static let serviceKey = "sb_secret_flowtest0123456789"
    static let callbackSecret = "callback-secret-4d1f-0123456789abcdef"

    @Test func claimDownloadConvertUploadReportAndBroadcast() throws {
        let binary = try #require(JobFixture.workerBinary, "the transcode-worker executable is not built beside the tests")
        let project = try SupabaseProject()
        let db = project.db, c = project.connection
        defer { withExtendedLifetime(project) {} }

        // Sources in S3, a queued version pointing at them.
        let s3 = try TestS3.makeStore(prefix: "", pageSize: nil)
        let room = UUID().uuidString.lowercased(), version = UUID().uuidString.lowercased()
        let usdzKey = "rooms/\(room)/versions/\(version)/scan.usdz", jsonKey = "rooms/\(room)/versions/\(version)/room.json"
        try s3.put(usdzKey, bytes: try JobFixture.sample(JobFixture.sampleUSDZ), contentType: "model/vnd.usdz+zip")
        try s3.put(jsonKey, bytes: try JobFixture.sample(JobFixture.sampleJSON), contentType: "application/json")
        try QueueStore(connection: c).submit(versionId: version, roomId: room, roomName: "flow", usdzKey: usdzKey, jsonKey: jsonKey)

        // The Supabase project: Edge Function and Realtime REST on one loopback server.
        let databaseURL = db.url
        let server = try LoopbackHTTPServer { request in
            switch request.path {
            case "/functions/v1/transcode-done":
                return SupabaseStandIn.transcodeDone(request, secret: Self.callbackSecret, databaseURL: databaseURL)
            case "/realtime/v1/api/broadcast":
                return (202, [], [])
            default:
                return (404, [], [])
            }
        }
        defer { server.stop() }

        // The worker, configured through its environment as in production.
        let logPath = FileManager.default.temporaryDirectory.appendingPathComponent("flow-\(version).log").path
        defer { try? FileManager.default.removeItem(atPath: logPath) }
        var env = ProcessInfo.processInfo.environment
        env.merge([
            "DATABASE_URL": db.url,
            "TRANSCODE_STORAGE_URL": "s3://\(s3.bucket)/?endpoint=\(try #require(TestS3.endpoint))&region=us-east-1&query_slash=literal",
            "SUPABASE_URL": server.baseURL, "SUPABASE_SERVICE_KEY": Self.serviceKey,
            "TRANSCODE_DONE_SECRET": Self.callbackSecret,
            "TRANSCODE_HTTP_ADDR": "off", "TRANSCODE_CONCURRENCY": "1", "TRANSCODE_POLL_SECONDS": "0.2",
            "TRANSCODE_HEARTBEAT_SECONDS": "0.5", "TRANSCODE_LEASE_SECONDS": "20", "TRANSCODE_PROGRESS_INTERVAL_SECONDS": "0",
            "TRANSCODE_WORKER_ID": "tw-flow", "TRANSCODE_LOG_LEVEL": "info",
        ]) { _, new in new }
        let process = try BackgroundProgram(binary, ["run", "--exit-when-idle"], environment: env, standardError: logPath)
        let deadline = Date().addingTimeInterval(180)
        while process.isRunning && Date() < deadline { usleep(100_000) }
        if process.isRunning { process.signal(SIGTERM); process.waitUntilExit() }
        let log = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        #expect(process.terminationStatus == 0, "worker log:\n\(log.suffix(4000))")

        // The version is ready, once, with outputs in S3 under the attempt's prefix.
        let row = try #require(try QueueStore(connection: c).show(versionId: version))
        #expect(row["status"] == "ready", "worker log:\n\(log.suffix(4000))")
        #expect(row["output_revision"] == "1")
        #expect(row["lease_id"] == nil)
        let glbPath = try #require(row["glb_path"])
        let prefix = "rooms/\(room)/versions/\(version)/r1-"
        #expect(glbPath.hasPrefix(prefix) && glbPath.hasSuffix("/model.glb"))
        let glb = try s3.get(glbPath, maxBytes: 1 << 26)
        #expect(Array(glb.prefix(4)) == Array("glTF".utf8))
        let stored = try s3.list(prefix: "rooms/\(room)/")
        #expect(stored.contains(try #require(row["manifest_path"])))
        #expect(stored.contains { $0.hasSuffix("/thumbs/plan.webp") })

        // transcode-done: once, with the contract's headers and body.
        let done = server.requests.filter { $0.path == "/functions/v1/transcode-done" }
        #expect(done.count == 1)
        let d = try #require(done.first)
        #expect(d.method == "POST")
        #expect(d.headers["apikey"] == Self.serviceKey)
        #expect(d.headers["authorization"] == "Bearer \(Self.callbackSecret)")
        #expect(d.headers["content-type"] == "application/json")
        #expect(d.headers["x-worker-id"] == "tw-flow")
        let body = try #require(try JSONSerialization.jsonObject(with: Data(d.body)) as? [String: Any])
        let lease = try #require(body["lease"] as? [String: Any])
        #expect(d.headers["idempotency-key"] == "\(version):\(lease["lease_id"] as? String ?? "")")
        #expect(body["status"] as? String == "ready")
        let outputs = try #require(body["outputs"] as? [String: Any])
        #expect(outputs["bucket"] as? String == s3.bucket)
        #expect(outputs["glb_path"] as? String == glbPath)
        #expect(outputs["glb_sha256"] as? String == Digest.hex(Digest.sha256(glb)))
        #expect((outputs["glb_bytes"] as? NSNumber)?.intValue == glb.count)

        // Progress: Realtime REST broadcasts in order, then the terminal event from the database.
        let broadcasts = server.requests.filter { $0.path == "/realtime/v1/api/broadcast" }
        var steps: [String] = [], seqs: [Int] = [], progress: [Double] = [], ids: Set<String> = []
        for b in broadcasts {
            #expect(b.method == "POST")
            #expect(b.headers["apikey"] == Self.serviceKey)
            #expect(b.headers["authorization"] == nil, "an sb_secret_ key is not a JWT: apikey only")
            #expect(b.headers["content-type"] == "application/json")
            let messages = try #require((try JSONSerialization.jsonObject(with: Data(b.body)) as? [String: Any])?["messages"] as? [[String: Any]])
            #expect(messages.count == 1)
            let m = try #require(messages.first)
            #expect(m["topic"] as? String == "room:\(room)")
            #expect(m["event"] as? String == "transcode_progress")
            #expect(m["private"] as? Bool == false, "public channels by default: the app's code joins room:<id> without isPrivate")
            if let id = m["id"] as? String { ids.insert(id) }
            let p = try #require(m["payload"] as? [String: Any])
            #expect(p["schema"] as? String == "transcode-progress/v1")
            #expect(p["version_id"] as? String == version)
            #expect(p["phase"] as? String == "transcoding")
            #expect(p["status"] as? String == "transcoding")
            if steps.last != p["step"] as? String { steps.append(p["step"] as? String ?? "?") }
            progress.append((p["progress"] as? NSNumber)?.doubleValue ?? -1)
            seqs.append((p["seq"] as? NSNumber)?.intValue ?? -1)
            #expect(p["glb_path"] == nil)
        }
        #expect(steps == ["parsing", "layering", "preview"], "each step once, in order")
        #expect(progress == progress.sorted() && Set(progress).count == progress.count && progress.allSatisfy { $0 > 0 && $0 < 1 })
        let first = seqs.first ?? 0
        #expect(first == 1, "the first lease's block starts at 1")
        #expect(seqs == Array(first..<(first + broadcasts.count)))
        #expect(ids.count == broadcasts.count)
        // `ready` once, or repeated for late subscribers with the same payload and seq.
        let messages = try SupabaseStandIn.messages(c, topic: "room:\(room)")
        #expect(!messages.isEmpty && messages.allSatisfy { $0.event == "ready" })
        #expect(Set(messages.map { ($0.payload["seq"] as? NSNumber)?.intValue ?? -1 }).count == 1)
        #expect(messages.first?.payload["glb_path"] == nil, "clients read \(glbPath) from the row")
        #expect((messages.first?.payload["seq"] as? NSNumber)?.intValue == SchemaCatalog.eventSeqBlock + 1)
        #expect(messages.first?.isPrivate == false)
    }
}
