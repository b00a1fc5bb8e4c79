import Foundation
import TestSupport
import Testing
@testable import TranscodeWorker
@testable import PGQueue

/// The app joins `room:<id>` after upload-complete answers, and a RoomPlan job may be over by then.
/// Terminal events are sent again (`SchemaCatalog.terminalEventRepeatSeconds`); the repeat function
/// takes the time as a parameter, so the schedule is walked here without waiting for it.
@Suite("Late subscribers and the app's posted redactions", .enabled(if: postgresConfigured), .serialized)
struct AppLateSubscriberTests {
    /// When each `realtime.messages` row of `topic` was sent, in seconds after the first send,
    /// walking the repeat schedule in 0.1 s steps up to `horizon`.
    static func sendTimes(_ world: RoleWorld, topic: String, horizon: Double) throws -> [(at: Double, event: String, seq: String?)] {
        let c = world.connection
        let first = try #require(try c.query("SELECT first_sent_at::text AS t FROM transcode_private.event_repeats LIMIT 1").first?["t"])
        var sent: [(at: Double, event: String, seq: String?)] = try SupabaseStandIn.messages(c, topic: topic).map {
            (0, $0.event, seqOf($0.payload))
        }
        for tenth in 1...Int(horizon * 10) {
            let t = Double(tenth) / 10
            _ = try c.query("SELECT transcode_repeat_due_events($1::timestamptz + make_interval(secs => $2::double precision), 200)",
                            [first, String(t)])
            let all = try SupabaseStandIn.messages(c, topic: topic)
            for m in all.dropFirst(sent.count) { sent.append((t, m.event, seqOf(m.payload))) }
        }
        return sent
    }

    private static func seqOf(_ payload: [String: Any]) -> String? { (payload["seq"] as? NSNumber)?.stringValue }

    @Test func aSubscriberWhoJoinsAfterReadyStillHearsIt() throws {
        let world = try RoleWorld()
        defer { withExtendedLifetime(world) {} }
        let store = QueueStore(connection: world.connection)
        let topic = "room:\(world.room)"
        #expect(try store.finalize(versionId: world.runningVersion, leaseId: world.runningLease, status: "ready", outputs: .object([
            "glb_path": .string("rooms/\(world.room)/m.glb"), "manifest_path": .string("rooms/\(world.room)/m.json"),
        ])).ok)
        let sent = try Self.sendTimes(world, topic: topic, horizon: 65).filter { $0.event == "ready" }
        let times: [Double] = sent.map { ($0.at * 10).rounded() / 10 }
        let schedule: [Double] = [0] + SchemaCatalog.terminalEventRepeatSeconds.map { Double($0) }
        #expect(times == schedule)
        #expect(Set(sent.map(\.seq)).count == 1, "every repeat carries the first send's seq")
        for join in [0.2, 2, 10, 45] {
            #expect(sent.contains { $0.at >= join }, "a subscriber that joined \(join) s after ready hears it")
        }
        #expect(try world.connection.query("SELECT count(*) AS n FROM transcode_private.event_repeats").first?.int("n") == 0)
        // supabase-swift's envelope: the plan's `msg.payload["status"]` reads nil, our fields sit one level down.
        for m in try SupabaseStandIn.messages(world.connection, topic: topic) {
            let envelope = AppSubscriber.envelope(event: m.event, payload: m.payload)
            #expect(AppSubscriber.planReads(envelope) == [nil, nil, nil])
            #expect((envelope["payload"] as? [String: Any])?["version_id"] as? String == world.runningVersion)
        }
        // The app's seq rule: one subscriber who heard the first send drops every repeat.
        #expect(try AppSubscriber.hear(world.connection, topic: topic).filter { $0.event == "ready" }.count == 1)
        // The owner's private channel gets the event once, not repeated.
        let mine = try SupabaseStandIn.messages(world.connection, topic: "user:\(world.owner)")
        #expect(mine.map(\.event) == ["ready"] && mine.allSatisfy(\.isPrivate))
    }

    @Test func aRepeatStopsOnceTheVersionMovesOn() throws {
        let world = try RoleWorld()
        defer { withExtendedLifetime(world) {} }
        let store = QueueStore(connection: world.connection)
        #expect(try store.finalize(versionId: world.runningVersion, leaseId: world.runningLease, status: "failed", error: .object([
            "reason": .string("TIMEOUT"), "message": .string("x"), "retryable": .bool(true),
        ])).ok)
        #expect(try store.retryFailed(versionId: world.runningVersion))
        let sent = try Self.sendTimes(world, topic: "room:\(world.room)", horizon: 65).filter { $0.event == "failed" }
        #expect(sent.count == 1, "a stale failed is not sent again once the version is queued: \(sent)")
    }

    @Test func aReprocessSendsNothingToTheAppsChannelsButVersionUpdated() throws {
        let world = try RoleWorld()
        defer { withExtendedLifetime(world) {} }
        let store = QueueStore(connection: world.connection)
        try world.connection.query("UPDATE transcode_private.room_versions SET reprocess_requested_at = now() WHERE id = $1::uuid",
                                   [world.readyVersion])
        let job = try #require(try store.claim(workerId: "tw-re", leaseSeconds: 60))
        #expect(job.isReprocess && job.versionId == world.readyVersion)
        #expect(try store.finalize(versionId: job.versionId, leaseId: job.leaseId, status: "ready",
                                   outputs: .object(["glb_path": .string(job.outputPrefix + "model.glb"),
                                                     "manifest_path": .string(job.outputPrefix + "layer_manifest.json")])).ok)
        #expect(try SupabaseStandIn.messages(world.connection, topic: "room:\(world.room)").map(\.event)
                == [SchemaCatalog.versionUpdatedEvent])
        #expect(try SupabaseStandIn.messages(world.connection, topic: "user:\(world.owner)").isEmpty)
        #expect(try world.connection.query("SELECT count(*) AS n FROM transcode_private.event_repeats").first?.int("n") == 0)
    }

    /// The app's `Redaction`, as its plan declares it.
    struct Redaction: Codable {
        var textureRef: String
        var kind: String
        var region: CGRect
        var method: String
    }

    @Test func redactionsPostedAsTheAppEncodesThemAreStoredOnceInOneForm() throws {
        let world = try RoleWorld()
        defer { withExtendedLifetime(world) {} }
        // Vision's face box: normalised, origin at the bottom left; this one reaches past the left edge.
        let posted = [Redaction(textureRef: "0/albedo.png", kind: "face", region: CGRect(x: -0.05, y: 0.6, width: 0.25, height: 0.3),
                                method: "gaussian_blur_r18"),
                      Redaction(textureRef: "0/albedo.png", kind: "manual", region: CGRect(x: 0.5, y: 0.1, width: 0.2, height: 0.2),
                                method: "gaussian_blur_r18")]
        let json = String(decoding: try JSONEncoder().encode(posted), as: UTF8.self)
        #expect(json.contains("\"region\":[["), "Foundation writes a CGRect as [[x,y],[w,h]]: \(json)")
        #expect(json.contains("\"textureRef\""))
        let add = "SELECT transcode_add_redactions($1::uuid, $2::jsonb) AS n"
        #expect(try world.connection.query(add, [world.readyVersion, json]).first?.int("n") == 2)
        #expect(try world.connection.query(add, [world.readyVersion, json]).first?.int("n") == 0, "a re-sent upload-complete adds nothing")
        let rows = try world.connection.query("""
            SELECT texture_ref, kind, region::text AS region, region_origin, method FROM redactions
             WHERE room_version_id = $1::uuid AND kind IS NOT NULL ORDER BY kind
            """, [world.readyVersion])
        #expect(rows.map { $0["region"] } == [#"{"h": 0.3, "w": 0.2, "x": 0, "y": 0.6}"#, #"{"h": 0.2, "w": 0.2, "x": 0.5, "y": 0.1}"#])
        #expect(rows.allSatisfy { $0["region_origin"] == "bottom_left" && $0["texture_ref"] == "0/albedo.png" })
        // The other forms land in the same canonical form.
        for region in [#"{"x":0.5,"y":0.1,"width":0.2,"height":0.2}"#, #"{"x":0.5,"y":0.1,"w":0.2,"h":0.2}"#] {
            let n = try world.connection.query(add, [world.readyVersion, #"[{"textureRef":"0/albedo.png","kind":"manual","region":\#(region),"method":"gaussian_blur_r18"}]"#])
            #expect(n.first?.int("n") == 0, "\(region) is the manual box already stored")
        }
    }
}

/// The running worker sends the repeats: `transcode-worker run` against a Supabase-shaped database.
@Suite("The worker repeats terminal events", .enabled(if: postgresConfigured), .serialized)
struct EventRepeaterDaemonTests {
    @Test func aRunningWorkerSendsReadyAgainForLateSubscribers() throws {
        let binary = try #require(JobFixture.workerBinary, "the transcode-worker executable is not built beside the tests")
        let world = try RoleWorld()
        defer { withExtendedLifetime(world) {} }
        let storage = FileManager.default.temporaryDirectory.appendingPathComponent("repeat-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: storage, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: storage) }
        var env = ProcessInfo.processInfo.environment
        env.merge(["DATABASE_URL": world.project.db.url, "TRANSCODE_STORAGE_URL": "file://" + storage,
                   "TRANSCODE_HTTP_ADDR": "off", "TRANSCODE_WORKER_ID": "tw-repeat"]) { _, new in new }
        let log = storage + ".log"
        defer { try? FileManager.default.removeItem(atPath: log) }
        let worker = try BackgroundProgram(binary, ["run"], environment: env, standardError: log)
        defer { if worker.isRunning { worker.signal(SIGTERM); worker.waitUntilExit() } }
        #expect(try QueueStore(connection: world.connection).finalize(
            versionId: world.runningVersion, leaseId: world.runningLease, status: "ready",
            outputs: .object(["glb_path": .string("rooms/\(world.room)/m.glb"), "manifest_path": .string("rooms/\(world.room)/m.json")])).ok)
        let topic = "room:\(world.room)"
        let end = Date().addingTimeInterval(30)
        var ready: [(event: String, payload: [String: Any], isPrivate: Bool)] = []
        while Date() < end {
            ready = try SupabaseStandIn.messages(world.connection, topic: topic).filter { $0.event == "ready" }
            if ready.count >= 2 { break }
            usleep(100_000)
        }
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        #expect(ready.count >= 2, "the worker sent no repeat; log:\n\(text.suffix(3000))")
        #expect(Set(ready.map { ($0.payload["seq"] as? NSNumber)?.intValue ?? -1 }).count == 1)
        #expect(Set(ready.map { ($0.payload["at"] as? String) ?? "" }).count == 1, "the same payload, not a new event")
    }
}
