import Foundation
import Testing
@testable import PGQueue

/// The app's own requests, as PostgREST and supabase-swift run them, on a database deployed like a
/// Supabase project with the backend's usual room policies (`RoleWorld`).
///
/// PostgREST runs each request as the JWT's role with the claims set, and always qualifies names
/// with their schema: `GET /rest/v1/room_versions?id=eq.X` with no `select=` (supabase-swift's
/// `.select()` defaults to `*`) is `SELECT "public"."room_versions".* FROM "public"."room_versions"
/// WHERE "public"."room_versions"."id" = $1`.
@Suite("The app's reads, as its code sends them", .enabled(if: postgresConfigured), .serialized)
struct AppReadsAsItsCodeDoesTests {
    enum Who { case anon, user(String) }

    /// Runs `sql` as PostgREST would for `who`, in a transaction that is rolled back.
    static func asPostgREST(_ world: RoleWorld, _ who: Who, _ sql: String, _ params: [String?] = []) throws -> [PGRow] {
        let c = world.connection
        try c.query("BEGIN")
        defer { _ = try? c.query("ROLLBACK") }
        switch who {
        case .anon:
            try c.query("SET LOCAL ROLE anon")
            try c.query("SELECT set_config('request.jwt.claims', '{\"role\":\"anon\"}', true)")
        case .user(let id):
            try c.query("SET LOCAL ROLE authenticated")
            try c.query("SELECT set_config('request.jwt.claims', $1, true), set_config('request.jwt.claim.sub', $2, true)",
                        ["{\"sub\":\"\(id)\",\"role\":\"authenticated\"}", id])
        }
        try c.query("SET LOCAL search_path = public, extensions")
        return try c.query(sql, params)
    }

    /// `GET /rest/v1/room_versions?id=eq.{id}`.
    static let byId = #"SELECT "public"."room_versions".* FROM "public"."room_versions" WHERE "public"."room_versions"."id" = $1::uuid"#
    /// `GET /rest/v1/room_versions?id=in.({a},{b})`.
    static let byIds = #"SELECT "public"."room_versions".* FROM "public"."room_versions" WHERE "public"."room_versions"."id" = ANY($1::uuid[])"#

    @Test func theCatchUpReadReturnsTheAppsRowToThoseWhoSeeTheRoom() throws {
        let world = try RoleWorld()
        defer { withExtendedLifetime(world) {} }
        let row = try #require(try Self.asPostgREST(world, .user(world.owner), Self.byId, [world.readyVersion]).first)
        #expect(row.columns == SchemaCatalog.appVersionColumns)
        #expect(row["status"] == "ready" && row["glb_path"] == world.readyGLB)
        let both = try Self.asPostgREST(world, .user(world.owner), Self.byIds, ["{\(world.readyVersion),\(world.runningVersion)}"])
        #expect(Set(both.compactMap { $0["id"] }) == [world.readyVersion, world.runningVersion])
        // A stranger and anon get no rows and no error while the room is private.
        #expect(try Self.asPostgREST(world, .user(world.stranger), Self.byId, [world.readyVersion]).isEmpty)
        #expect(try Self.asPostgREST(world, .anon, Self.byId, [world.readyVersion]).isEmpty)
        // Once the backend's policy shows the room to everyone, anon reads its versions too.
        try world.connection.query("UPDATE rooms SET visibility = 'public' WHERE id = $1::uuid", [world.room])
        #expect(try Self.asPostgREST(world, .anon, Self.byId, [world.readyVersion]).first?["status"] == "ready")
        #expect(try Self.asPostgREST(world, .user(world.stranger), Self.byId, [world.readyVersion]).count == 1)
    }

    @Test func afterAMissedFailedEventTheRowSaysWhatTheEventSaid() throws {
        let world = try RoleWorld()
        defer { withExtendedLifetime(world) {} }
        let store = QueueStore(connection: world.connection)
        #expect(try store.finalize(versionId: world.runningVersion, leaseId: world.runningLease, status: "failed", error: .object([
            "reason": .string("FILE_TOO_LARGE"), "message": .string("source is 300 MB"), "retryable": .bool(false),
        ])).ok)
        let event = try #require(try SupabaseStandIn.messages(world.connection, topic: "room:\(world.room)").last { $0.event == "failed" })
        #expect(event.payload["error"] as? String == "FILE_TOO_LARGE")
        let row = try #require(try Self.asPostgREST(world, .user(world.owner), Self.byId, [world.runningVersion]).first)
        #expect(row["status"] == "failed")
        #expect(row["error"] == "FILE_TOO_LARGE" && row["retryable"] == "f" && row["retries_left"] == "0")
        #expect(row["failure_count"] == "1")
        #expect(row["seq"] == (event.payload["seq"] as? NSNumber)?.stringValue)
    }

    /// The room page embeds the room's current version. Two foreign keys join `rooms` and
    /// `room_versions`, so the request names one:
    /// `GET /rest/v1/rooms?id=eq.X&select=*,current_version:room_versions!rooms_current_version_id_fkey(*)`.
    /// The feed: `GET /rest/v1/rooms?visibility=eq.public&order=created_at.desc`.
    @Test func theRoomPageEmbedAndTheFeedRunUnderTheAppsRoles() throws {
        let world = try RoleWorld()
        defer { withExtendedLifetime(world) {} }
        let fks = try world.connection.query("""
            SELECT conname FROM pg_constraint WHERE contype = 'f' AND conrelid = 'public.rooms'::regclass
               AND confrelid = 'transcode_private.room_versions'::regclass
            """).compactMap { $0["conname"] }
        #expect(fks == ["rooms_current_version_id_fkey"], "the hint the request names")
        try world.connection.query("UPDATE rooms SET current_version_id = $2::uuid, visibility = 'public' WHERE id = $1::uuid",
                                   [world.room, world.readyVersion])
        let embed = """
            SELECT "public"."rooms".*, row_to_json("rooms_current_version_1".*) AS "current_version"
              FROM "public"."rooms"
              LEFT JOIN LATERAL (SELECT "room_versions_1".* FROM "public"."room_versions" AS "room_versions_1"
                                  WHERE "room_versions_1"."id" = "public"."rooms"."current_version_id") AS "rooms_current_version_1" ON TRUE
             WHERE "public"."rooms"."id" = $1::uuid
            """
        for who in [Who.anon, .user(world.owner), .user(world.stranger)] {
            let room = try #require(try Self.asPostgREST(world, who, embed, [world.room]).first)
            #expect(room["current_version"]?.contains(world.readyGLB) == true)
            #expect(room["current_version"]?.contains("lease") == false)
        }
        let feed = #"SELECT "public"."rooms".* FROM "public"."rooms" WHERE "public"."rooms"."visibility" = $1 ORDER BY "public"."rooms"."created_at" DESC"#
        #expect(try Self.asPostgREST(world, .anon, feed, ["public"]).compactMap { $0["id"] } == [world.room])
    }

    @Test func theWorkersColumnsOfRoomsAreNotTheOwnersToWrite() throws {
        let world = try RoleWorld()
        defer { withExtendedLifetime(world) {} }
        let title = try Self.asPostgREST(world, .user(world.owner),
                                         #"UPDATE "public"."rooms" SET "name" = 'my den' WHERE "id" = $1::uuid RETURNING "id""#, [world.room])
        #expect(title.count == 1, "the owner's own columns stay theirs")
        for (column, value) in [("thumbnail_path", "'other/card.webp'"), ("thumbnail_bucket", "'elsewhere'"),
                                ("quality_grade", "'A'"), ("current_version_id", "NULL")] {
            try world.connection.query("UPDATE rooms SET current_version_id = $2::uuid WHERE id = $1::uuid", [world.room, world.readyVersion])
            #expect(throws: DatabaseError.self, "\(column)") {
                try Self.asPostgREST(world, .user(world.owner),
                                     #"UPDATE "public"."rooms" SET "\#(column)" = \#(value) WHERE "id" = $1::uuid RETURNING "id""#, [world.room])
            }
        }
        // The worker's finalize still moves the room forward.
        #expect(try world.connection.query("SELECT thumbnail_path FROM rooms WHERE id = $1::uuid", [world.room]).first?["thumbnail_path"] == nil)
    }

    /// Public channels can be written by anyone holding the anon key; a private one refuses a
    /// client's broadcast (no INSERT policy on `realtime.messages`).
    @Test func aClientCannotBroadcastOnAPrivateChannel() throws {
        let world = try RoleWorld()
        defer { withExtendedLifetime(world) {} }
        for who in [Who.user(world.owner), .user(world.stranger), .anon] {
            #expect(throws: DatabaseError.self) {
                try Self.asPostgREST(world, who, """
                    INSERT INTO realtime.messages (topic, extension, event, payload, private)
                    VALUES ($1, 'broadcast', 'ready', '{"status":"ready"}'::jsonb, true) RETURNING id
                    """, ["room:\(world.room)"])
            }
        }
    }
}
