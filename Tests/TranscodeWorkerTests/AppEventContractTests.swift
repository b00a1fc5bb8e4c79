import Foundation
import Testing
@testable import TranscodeWorker
@testable import PGQueue
@testable import WorkerRuntime

/// The app's handlers, as supabase-swift calls them: a broadcast handler on `room:<room_id>`
/// receives the envelope `{"type": "broadcast", "event": …, "payload": {…}}`, so our fields are at
/// `msg.payload["payload"]` (the plan's `msg.payload["status"]` reads the envelope and gets nil;
/// `planReads` shows it). The app keeps the newest `seq` per version and drops what is not newer.
struct AppSubscriber {
    struct Heard: Equatable {
        var event: String
        var status: String?
        var versionId: String?
        var error: String?
        var seq: Int64?
    }

    /// supabase-swift's broadcast envelope of one `realtime.messages` row.
    static func envelope(event: String, payload: [String: Any]) -> [String: Any] {
        ["type": "broadcast", "event": event, "payload": payload]
    }

    /// What the plan's handlers read from the envelope as written (`msg.payload["status"]`, …).
    static func planReads(_ envelope: [String: Any]) -> [String?] {
        [envelope["status"] as? String, envelope["version_id"] as? String, envelope["error"] as? String]
    }

    /// What the app's handlers make of the public `realtime.messages` rows of one topic, read
    /// through the envelope (`msg.payload["payload"]`), repeats and stale events dropped by `seq`.
    static func hear(_ connection: PGConnection, topic: String) throws -> [Heard] {
        var newest: [String: Int64] = [:]
        return try SupabaseStandIn.messages(connection, topic: topic).filter { !$0.isPrivate }.compactMap { m in
            let msg = envelope(event: m.event, payload: m.payload)
            guard let event = msg["event"] as? String, let p = msg["payload"] as? [String: Any] else { return nil }
            let seq = (p["seq"] as? NSNumber)?.int64Value
            let version = p["version_id"] as? String ?? ""
            if let seq {
                if let last = newest[version], seq <= last { return nil }
                newest[version] = seq
            }
            switch event {
            case "transcode_progress": return Heard(event: event, status: p["status"] as? String, seq: seq)
            case "ready": return Heard(event: event, versionId: p["version_id"] as? String, seq: seq)
            case "failed": return Heard(event: event, versionId: p["version_id"] as? String, error: p["error"] as? String, seq: seq)
            default: return Heard(event: event, seq: seq)
            }
        }
    }
}

@Suite("The app's event contract on real Postgres and the Realtime stand-in", .enabled(if: postgresConfigured), .serialized)
struct AppEventContractTests {
    /// Two failed attempts and a retry that succeeds: every terminal event is heard by the app's
    /// handlers, one `seq` rises across attempts, and the failure count says how often it failed.
    @Test func failedThenRetriedThenReadyAsTheAppHearsIt() throws {
        let world = try RoleWorld()
        defer { withExtendedLifetime(world) {} }
        let c = world.connection
        let store = QueueStore(connection: c)
        let v = UUID().uuidString.lowercased()
        try store.submit(versionId: v, roomId: world.room, roomName: nil, usdzKey: "rooms/\(world.room)/versions/\(v)/s.usdz", jsonKey: nil)
        var seqs: [Int64] = []
        for round in 1...3 {
            if round > 1 { #expect(try store.retryFailed(versionId: v)) }
            let job = try #require(try store.claim(workerId: "tw-app", leaseSeconds: 60))
            #expect(job.eventSeq == Int64(round) * Int64(SchemaCatalog.eventSeqBlock) + Int64(round - 1),
                    "each lease moves the version's sequence a block forward")
            // A progress event of this attempt, numbered inside its block, as the worker sends it.
            let reporter = ProgressReporter(versionId: v, roomId: world.room, attempt: job.attempt, maxAttempts: 5, minInterval: 0,
                                            firstSeq: job.eventSeq - Int64(SchemaCatalog.eventSeqBlock) + 1, lastSeq: job.eventSeq,
                                            send: { topic, event, payload in
                                                try c.query("SELECT realtime.send($1::jsonb, $2, $3, false)",
                                                            [payload.serialized(), event, topic])
                                            })
            reporter.step("parsing", progress: 0.1)
            reporter.close()
            reporter.step("layering", progress: 0.4)
            seqs.append(reporter.sent)
            if round < 3 {
                #expect(try store.finalize(versionId: v, leaseId: job.leaseId, status: "failed", error: .object([
                    "reason": .string("USDZ_PARSE_ERROR"), "message": .string("USD_TRUNCATED: at byte 12"), "retryable": .bool(false),
                ])).ok)
            } else {
                #expect(try store.finalize(versionId: v, leaseId: job.leaseId, status: "ready", outputs: .object([
                    "glb_path": .string(job.outputPrefix + "model.glb"), "manifest_path": .string(job.outputPrefix + "layer_manifest.json"),
                ])).ok)
            }
        }
        let heard = try AppSubscriber.hear(c, topic: "room:\(world.room)").filter { $0.versionId == v || $0.event == "transcode_progress" }
        #expect(heard.map(\.event) == ["transcode_progress", "failed", "transcode_progress", "failed", "transcode_progress", "ready"],
                "one progress event per attempt (nothing after close), then the terminal one")
        #expect(heard.filter { $0.event == "transcode_progress" }.allSatisfy { $0.status == "transcoding" })
        #expect(heard.filter { $0.event == "failed" }.allSatisfy { $0.error == "ROOM_TRANSCODE_FAILED" })
        #expect(heard.last?.versionId == v)
        let order = heard.compactMap(\.seq)
        #expect(order.count == heard.count && order == order.sorted() && Set(order).count == order.count, "one rising seq: \(order)")
        let failures = try SupabaseStandIn.messages(c, topic: "room:\(world.room)").filter { $0.event == "failed" }
            .compactMap { ($0.payload["failure_count"] as? NSNumber)?.intValue }
        #expect(failures == [1, 2])
        // The room's owner hears the terminal events on their own channel too.
        #expect(try SupabaseStandIn.messages(c, topic: "user:\(world.owner)").map(\.event) == ["failed", "failed", "ready"])
    }

    /// Private channels: `realtime.messages` is readable, through the shipped policy, by those who
    /// may see the room (and by a user on their own channel), by nobody else.
    @Test func privateMessagesReachOnlyThoseWhoSeeTheRoom() throws {
        let world = try RoleWorld()
        defer { withExtendedLifetime(world) {} }
        let c = world.connection
        try c.query("SELECT set_config('transcode.realtime_private', 'on', false)")
        let store = QueueStore(connection: c)
        #expect(try store.finalize(versionId: world.runningVersion, leaseId: world.runningLease, status: "failed", error: .object([
            "reason": .string("TIMEOUT"), "message": .string("x"), "retryable": .bool(true),
        ])).ok)
        try c.query("SELECT set_config('transcode.realtime_private', '', false)")
        func readable(as user: String, topic: String) throws -> Int {
            try c.query("BEGIN")
            defer { _ = try? c.query("ROLLBACK") }
            try c.query("SET LOCAL ROLE authenticated")
            try c.query("SELECT set_config('request.jwt.claim.sub', $1, true), set_config('realtime.topic', $2, true)", [user, topic])
            return try c.query("SELECT count(*) AS n FROM realtime.messages WHERE topic = $1", [topic]).first?.int("n") ?? -1
        }
        let room = "room:\(world.room)", mine = "user:\(world.owner)"
        #expect(try SupabaseStandIn.messages(c, topic: room).last?.isPrivate == true)
        #expect(try readable(as: world.owner, topic: room) == 1)
        #expect(try readable(as: world.stranger, topic: room) == 0)
        #expect(try readable(as: world.owner, topic: mine) == 1)
        #expect(try readable(as: world.stranger, topic: mine) == 0)
    }
}
