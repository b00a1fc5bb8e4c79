import Foundation
import Testing
@testable import PGQueue

/// The app's retry button in SQL (`transcode_app_retry`, migration 12) under the Supabase role
/// fixture: a signed-in user re-queues a failed version of a room they can see, once per tap,
/// at most `transcode.app_retry_limit` times; nobody else gets anything through.
@Suite("App retry: transcode_app_retry under Supabase roles", .enabled(if: postgresConfigured), .serialized)
struct AppRetryTests {
    /// Runs `sql` as the signed-in `user` (or `anon` when nil) in a committed transaction, as
    /// PostgREST does for an RPC call with that user's JWT. Returns the first row's `r`, or the
    /// database error.
    static func call(_ c: PGConnection, as user: String?, _ sql: String, _ params: [String?]) -> (r: String?, error: DatabaseError?) {
        do {
            try c.query("BEGIN")
            try c.query("SET LOCAL ROLE \(user == nil ? "anon" : "authenticated")")
            if let user {
                try c.query("SELECT set_config('request.jwt.claim.sub', $1, true), set_config('request.jwt.claims', $2, true)",
                            [user, #"{"sub":"\#(user)","role":"authenticated"}"#])
            }
            let r = try c.query(sql, params).first?["r"]
            try c.query("COMMIT")
            return (r, nil)
        } catch {
            _ = try? c.query("ROLLBACK")
            return (nil, error)
        }
    }

    static let retrySQL = "SELECT transcode_app_retry($1::uuid)::text AS r"

    static func retry(_ c: PGConnection, as user: String?, _ version: String) throws -> [String: Any] {
        let (r, error) = call(c, as: user, retrySQL, [version])
        if let error { throw error }
        return try #require(try JSONSerialization.jsonObject(with: Data((r ?? "").utf8)) as? [String: Any])
    }

    /// A failed version in the world's room (owned by `world.owner`).
    static func failedVersion(_ world: RoleWorld) throws -> String {
        let v = UUID().uuidString.lowercased()
        try world.connection.query("""
            INSERT INTO transcode_private.room_versions (id, room_id, status, source_usdz_path, attempt, last_error_code, failure_count,
                                                         error_code, error_retryable)
            VALUES ($1::uuid, $2::uuid, 'failed', 'x/source.usdz', 5, 'SOURCE_DOWNLOAD_FAILED', 1, 'ROOM_TRANSCODE_FAILED', true)
            """, [v, world.room])
        return v
    }

    static func row(_ world: RoleWorld, _ version: String) throws -> PGRow {
        try #require(try world.connection.query("""
            SELECT status::text AS status, attempt, priority, app_retry_count, last_error_code FROM transcode_private.room_versions WHERE id = $1::uuid
            """, [version]).first)
    }

    @Test func theOwnerRequeuesAFailedVersionOncePerTap() throws {
        let world = try RoleWorld()
        defer { withExtendedLifetime(world) {} }
        let v = try Self.failedVersion(world)
        let first = try Self.retry(world.connection, as: world.owner, v)
        #expect(first["ok"] as? Bool == true)
        #expect(first["status"] as? String == "queued")
        #expect(first["deduplicated"] as? Bool == false)
        #expect(first["app_retries"] as? Int == 1)
        #expect(first["retry_limit"] as? Int == SchemaCatalog.defaultAppRetryLimit)
        let r = try Self.row(world, v)
        #expect(r["status"] == "queued")
        #expect(r.int("attempt") == 0)
        #expect(r.int("priority") == 0, "a person is waiting: interactive priority")
        #expect(r["last_error_code"] == nil)
        // A double tap: answered, not counted, nothing changes.
        let second = try Self.retry(world.connection, as: world.owner, v)
        #expect(second["ok"] as? Bool == true)
        #expect(second["deduplicated"] as? Bool == true)
        #expect(try Self.row(world, v).int("app_retry_count") == 1)
        let requests = try world.connection.query(
            "SELECT user_id::text AS u, outcome FROM transcode_retry_requests WHERE version_id = $1::uuid ORDER BY id", [v])
        #expect(requests.map { $0["outcome"] ?? "" } == ["QUEUED", "ALREADY_QUEUED"])
        #expect(requests.allSatisfy { $0["u"] == world.owner }, "the requester comes from the JWT")
    }

    @Test func strangersAnonymousCallersAndOtherStatesGetNothingThrough() throws {
        let world = try RoleWorld()
        defer { withExtendedLifetime(world) {} }
        let v = try Self.failedVersion(world)
        let stranger = try Self.retry(world.connection, as: world.stranger, v)
        #expect(stranger["ok"] as? Bool == false)
        #expect(stranger["error"] as? String == "VERSION_NOT_FOUND", "a stranger learns nothing, not even that it exists")
        #expect(try Self.retry(world.connection, as: world.stranger, UUID().uuidString)["error"] as? String == "VERSION_NOT_FOUND")
        let anon = Self.call(world.connection, as: nil, Self.retrySQL, [v])
        #expect(anon.error?.sqlState == "42501")
        #expect(try Self.row(world, v)["status"] == "failed")
        let ready = try Self.retry(world.connection, as: world.owner, world.readyVersion)
        #expect(ready["error"] as? String == "INVALID_STATE")
        #expect(ready["status"] as? String == "ready")
        // Around the function: a stranger's direct insert fails the row check; nobody sets the
        // outcome or the user, changes a request, or reads another's.
        let direct = Self.call(world.connection, as: world.stranger,
                               "INSERT INTO transcode_retry_requests (version_id) VALUES ($1::uuid) RETURNING id::text AS r", [v])
        #expect(direct.error?.sqlState == "42501")
        #expect(try Self.row(world, v)["status"] == "failed")
        let spoof = Self.call(world.connection, as: world.owner, """
            INSERT INTO transcode_retry_requests (version_id, outcome, user_id) VALUES ($1::uuid, 'QUEUED', gen_random_uuid())
            RETURNING id::text AS r
            """, [v])
        #expect(spoof.error?.sqlState == "42501")
        _ = try Self.retry(world.connection, as: world.owner, v)
        let change = Self.call(world.connection, as: world.owner, "UPDATE transcode_retry_requests SET outcome = 'x' RETURNING id::text AS r", [])
        #expect(change.error?.sqlState == "42501")
        let peek = Self.call(world.connection, as: world.stranger, "SELECT count(*)::text AS r FROM transcode_retry_requests", [])
        #expect(peek.r == "0")
    }

    /// The app hides Retry once a version has failed three times; the server agrees: the version
    /// of `failedVersion` has failed once, so two retries are accepted and the third is refused.
    @Test func afterTheLimitTheAnswerIsACodeTheAppMaps() throws {
        let world = try RoleWorld()
        defer { withExtendedLifetime(world) {} }
        let v = try Self.failedVersion(world)
        func failAgain() throws {
            try world.connection.query("""
                UPDATE transcode_private.room_versions SET status = 'failed', last_error_code = 'TIMEOUT',
                       failure_count = failure_count + 1, error_code = 'ROOM_TRANSCODE_FAILED', error_retryable = true
                 WHERE id = $1::uuid
                """, [v])
        }
        for n in 1..<SchemaCatalog.defaultAppRetryLimit {
            #expect(try Self.appRow(world, v)["retries_left"] == String(SchemaCatalog.defaultAppRetryLimit - n))
            let r = try Self.retry(world.connection, as: world.owner, v)
            #expect(r["ok"] as? Bool == true)
            #expect(r["app_retries"] as? Int == n)
            try failAgain()
        }
        #expect(try Self.appRow(world, v)["failure_count"] == "3")
        #expect(try Self.appRow(world, v)["retries_left"] == "0")
        let refused = try Self.retry(world.connection, as: world.owner, v)
        #expect(refused["ok"] as? Bool == false)
        #expect(refused["error"] as? String == "RETRY_LIMIT_REACHED")
        #expect(try Self.row(world, v)["status"] == "failed")
        // The limit is a database setting; operators keep their own retry (not counted).
        let db = try #require(try world.connection.query("SELECT current_database() AS d").first?["d"])
        try world.connection.query("ALTER DATABASE \(db) SET transcode.app_retry_limit = '4'")
        let fresh = try PGConnection(url: world.project.db.url)
        defer { fresh.close() }
        #expect(try Self.retry(fresh, as: world.owner, v)["ok"] as? Bool == true)
        try failAgain()
        #expect(try QueueStore(connection: world.connection).retryFailed(versionId: v))
        #expect(try Self.row(world, v).int("app_retry_count") == 3)
    }

    /// Only the room's owner may retry, even where everyone may see the room.
    @Test func aStrangerWhoSeesAPublicRoomMayNotRetryIt() throws {
        let world = try RoleWorld()
        defer { withExtendedLifetime(world) {} }
        try world.connection.query("UPDATE rooms SET visibility = 'public' WHERE id = $1::uuid", [world.room])
        let v = try Self.failedVersion(world)
        let r = try Self.retry(world.connection, as: world.stranger, v)
        #expect(r["error"] as? String == "FORBIDDEN")
        #expect(try Self.row(world, v)["status"] == "failed")
        #expect(try Self.row(world, v).int("app_retry_count") == 0)
        #expect(try Self.retry(world.connection, as: world.owner, v)["ok"] as? Bool == true)
    }

    /// A failure a retry cannot mend is refused with the app's code, and spends nothing.
    @Test func aPermanentFailureIsRefusedWithoutSpendingARetry() throws {
        let world = try RoleWorld()
        defer { withExtendedLifetime(world) {} }
        let v = try Self.failedVersion(world)
        try world.connection.query("""
            UPDATE transcode_private.room_versions SET last_error_code = 'FILE_TOO_LARGE', error_code = 'FILE_TOO_LARGE',
                   error_retryable = false WHERE id = $1::uuid
            """, [v])
        #expect(try Self.appRow(world, v)["error"] == "FILE_TOO_LARGE")
        #expect(try Self.appRow(world, v)["retryable"] == "f")
        #expect(try Self.appRow(world, v)["retries_left"] == "0")
        let r = try Self.retry(world.connection, as: world.owner, v)
        #expect(r["error"] as? String == "PERMANENT_FAILURE")
        #expect(r["code"] as? String == "FILE_TOO_LARGE")
        #expect(try Self.row(world, v)["status"] == "failed")
        #expect(try Self.row(world, v).int("app_retry_count") == 0)
    }

    /// The version as the owner's app reads it: `SELECT *` of the app's row, under the owner's JWT.
    static func appRow(_ world: RoleWorld, _ version: String) throws -> PGRow {
        let c = world.connection
        try c.query("BEGIN")
        defer { _ = try? c.query("ROLLBACK") }
        try c.query("SET LOCAL ROLE authenticated")
        try c.query("SELECT set_config('request.jwt.claims', $1, true)", ["{\"sub\":\"\(world.owner)\",\"role\":\"authenticated\"}"])
        return try #require(try c.query("SELECT * FROM \"public\".\"room_versions\" WHERE id = $1::uuid", [version]).first)
    }

    @Test func concurrentTapsQueueOnce() throws {
        let world = try RoleWorld()
        defer { withExtendedLifetime(world) {} }
        let v = try Self.failedVersion(world)
        let connections = try (0..<6).map { _ in try PGConnection(url: world.project.db.url) }
        defer { connections.forEach { $0.close() } }
        let results = ResultBox()
        let owner = world.owner
        DispatchQueue.concurrentPerform(iterations: connections.count) { i in
            let (r, error) = Self.call(connections[i], as: owner, Self.retrySQL, [v])
            results.append(error == nil ? (r ?? "") : "error: \(error!)")
        }
        let queued = results.values.filter { $0.contains("\"deduplicated\": false") }
        let deduplicated = results.values.filter { $0.contains("\"deduplicated\": true") }
        #expect(queued.count == 1, "\(results.values)")
        #expect(deduplicated.count == connections.count - 1)
        #expect(try Self.row(world, v).int("app_retry_count") == 1)
    }

    final class ResultBox: @unchecked Sendable {
        private let lock = NSLock()
        private(set) var values: [String] = []
        func append(_ s: String) { lock.lock(); values.append(s); lock.unlock() }
    }
}
