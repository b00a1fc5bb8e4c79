import Foundation
import Testing
import TestSupport
@testable import TranscodeWorker
@testable import JSONCore
@testable import WorkerRuntime
@testable import WorkerCore

@Suite("Supabase mode: endpoints, configuration and the Realtime broadcast client")
struct SupabaseModeTests {
    static let secretKey = "sb_secret_0123456789abcdefghij"
    /// A `TRANSCODE_DONE_SECRET` of the 32+ bytes the worker requires.
    static let doneSecret = "callback-secret-0123456789abcdef-xyz"
    static let legacyKey = "eyJhbGciOiJIUzI1NiJ9.eyJyb2xlIjoic2VydmljZV9yb2xlIn0.c2lnbmF0dXJl"

    @Test func endpointsFromTheProjectURL() throws {
        let e = try #require(SupabaseEndpoints(url: "https://abcd.supabase.co//", serviceKey: Self.secretKey))
        #expect(e.baseURL == "https://abcd.supabase.co")
        #expect(e.broadcastURL == "https://abcd.supabase.co/realtime/v1/api/broadcast")
        #expect(e.transcodeDoneURL == "https://abcd.supabase.co/functions/v1/transcode-done")
        #expect(SupabaseEndpoints(url: "abcd.supabase.co", serviceKey: Self.secretKey) == nil)
        #expect(SupabaseEndpoints(url: "ftp://abcd.supabase.co", serviceKey: Self.secretKey) == nil)
        #expect(SupabaseEndpoints(url: "https://", serviceKey: Self.secretKey) == nil)
        #expect(SupabaseEndpoints(url: "https://abcd.supabase.co", serviceKey: "") == nil)
        #expect(SupabaseEndpoints(url: "https://abcd.supabase.co", serviceKey: "key\r\nX-Evil: 1") == nil)
    }

    @Test func secretKeysGoOnlyInApikeyAndJWTsAlsoInAuthorization() throws {
        let modern = try #require(SupabaseEndpoints(url: "http://127.0.0.1:54321", serviceKey: Self.secretKey))
        #expect(modern.authHeaders().map { "\($0.0): \($0.1)" } == ["apikey: \(Self.secretKey)"])
        #expect(modern.authHeaders(bearer: "cb").map { "\($0.0): \($0.1)" } == ["apikey: \(Self.secretKey)", "Authorization: Bearer cb"])
        let legacy = try #require(SupabaseEndpoints(url: "http://127.0.0.1:54321", serviceKey: Self.legacyKey))
        #expect(legacy.authHeaders().map { "\($0.0): \($0.1)" }
                == ["apikey: \(Self.legacyKey)", "Authorization: Bearer \(Self.legacyKey)"])
        #expect(!SupabaseEndpoints.isJWT(Self.secretKey))
        #expect(!SupabaseEndpoints.isJWT("eyJ.."))
    }

    @Test func configurationOfSupabaseMode() throws {
        var c = WorkerConfig(environment: ["SUPABASE_URL": "https://abcd.supabase.co", "SUPABASE_SERVICE_KEY": Self.secretKey,
                                           "TRANSCODE_DONE_SECRET": Self.doneSecret])
        #expect(try c.supabaseEndpoints()?.baseURL == "https://abcd.supabase.co")
        #expect(c.completionURL == "https://abcd.supabase.co/functions/v1/transcode-done")
        #expect(c.completionHeaders.map { "\($0.0): \($0.1)" } == ["apikey: \(Self.secretKey)", "Authorization: Bearer \(Self.doneSecret)"])
        try c.set("done-url", "http://127.0.0.1:9/elsewhere")
        #expect(c.completionURL == "http://127.0.0.1:9/elsewhere")

        let plain = WorkerConfig(environment: ["TRANSCODE_DONE_URL": "http://127.0.0.1:9/done", "TRANSCODE_DONE_SECRET": Self.doneSecret])
        #expect(try plain.supabaseEndpoints() == nil)
        #expect(plain.completionHeaders.map { "\($0.0): \($0.1)" } == ["Authorization: Bearer \(Self.doneSecret)", "apikey: \(Self.doneSecret)"])
        #expect(WorkerConfig(environment: [:]).completionURL == nil)

        #expect(throws: UsageError.self) { try WorkerConfig(environment: ["SUPABASE_URL": "https://a.supabase.co"]).supabaseEndpoints() }
        #expect(throws: UsageError.self) { try WorkerConfig(environment: ["SUPABASE_SERVICE_KEY": "k"]).supabaseEndpoints() }
        #expect(throws: UsageError.self) {
            try WorkerConfig(environment: ["SUPABASE_URL": "a.supabase.co", "SUPABASE_SERVICE_KEY": "k"]).supabaseEndpoints()
        }
        // The key is never a flag (it would show in the process list): the flag is refused.
        #expect(WorkerConfig.isSetting("supabase-url"))
        #expect(throws: UsageError.self) { try c.set("supabase-service-key", Self.secretKey) }
        #expect(throws: UsageError.self) {
            _ = try RunCommand(["--database-url", "postgresql://127.0.0.1/x", "--supabase-url", "https://a.supabase.co"])
        }
    }

    @Test func messageIdsAreStableUUIDs() {
        let a = RealtimeBroadcaster.messageId(for: "v:l:1")
        #expect(a == RealtimeBroadcaster.messageId(for: "v:l:1"))
        #expect(a != RealtimeBroadcaster.messageId(for: "v:l:2"))
        let parts = a.split(separator: "-").map(\.count)
        #expect(parts == [8, 4, 4, 4, 12])
        #expect(Array(a)[14] == "8")
        #expect("89ab".contains(Array(a)[19]))
        #expect(UUID(uuidString: a) != nil)
    }

    @Test func broadcastRequestIsWhatRealtimeExpects() throws {
        let server = try LoopbackHTTPServer { _ in (202, [], []) }
        defer { server.stop() }
        let endpoints = try #require(SupabaseEndpoints(url: server.baseURL + "/", serviceKey: Self.secretKey))
        let client = RealtimeBroadcaster(endpoints: endpoints)
        let payload = JSONValue.object(["schema": .string("transcode-progress/v1"), "seq": .int(3), "step": .string("layering")])
        try client.send(topic: "room:4f1c", event: "transcode_progress", payload: payload, id: "id-1")

        let r = try #require(server.requests.first)
        #expect(server.requests.count == 1)
        #expect(r.method == "POST")
        #expect(r.path == "/realtime/v1/api/broadcast")
        #expect(r.headers["apikey"] == Self.secretKey)
        #expect(r.headers["authorization"] == nil)
        #expect(r.headers["content-type"] == "application/json")
        #expect(r.count(of: "apikey") == 1)
        let body = try #require(try JSONSerialization.jsonObject(with: Data(r.body)) as? [String: Any])
        #expect(body.keys.sorted() == ["messages"])
        let messages = try #require(body["messages"] as? [[String: Any]])
        #expect(messages.count == 1)
        let m = messages[0]
        #expect(m.keys.sorted() == ["event", "id", "payload", "private", "topic"])
        #expect(m["topic"] as? String == "room:4f1c")
        #expect(m["event"] as? String == "transcode_progress")
        #expect(m["private"] as? Bool == true)
        #expect(m["id"] as? String == "id-1")
        let p = try #require(m["payload"] as? [String: Any])
        #expect(p["schema"] as? String == "transcode-progress/v1")
        #expect((p["seq"] as? NSNumber)?.intValue == 3)
        #expect(p["step"] as? String == "layering")

        // A legacy JWT key is also sent as the bearer.
        let legacy = RealtimeBroadcaster(endpoints: try #require(SupabaseEndpoints(url: server.baseURL, serviceKey: Self.legacyKey)))
        try legacy.send(topic: "room:4f1c", event: "transcode_progress", payload: payload)
        let second = try #require(server.requests.last)
        #expect(second.headers["authorization"] == "Bearer \(Self.legacyKey)")
        #expect(second.headers["apikey"] == Self.legacyKey)
        let m2 = try #require((try JSONSerialization.jsonObject(with: Data(second.body)) as? [String: Any])?["messages"] as? [[String: Any]])
        #expect(m2[0]["id"] == nil)
    }

    /// The code a send throws, or nil.
    private func code(_ body: () throws(RealtimeBroadcastError) -> Void) -> RealtimeBroadcastError.Code? {
        do throws(RealtimeBroadcastError) {
            try body()
            return nil
        } catch {
            return error.code
        }
    }

    @Test func statusesMapToStableCodesAndAreNeverRetried() throws {
        let status = StatusBox()
        let server = try LoopbackHTTPServer { _ in (status.value, [], Array("{\"message\":\"nope\"}".utf8)) }
        defer { server.stop() }
        let client = RealtimeBroadcaster(endpoints: try #require(SupabaseEndpoints(url: server.baseURL, serviceKey: Self.secretKey)))
        let send = { () throws(RealtimeBroadcastError) in try client.send(topic: "room:r", event: "e", payload: .object([:])) }
        for (s, expected) in [(200, nil), (202, nil), (429, RealtimeBroadcastError.Code.rateLimited), (401, RealtimeBroadcastError.Code.rejected),
                              (403, RealtimeBroadcastError.Code.rejected), (422, RealtimeBroadcastError.Code.rejected),
                              (500, RealtimeBroadcastError.Code.unavailable), (503, RealtimeBroadcastError.Code.unavailable),
                              (302, RealtimeBroadcastError.Code.unavailable)] as [(Int, RealtimeBroadcastError.Code?)] {
            status.value = s
            #expect(code(send) == expected, "HTTP \(s)")
        }
        #expect(server.requests.count == 9, "one request per message, none retried")

        // Nobody listening: unavailable, promptly.
        let closed = try LoopbackHTTPServer { _ in (202, [], []) }
        let url = closed.baseURL
        closed.stop()
        let gone = RealtimeBroadcaster(endpoints: try #require(SupabaseEndpoints(url: url, serviceKey: Self.secretKey)), timeout: 2)
        #expect(code { () throws(RealtimeBroadcastError) in try gone.send(topic: "room:r", event: "e", payload: .null) }
                == RealtimeBroadcastError.Code.unavailable)
    }

    @Test func rateLimitedProgressIsDroppedAndLaterStepsStillGoOut() throws {
        let calls = CallCounter()
        let server = try LoopbackHTTPServer { _ in calls.next() == 2 ? (429, [], []) : (202, [], []) }
        defer { server.stop() }
        let client = RealtimeBroadcaster(endpoints: try #require(SupabaseEndpoints(url: server.baseURL, serviceKey: Self.secretKey)))
        let reporter = ProgressReporter(versionId: "v", roomId: "r", attempt: 1, maxAttempts: 5, minInterval: 0, asynchronous: true) {
            topic, event, payload in try client.send(topic: topic, event: event, payload: payload)
        }
        reporter.step("parsing", progress: 0.1)
        reporter.step("layering", progress: 0.4)
        reporter.step("preview", progress: 0.8)
        reporter.drain()
        let seqs = server.requests.compactMap { r -> Int? in
            let body = try? JSONSerialization.jsonObject(with: Data(r.body)) as? [String: Any]
            let m = (body?["messages"] as? [[String: Any]])?.first
            return ((m?["payload"] as? [String: Any])?["seq"] as? NSNumber)?.intValue
        }
        #expect(seqs == [1, 2, 3], "three sends, the second answered 429 and not repeated")
        #expect(reporter.sent == 3)
    }
}

/// A value handlers read while a test changes it.
final class StatusBox: @unchecked Sendable {
    private let lock = NSLock()
    private var v = 200
    var value: Int {
        get { lock.withLock { v } }
        set { lock.withLock { v = newValue } }
    }
}
