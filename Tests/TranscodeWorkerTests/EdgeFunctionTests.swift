import Foundation
import Testing
@testable import TranscodeWorker
@testable import ObjectStorage

@Suite("transcode-done Edge Function under Deno, against PostgREST on real Postgres",
       .enabled(if: postgresConfigured && EdgeFunctionProcess.configured), .serialized)
struct EdgeFunctionTests {
    @Test func refusesOtherMethodsAndWrongSecrets() throws {
        try #require(EdgeFunctionProcess.deno != nil, "Deno not found (TRANSCODE_REQUIRE_DENO=1)")
        let world = try EdgeWorld()
        defer { withExtendedLifetime(world) {} }
        let body = EdgeWorld.bytes(world.readyBody())
        for method in ["GET", "PUT", "DELETE"] {
            let answer = try world.send(method == "GET" ? [] : body, method: method)
            #expect(answer.status == 405)
            #expect(answer.body["error"] as? String == "METHOD_NOT_ALLOWED")
        }
        let secret = EdgeWorld.secret
        let lastByteDiffers = String(secret.dropLast()) + (secret.last == "e" ? "f" : "e")
        let wrong: [String?] = [nil, "Bearer wrong-secret", "Bearer \(lastByteDiffers)", "Bearer \(secret.dropLast())",
                                "Bearer \(secret)x", "Bearer ", "Basic \(secret)", secret, "bearer \(secret)"]
        for authorization in wrong {
            let answer = try world.send(body, authorization: authorization)
            #expect(answer.status == 401, "Authorization: \(authorization ?? "(none)")")
            #expect(answer.body["error"] as? String == "UNAUTHORIZED")
        }
        #expect(world.postgrest.requests.count == 0)
        #expect(try world.row().status == "transcoding")
    }

    @Test func measuresTheBodyLimitInBytes() throws {
        try #require(EdgeFunctionProcess.deno != nil, "Deno not found (TRANSCODE_REQUIRE_DENO=1)")
        let world = try EdgeWorld()
        defer { withExtendedLifetime(world) {} }
        // 25 000 euro signs: 75 000 bytes of UTF-8 but 25 000 UTF-16 units.
        let euros = try world.send(world.failedBody(message: String(repeating: "€", count: 25_000)))
        #expect(euros.status == 413)
        #expect(euros.body["error"] as? String == "BODY_TOO_LARGE")
        // One byte over the limit is refused, exactly at the limit is recorded.
        let base = EdgeWorld.bytes(world.failedBody(message: "")).count
        let over = try world.send(world.failedBody(message: String(repeating: "m", count: 64 * 1024 + 1 - base)))
        #expect(over.status == 413)
        #expect(world.postgrest.requests.count == 0)
        #expect(try world.row().status == "transcoding")
        let exact = world.failedBody(message: String(repeating: "m", count: 64 * 1024 - base))
        #expect(EdgeWorld.bytes(exact).count == 64 * 1024)
        let atLimit = try world.send(exact)
        #expect(atLimit.status == 200)
        #expect(try world.row().status == "failed")
    }

    @Test func refusesADeclaredOrStreamedOversizedBodyWithoutReadingIt() throws {
        try #require(EdgeFunctionProcess.deno != nil, "Deno not found (TRANSCODE_REQUIRE_DENO=1)")
        let world = try EdgeWorld()
        defer { withExtendedLifetime(world) {} }
        let auth = "Authorization: Bearer \(EdgeWorld.secret)\r\n"
        // Declares 10 MB and sends none of it: only an answer without the body can arrive.
        let declared = try world.raw(head: "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\n\(auth)Content-Type: application/json\r\nContent-Length: 10000000\r\n\r\n")
        #expect(declared.hasPrefix("HTTP/1.1 413"))
        #expect(declared.contains("BODY_TOO_LARGE"))
        // Chunked, with no Content-Length: counted as it arrives.
        let chunk = Array(String(format: "%x\r\n", 8192).utf8) + [UInt8](repeating: 0x20, count: 8192) + [13, 10]
        let streamed = try world.raw(head: "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\n\(auth)Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n",
                                     chunks: Array(repeating: chunk, count: 9) + [Array("0\r\n\r\n".utf8)])
        #expect(streamed.hasPrefix("HTTP/1.1 413"))
        #expect(world.postgrest.requests.count == 0)
    }

    @Test func refusesMalformedBodiesWithTheirCodes() throws {
        try #require(EdgeFunctionProcess.deno != nil, "Deno not found (TRANSCODE_REQUIRE_DENO=1)")
        let world = try EdgeWorld()
        defer { withExtendedLifetime(world) {} }
        for bytes in [Array("not json".utf8), Array("{\"schema\":".utf8), [0x7B, 0xFF, 0xFE, 0x7D], []] {
            let answer = try world.send(bytes)
            #expect(answer.status == 400)
            #expect(answer.body["error"] as? String == "INVALID_JSON")
        }
        var cases: [(body: [String: Any], code: String)] = []
        var body = world.readyBody()
        body["schema"] = "transcode-done/v2"
        cases.append((body, "INVALID_BODY"))
        body = world.readyBody(version: "not-a-uuid")
        cases.append((body, "INVALID_BODY"))
        body = world.readyBody(lease: "1234")
        cases.append((body, "INVALID_BODY"))
        body = world.readyBody()
        body["status"] = "done"
        cases.append((body, "INVALID_BODY"))
        body = world.readyBody()
        body.removeValue(forKey: "lease")
        cases.append((body, "INVALID_BODY"))
        body = world.readyBody()
        body["outputs"] = ["glb_path": "x/model.glb"]
        cases.append((body, "INVALID_OUTPUTS"))
        body = world.failedBody()
        body["error"] = ["message": "no reason"]
        cases.append((body, "INVALID_ERROR"))
        for (body, code) in cases {
            let answer = try world.send(body)
            #expect(answer.status == 422, "\(code)")
            #expect(answer.body["error"] as? String == code)
        }
        #expect(world.postgrest.requests.count == 0)
        // A value the database refuses (class 22: not an integer) reaches PostgREST, which answers 400.
        let invalidValue = try world.send(world.readyBody(extraOutputs: ["manifest_schema_version": "three"]))
        #expect(invalidValue.status == 422)
        #expect(invalidValue.body["error"] as? String == "INVALID_VALUE")
        #expect(world.postgrest.requests.count == 1)
        #expect(try world.row().status == "transcoding")
    }

    @Test func answersVersionNotFoundAndLeaseLost() throws {
        try #require(EdgeFunctionProcess.deno != nil, "Deno not found (TRANSCODE_REQUIRE_DENO=1)")
        let world = try EdgeWorld()
        defer { withExtendedLifetime(world) {} }
        let missing = try world.send(world.readyBody(version: UUID().uuidString.lowercased()))
        #expect(missing.status == 404)
        #expect(missing.body["error"] as? String == "VERSION_NOT_FOUND")
        let otherLease = try world.send(world.readyBody(lease: UUID().uuidString.lowercased()))
        #expect(otherLease.status == 409)
        #expect(otherLease.body["error"] as? String == "LEASE_LOST")
        let row = try world.row()
        #expect(row.status == "transcoding")
        #expect(row.lease == world.job.leaseId)
    }

    @Test func recordsReadyOnceAndAnswersAReplay() throws {
        try #require(EdgeFunctionProcess.deno != nil, "Deno not found (TRANSCODE_REQUIRE_DENO=1)")
        let world = try EdgeWorld()
        defer { withExtendedLifetime(world) {} }
        let first = try world.send(world.readyBody())
        #expect(first.status == 200)
        #expect(first.body["ok"] as? Bool == true)
        #expect(first.body["status"] as? String == "ready")
        #expect((first.body["output_revision"] as? NSNumber)?.intValue == 1)
        #expect(first.body["idempotent_replay"] as? Bool == false)
        let row = try world.row()
        #expect(row.status == "ready")
        #expect(row.revision == 1)
        #expect(row.lease == nil)
        let bucket = try world.connection.query("SELECT output_bucket FROM transcode_private.room_versions WHERE id = $1::uuid", [world.job.versionId])
        #expect(bucket.first?["output_bucket"] == "rooms", "the body's outputs.bucket is recorded beside the paths")
        let topic = "room:\(world.job.roomId)"
        #expect(try SupabaseStandIn.messages(world.connection, topic: topic).map(\.event) == ["ready"])

        let replay = try world.send(world.readyBody())
        #expect(replay.status == 200)
        #expect(replay.body["idempotent_replay"] as? Bool == true)
        #expect((replay.body["output_revision"] as? NSNumber)?.intValue == 1)
        #expect(try world.row().revision == 1)
        #expect(try SupabaseStandIn.messages(world.connection, topic: topic).count == 1)

        // What reached PostgREST: the rpc call, the sb_secret key in apikey only, the five parameters.
        let request = try #require(world.postgrest.requests.first)
        #expect(request.method == "POST")
        #expect(request.path == "/rest/v1/rpc/transcode_finalize")
        #expect(request.headers["apikey"] == EdgeWorld.secretKey)
        #expect(request.count(of: "apikey") == 1)
        #expect(request.headers["authorization"] == nil)
        #expect(request.headers["content-type"]?.hasPrefix("application/json") == true)
        let sent = try #require(try JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any])
        #expect(Set(sent.keys) == PostgRESTStandIn.parameters)
        #expect(sent["p_version_id"] as? String == world.job.versionId)
        #expect(sent["p_lease_id"] as? String == world.job.leaseId)
        #expect(sent["p_status"] as? String == "ready")
        #expect((sent["p_outputs"] as? [String: Any])?["glb_path"] as? String == world.job.outputPrefix + "model.glb")
        #expect(sent["p_error"] is NSNull)
    }

    @Test func recordsFailed() throws {
        try #require(EdgeFunctionProcess.deno != nil, "Deno not found (TRANSCODE_REQUIRE_DENO=1)")
        let world = try EdgeWorld()
        defer { withExtendedLifetime(world) {} }
        let answer = try world.send(world.failedBody())
        #expect(answer.status == 200)
        #expect(answer.body["ok"] as? Bool == true)
        #expect(answer.body["status"] as? String == "failed")
        #expect(try world.row().status == "failed")
        let code = try world.connection.query("SELECT last_error_code FROM transcode_private.room_versions WHERE id = $1::uuid", [world.job.versionId]).first?["last_error_code"]
        #expect(code == "USDZ_PARSE_ERROR")
        let request = try #require(world.postgrest.requests.first)
        let sent = try #require(try JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any])
        #expect(sent["p_outputs"] is NSNull)
        #expect((sent["p_error"] as? [String: Any])?["reason"] as? String == "USDZ_PARSE_ERROR")
        // A replay of the final failure is answered as one.
        let replay = try world.send(world.failedBody())
        #expect(replay.status == 200)
        #expect(replay.body["idempotent_replay"] as? Bool == true)
    }

    @Test func sendsALegacyJWTKeyAlsoAsBearer() throws {
        try #require(EdgeFunctionProcess.deno != nil, "Deno not found (TRANSCODE_REQUIRE_DENO=1)")
        let jwt = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJyb2xlIjoic2VydmljZV9yb2xlIn0.c2lnbmF0dXJlLWZvci10ZXN0cw"
        let world = try EdgeWorld(keyVariable: "SUPABASE_SERVICE_ROLE_KEY", key: jwt)
        defer { withExtendedLifetime(world) {} }
        #expect(try world.send(world.readyBody()).status == 200)
        let request = try #require(world.postgrest.requests.first)
        #expect(request.headers["apikey"] == jwt)
        #expect(request.headers["authorization"] == "Bearer \(jwt)")
        #expect(request.count(of: "authorization") == 1)
    }

    @Test func answersDatabaseUnavailableOnFailuresTimeoutsAndRefusedConnections() throws {
        try #require(EdgeFunctionProcess.deno != nil, "Deno not found (TRANSCODE_REQUIRE_DENO=1)")
        let world = try EdgeWorld(timeoutMs: 300)
        defer { withExtendedLifetime(world) {} }
        for behaviour: PostgRESTStandIn.Behaviour in [.status(500), .status(503), .status(502)] {
            world.postgrest.behaviour = behaviour
            let answer = try world.send(world.readyBody())
            #expect(answer.status == 503, "\(behaviour)")
            #expect(answer.body["error"] as? String == "DATABASE_UNAVAILABLE")
        }
        // Slower than the function's bound: it gives up and answers 503.
        world.postgrest.behaviour = .delay(3)
        let slow = try world.send(world.readyBody())
        #expect(slow.status == 503)
        #expect(slow.body["error"] as? String == "DATABASE_UNAVAILABLE")
        // The worker's retry after the outage is recorded.
        world.postgrest.behaviour = .database
        #expect(try world.send(world.readyBody()).status == 200)
        // Nothing listening: refused connections are worth a retry too.
        world.postgrest.stop()
        let refused = try world.send(world.readyBody())
        #expect(refused.status == 503)
        #expect(refused.body["error"] as? String == "DATABASE_UNAVAILABLE")
    }

    @Test func refusesToServeWhenMisconfigured() throws {
        try #require(EdgeFunctionProcess.deno != nil, "Deno not found (TRANSCODE_REQUIRE_DENO=1)")
        let probe = try EdgeWorld()
        defer { withExtendedLifetime(probe) {} }
        let url = probe.postgrest.baseURL
        let settings: [(variables: [String: String], authorization: String)] = [
            (["SUPABASE_URL": url, "SUPABASE_SECRET_KEY": EdgeWorld.secretKey], "Bearer "),
            (["SUPABASE_URL": url, "SUPABASE_SECRET_KEY": EdgeWorld.secretKey], "Bearer anything"),
            (["WORKER_CALLBACK_SECRET": "", "SUPABASE_URL": url, "SUPABASE_SECRET_KEY": EdgeWorld.secretKey], "Bearer "),
            (["WORKER_CALLBACK_SECRET": EdgeWorld.secret, "SUPABASE_SECRET_KEY": EdgeWorld.secretKey], "Bearer \(EdgeWorld.secret)"),
            (["WORKER_CALLBACK_SECRET": EdgeWorld.secret, "SUPABASE_URL": url], "Bearer \(EdgeWorld.secret)"),
            // A key the project does not accept: PostgREST answers 401.
            (["WORKER_CALLBACK_SECRET": EdgeWorld.secret, "SUPABASE_URL": url, "SUPABASE_SECRET_KEY": "sb_secret_revoked"],
             "Bearer \(EdgeWorld.secret)"),
        ]
        for setting in settings {
            let function = try EdgeFunctionProcess(variables: setting.variables)
            defer { function.stop() }
            let response = try probe.http.send(HTTPRequest(method: "POST", url: function.url,
                                                           headers: [("Authorization", setting.authorization)],
                                                           body: EdgeWorld.bytes(probe.readyBody())))
            let body = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any] ?? [:]
            #expect(response.status == 500, "\(setting.variables.keys.sorted())")
            #expect(body["error"] as? String == "MISCONFIGURED")
        }
        // Only the revoked key reached the stand-in, and it was refused there.
        #expect(probe.postgrest.requests.map { $0.headers["apikey"] } == ["sb_secret_revoked"])
        #expect(try probe.row().status == "transcoding")
    }
}

@Suite("transcode-done Edge Function: Deno unit tests and type check", .enabled(if: EdgeFunctionProcess.configured))
struct EdgeFunctionUnitTests {
    @Test func secretCompareAndHeaderUnitTestsPass() throws {
        try #require(EdgeFunctionProcess.deno != nil, "Deno not found (TRANSCODE_REQUIRE_DENO=1)")
        let result = try EdgeFunctionProcess.runDeno(["test"] + EdgeFunctionProcess.offlineFlags + ["same_secret_test.ts"])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("6 passed | 0 failed"), "\(result.output)")
    }

    @Test func functionsAndHarnessTypeCheckOffline() throws {
        try #require(EdgeFunctionProcess.deno != nil, "Deno not found (TRANSCODE_REQUIRE_DENO=1)")
        let functions = EdgeFunctionProcess.functionsDirectory
        let files = ["transcode-done/index.ts", "transcode-done/handler.ts", "transcode-retry/index.ts",
                     "transcode-retry/handler.ts", "_shared/http.ts"]
        let result = try EdgeFunctionProcess.runDeno(["check", "--no-remote", "--no-npm", "--no-config", "--no-lock"]
                                                     + files.map { functions.appendingPathComponent($0).path }
                                                     + ["serve.ts", "same_secret_test.ts"])
        #expect(result.status == 0, "\(result.output)")
        // No module of the deployed functions is fetched from anywhere.
        for name in files {
            let source = try String(contentsOf: functions.appendingPathComponent(name), encoding: .utf8)
            for scheme in ["jsr:", "npm:", "https://", "http://"] {
                #expect(!source.split(separator: "\n").contains { $0.contains("from") && $0.contains("\"\(scheme)") }, "\(name) imports \(scheme)")
            }
        }
    }
}
