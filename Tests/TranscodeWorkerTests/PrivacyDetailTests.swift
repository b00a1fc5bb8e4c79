import Foundation
import Testing
@testable import PGQueue

/// The owner's privacy detail (migration 20) under Supabase's roles, read as PostgREST reads it.
@Suite("Privacy detail: the owner's redactions and redo requests", .enabled(if: postgresConfigured), .serialized)
struct PrivacyDetailTests {
    static let ownRows = #"SELECT "public"."redactions".* FROM "public"."redactions" WHERE "public"."redactions"."room_version_id" = $1::uuid"#
    static let redo = "SELECT transcode_request_redo($1::uuid, $2::jsonb)::text AS r"

    static func world() throws -> RoleWorld {
        let world = try RoleWorld()
        try world.connection.query("SELECT transcode_add_redactions($1::uuid, $2::jsonb)", [world.readyVersion,
            #"[{"textureRef":"textures/face.png","kind":"face","region":[[0.1,0.6],[0.2,0.3]],"method":"gaussian_blur_r18"}]"#])
        return world
    }

    @Test func onlyTheOwnerReadsTheirRedactions() throws {
        let world = try Self.world()
        defer { withExtendedLifetime(world) {} }
        let sql = Self.ownRows
        let mine = try AppReadsAsItsCodeDoesTests.asPostgREST(world, .user(world.owner), sql, [world.readyVersion])
        #expect(mine.count == 2)
        #expect(mine.contains { $0["kind"] == "face" && $0["region"]?.contains("\"w\": 0.2") == true && $0["region_origin"] == "bottom_left" })
        #expect(try AppReadsAsItsCodeDoesTests.asPostgREST(world, .user(world.stranger), sql, [world.readyVersion]).isEmpty)
        // A public room shows its versions to everyone, never its redactions.
        try world.connection.query("UPDATE rooms SET visibility = 'public' WHERE id = $1::uuid", [world.room])
        #expect(try AppReadsAsItsCodeDoesTests.asPostgREST(world, .user(world.stranger), sql, [world.readyVersion]).isEmpty)
        #expect(throws: DatabaseError.self) { try AppReadsAsItsCodeDoesTests.asPostgREST(world, .anon, sql, [world.readyVersion]) }
        // Nobody but the worker writes them.
        #expect(throws: DatabaseError.self) {
            try AppReadsAsItsCodeDoesTests.asPostgREST(world, .user(world.owner),
                #"UPDATE "public"."redactions" SET "crop_path" = 'x' WHERE "room_version_id" = $1::uuid RETURNING "id""#, [world.readyVersion])
        }
    }

    @Test func theOwnerAsksForARedoWithNewAreasAndTheVersionIsMadeAgain() throws {
        let world = try Self.world()
        defer { withExtendedLifetime(world) {} }
        let areas = #"[{"textureRef":"textures/face.png","region":[[0.6,0.1],[0.2,0.2]],"method":"gaussian_blur_r18"}]"#
        let stranger = try AppReadsAsItsCodeDoesTests.asPostgREST(world, .user(world.stranger), Self.redo, [world.readyVersion, areas])
        #expect(stranger.first?["r"]?.contains("VERSION_NOT_FOUND") == true)
        #expect(throws: DatabaseError.self) {
            try AppReadsAsItsCodeDoesTests.asPostgREST(world, .anon, Self.redo, [world.readyVersion, areas])
        }
        // PostgREST commits the owner's call: run it in a transaction of its own.
        let c = world.connection
        func ownerRedo(_ body: String) throws -> String {
            try c.query("BEGIN")
            try c.query("SET LOCAL ROLE authenticated")
            try c.query("SELECT set_config('request.jwt.claims', $1, true)", ["{\"sub\":\"\(world.owner)\",\"role\":\"authenticated\"}"])
            let r = try c.query(Self.redo, [world.readyVersion, body]).first?["r"] ?? ""
            try c.query("COMMIT")
            return r
        }
        #expect(try ownerRedo(areas).contains("\"added\": 1"))
        let row = try #require(try c.query("""
            SELECT reprocess_requested_at IS NOT NULL AS queued, reprocess_full, priority FROM transcode_private.room_versions WHERE id = $1::uuid
            """, [world.readyVersion]).first)
        #expect(row.bool("queued") == true && row.bool("reprocess_full") == true && row["priority"] == "0")
        #expect(try c.query("SELECT count(*) AS n FROM redactions WHERE room_version_id = $1::uuid AND kind = 'manual'",
                            [world.readyVersion]).first?.int("n") == 1)
        // The same areas again add nothing; the limit counts requests.
        #expect(try ownerRedo(areas).contains("\"added\": 0"))
        #expect(try ownerRedo("[]").contains("\"ok\": true"))
        #expect(try ownerRedo(areas).contains("REDO_LIMIT_REACHED"))
    }
}
