import Foundation
import Testing
@testable import ObjectStorage
@testable import PGQueue

/// The `transcode-retry` Edge Function (supabase/functions/transcode-retry/handler.ts) run by a
/// real Deno against the PostgREST stand-in on a Supabase-shaped database (the role fixture, a
/// backend room policy: owners see their rooms), called the way the iOS app calls it.
@Suite("transcode-retry Edge Function under Deno", .enabled(if: EdgeFunctionProcess.configured && postgresConfigured), .serialized)
final class AppRetryEdgeTests {
    let world: RoleWorld
    let postgrest: PostgRESTStandIn
    let function: EdgeFunctionProcess
    let http = HTTPClient()

    init() throws {
        world = try RoleWorld()
        postgrest = try PostgRESTStandIn(databaseURL: world.project.db.url, serviceKey: "sb_secret_retrytest0123456789")
        function = try EdgeFunctionProcess(name: "transcode-retry", variables: [
            "SUPABASE_URL": postgrest.baseURL, "SUPABASE_PUBLISHABLE_KEY": PostgRESTStandIn.publishableKey,
        ])
    }

    deinit {
        function.stop()
        postgrest.stop()
    }

    func send(_ body: String, token: String?, method: String = "POST") throws -> (status: Int, body: [String: Any]) {
        var headers = [("Content-Type", "application/json")]
        if let token { headers.append(("Authorization", "Bearer \(token)")) }
        let r = try http.send(HTTPRequest(method: method, url: function.url, headers: headers, body: Array(body.utf8), timeout: 30))
        return (r.status, (try? JSONSerialization.jsonObject(with: Data(r.body))) as? [String: Any] ?? [:])
    }

    func retry(_ version: String, as user: String) throws -> (status: Int, body: [String: Any]) {
        try send(#"{"version_id":"\#(version)"}"#, token: TestJWT.user(user))
    }

    @Test func theOwnersTapQueuesTheVersionAndASecondTapIsAnswered() throws {
        let v = try AppRetryTests.failedVersion(world)
        let first = try retry(v, as: world.owner)
        #expect(first.status == 202)
        #expect(first.body["ok"] as? Bool == true)
        #expect(first.body["status"] as? String == "queued")
        #expect(first.body["deduplicated"] as? Bool == false)
        #expect(first.body["app_retries"] as? Int == 1)
        let again = try retry(v.uppercased(), as: world.owner)
        #expect(again.status == 200)
        #expect(again.body["deduplicated"] as? Bool == true)
        #expect(try AppRetryTests.row(world, v)["status"] == "queued")
        #expect(try AppRetryTests.row(world, v).int("app_retry_count") == 1)
        // The function passed the user's own token on, with the publishable key as apikey.
        let calls = postgrest.requests.filter { $0.path == PostgRESTStandIn.retryPath }
        #expect(calls.count == 2)
        #expect(calls.allSatisfy { $0.headers["apikey"] == PostgRESTStandIn.publishableKey })
        #expect(calls.allSatisfy { $0.headers["authorization"]?.hasPrefix("Bearer ey") == true })
    }

    @Test func everyRefusalHasACodeTheAppCanMap() throws {
        let v = try AppRetryTests.failedVersion(world)
        #expect(try retry(v, as: world.stranger).status == 404)
        #expect(try retry(v, as: world.stranger).body["error"] as? String == "VERSION_NOT_FOUND")
        #expect(try retry(world.readyVersion, as: world.owner).body["error"] as? String == "INVALID_STATE")
        #expect(try retry(world.readyVersion, as: world.owner).status == 409)
        let now = Int(Date().timeIntervalSince1970)
        let tokens: [(String?, String)] = [
            (nil, "no token"), ("not-a-jwt", "not a JWT"), (TestJWT.user(world.owner, expired: true), "expired"),
            (TestJWT.sign(["sub": world.owner, "role": "authenticated", "exp": now + 60], secret: "another-project"), "foreign signature"),
            (TestJWT.sign(["role": "anon", "exp": now + 60]), "the anon key's token"),
        ]
        for (token, what) in tokens {
            let r = try send(#"{"version_id":"\#(v)"}"#, token: token)
            #expect(r.status == 401, "\(what)")
            #expect(r.body["error"] as? String == "UNAUTHENTICATED", "\(what)")
        }
        #expect(try AppRetryTests.row(world, v)["status"] == "failed", "a refused call changed the version")
        let owner = TestJWT.user(world.owner)
        #expect(try send("{", token: owner).status == 400)
        #expect(try send(#"{"version_id":"x"}"#, token: owner).status == 422)
        #expect(try send(#"[1]"#, token: owner).status == 422)
        #expect(try send(String(repeating: " ", count: 5000) + "{}", token: owner).status == 413)
        #expect(try send("", token: owner, method: "GET").status == 405)
        try world.connection.query("UPDATE rooms SET visibility = 'public' WHERE id = $1::uuid", [world.room])
        #expect(try retry(v, as: world.stranger).status == 403)
        #expect(try retry(v, as: world.stranger).body["error"] as? String == "FORBIDDEN")
        try world.connection.query("""
            UPDATE transcode_private.room_versions SET error_code = 'REDACTION_INVALID', error_retryable = false WHERE id = $1::uuid
            """, [v])
        let permanent = try retry(v, as: world.owner)
        #expect(permanent.status == 409)
        #expect(permanent.body["error"] as? String == "PERMANENT_FAILURE")
        #expect(permanent.body["code"] as? String == "REDACTION_INVALID")
        #expect(try AppRetryTests.row(world, v)["status"] == "failed")
        postgrest.behaviour = .status(503)
        #expect(try retry(v, as: world.owner).status == 503)
        postgrest.behaviour = .database
    }

    @Test func afterThreeAppRetriesTheAnswerIsRetryLimitReached() throws {
        let v = try AppRetryTests.failedVersion(world)
        for _ in 1..<SchemaCatalog.defaultAppRetryLimit {
            #expect(try retry(v, as: world.owner).status == 202)
            try world.connection.query("""
                UPDATE transcode_private.room_versions SET status = 'failed', failure_count = failure_count + 1,
                       error_code = 'ROOM_TRANSCODE_FAILED', error_retryable = true WHERE id = $1::uuid
                """, [v])
        }
        let r = try retry(v, as: world.owner)
        #expect(r.status == 409)
        #expect(r.body["error"] as? String == "RETRY_LIMIT_REACHED")
        #expect(r.body["retry_limit"] as? Int == SchemaCatalog.defaultAppRetryLimit)
        #expect(try AppRetryTests.row(world, v)["status"] == "failed")
    }

    @Test func aMissingSettingOrFunctionIsAMisconfiguration() throws {
        let bare = try EdgeFunctionProcess(name: "transcode-retry", variables: ["SUPABASE_URL": postgrest.baseURL])
        defer { bare.stop() }
        let r = try http.send(HTTPRequest(method: "POST", url: bare.url, headers: [("Authorization", "Bearer \(TestJWT.user(world.owner))")],
                                          body: Array(#"{"version_id":"\#(UUID().uuidString)"}"#.utf8), timeout: 30))
        #expect(r.status == 500)
        // Before migration 12 the database has no such function.
        let old = try RoleWorld(through: 11)
        let oldREST = try PostgRESTStandIn(databaseURL: old.project.db.url, serviceKey: "sb_secret_x")
        defer { oldREST.stop() }
        let oldFunction = try EdgeFunctionProcess(name: "transcode-retry", variables: [
            "SUPABASE_URL": oldREST.baseURL, "SUPABASE_ANON_KEY": PostgRESTStandIn.publishableKey,
        ])
        defer { oldFunction.stop() }
        let missing = try http.send(HTTPRequest(method: "POST", url: oldFunction.url,
                                                headers: [("Authorization", "Bearer \(TestJWT.user(old.owner))")],
                                                body: Array(#"{"version_id":"\#(old.readyVersion)"}"#.utf8), timeout: 30))
        #expect(missing.status == 500)
        #expect(String(decoding: missing.body, as: UTF8.self).contains("MISCONFIGURED"))
    }
}
