import Foundation
import Testing
@testable import TranscodeWorker
@testable import PGQueue

/// A Supabase project with the worker's migrations, a backend room policy (owners read their
/// rooms), one owner with a ready and a running version, and a stranger with a room of their own.
final class RoleWorld {
    let project: SupabaseProject
    let owner = UUID().uuidString.lowercased(), stranger = UUID().uuidString.lowercased()
    let room = UUID().uuidString.lowercased(), strangersRoom = UUID().uuidString.lowercased()
    let readyVersion = UUID().uuidString.lowercased(), runningVersion = UUID().uuidString.lowercased()
    private(set) var readyGLB = ""
    private(set) var runningLease = ""
    /// The worker's table, qualified as the migrations left it.
    private(set) var versionsTable = "room_versions"

    var connection: PGConnection { project.connection }
    var actions: ClientActions { ClientActions(connection: project.connection) }

    /// The backend's own room rules, as a CrowdRoom backend writes them: owners read and update
    /// their rooms, everyone (signed in or not) reads public rooms.
    static let backendRoomPolicySQL = """
        ALTER TABLE rooms ADD COLUMN IF NOT EXISTS owner_id uuid;
        ALTER TABLE rooms ADD COLUMN IF NOT EXISTS visibility text NOT NULL DEFAULT 'private';
        CREATE POLICY rooms_owner_read ON rooms FOR SELECT TO authenticated USING (owner_id = auth.uid());
        CREATE POLICY rooms_public_read ON rooms FOR SELECT TO anon, authenticated USING (visibility = 'public');
        CREATE POLICY rooms_owner_update ON rooms FOR UPDATE TO authenticated
          USING (owner_id = auth.uid()) WITH CHECK (owner_id = auth.uid());
        """

    init(through: Int? = nil) throws {
        project = try SupabaseProject(through: through)
        let c = project.connection
        try c.execute(script: Self.backendRoomPolicySQL)
        // Plain SQL, so the same world can be built on the schema of any migration.
        let prefix = "rooms/\(room)/versions/\(readyVersion)/r1-0a0b0c0d/"
        readyGLB = prefix + "model.glb"
        runningLease = UUID().uuidString.lowercased()
        try c.query("INSERT INTO rooms (id, name) VALUES ($1::uuid, 'living room')", [room])
        // The worker's table: in `transcode_private` from migration 15 on, in `public` before.
        let table = try c.query("SELECT coalesce(to_regclass('transcode_private.room_versions')::text, 'room_versions') AS t")
            .first?["t"] ?? "room_versions"
        versionsTable = table
        try c.query("""
            INSERT INTO \(table) (id, room_id, status, source_usdz_path, glb_path, manifest_path, thumbnail_path,
                                       thumbnail_paths, output_revision, manifest_schema_version, transcoded_at)
            VALUES ($1::uuid, $2::uuid, 'ready', $3, $4, $5, $6, $7::jsonb, 1, 1, now())
            """, [readyVersion, room, "rooms/\(room)/versions/\(readyVersion)/source.usdz", readyGLB, prefix + "layer_manifest.json",
                  prefix + "thumbs/hero.webp", #"[{"path":"\#(prefix)thumbs/hero.webp","kind":"hero"}]"#])
        try c.query("INSERT INTO redactions (room_version_id, texture_path, redacted_path) VALUES ($1::uuid, 'textures/face.png', $2)",
                    [readyVersion, "rooms/\(room)/versions/\(readyVersion)/redacted/textures/face.png"])
        try c.query("""
            INSERT INTO \(table) (id, room_id, status, source_usdz_path, attempt, lease_id, locked_by, locked_at,
                                       lease_expires_at, heartbeat_at, transcode_phase, last_error_code, last_error, errors)
            VALUES ($1::uuid, $2::uuid, 'transcoding', $3, 2, $4::uuid, 'tw-roles', now(), now() + interval '10 minutes', now(),
                    'layering', 'SOURCE_DOWNLOAD_FAILED', 'S3 bucket rooms-private at 10.1.2.3 said 503',
                    '[{"attempt":1,"code":"SOURCE_DOWNLOAD_FAILED","message":"S3 bucket rooms-private at 10.1.2.3 said 503"}]'::jsonb)
            """, [runningVersion, room, "rooms/\(room)/versions/\(runningVersion)/source.usdz", runningLease])
        try c.query("INSERT INTO rooms (id, name) VALUES ($1::uuid, 'other') ON CONFLICT DO NOTHING", [strangersRoom])
        try c.query("UPDATE rooms SET owner_id = $2::uuid WHERE id = $1::uuid", [room, owner])
        try c.query("UPDATE rooms SET owner_id = $2::uuid WHERE id = $1::uuid", [strangersRoom, stranger])
    }

    func through(_ who: ClientActions.Identity, version: String? = nil) -> [String] {
        actions.through(as: who, room: room, version: version ?? runningVersion, lease: runningLease)
    }
}

@Suite("Supabase roles: what app clients can read and change", .enabled(if: postgresConfigured), .serialized)
struct SupabaseRoleTests {
    @Test func anonymousClientsReachNothing() throws {
        let world = try RoleWorld()
        defer { withExtendedLifetime(world) {} }
        for version in [world.runningVersion, world.readyVersion] {
            #expect(world.through(.anon, version: version) == [])
        }
    }

    @Test func aSignedInStrangerReachesNothingOfAnotherRoom() throws {
        let world = try RoleWorld()
        defer { withExtendedLifetime(world) {} }
        for version in [world.runningVersion, world.readyVersion] {
            #expect(world.through(.user(world.stranger), version: version) == [])
        }
        // The stranger still reads their own room (the backend's policy), and no version of ours.
        let own = world.actions.attempt(ClientActions.all[0], as: .user(world.stranger), room: world.strangersRoom,
                                        version: world.readyVersion, lease: world.runningLease)
        #expect(own.through)
    }

    @Test func theOwnerReadsStatusAndOutputsAndNothingElse() throws {
        let world = try RoleWorld()
        defer { withExtendedLifetime(world) {} }
        #expect(world.through(.user(world.owner)) == ["read the room", "read version status and outputs",
                                                      "read whole version rows", "read redactions", "change the room"])
        let read = world.actions.attempt(ClientActions.all[1], as: .user(world.owner), room: world.room,
                                         version: world.readyVersion, lease: world.runningLease)
        let rows = Dictionary(uniqueKeysWithValues: read.rows.map { ($0["id"] ?? "", $0) })
        #expect(rows.count == 2)
        #expect(rows[world.readyVersion]?["status"] == "ready")
        #expect(rows[world.readyVersion]?["glb_path"] == world.readyGLB)
        #expect(rows[world.readyVersion]?["thumbnail_paths"]?.contains("hero.webp") == true)
        #expect(rows[world.runningVersion]?["status"] == "transcoding")
        // Every internal column is absent from the app's row and refused by name on the worker's table.
        for column in ["lease_id", "locked_by", "locked_at", "lease_expires_at", "heartbeat_at", "errors", "last_error",
                       "last_error_code", "run_after", "attempt", "max_attempts", "priority", "cancel_requested_at",
                       "reprocess_requested_at", "transcode_phase", "source_usdz_path", "source_json_path", "enqueued_at"] {
            let r = world.actions.attempt(.init(name: column, sql: "SELECT \(column) FROM transcode_private.room_versions"),
                                          as: .user(world.owner), room: world.room, version: world.readyVersion,
                                          lease: world.runningLease)
            #expect(r.error?.contains("permission denied") == true, "\(column): \(r.error ?? "readable")")
            #expect(!SchemaCatalog.appVersionColumns.contains(column))
        }
    }

    @Test func theWorkerAndTheServiceRoleKeepWorking() throws {
        let world = try RoleWorld()
        defer { withExtendedLifetime(world) {} }
        let c = world.connection
        // service_role (the transcode-done Edge Function, operators) reads everything and finalizes.
        try c.query("BEGIN")
        try c.query("SET LOCAL ROLE service_role")
        let rows = try c.query("SELECT lease_id, errors::text AS errors FROM transcode_private.room_versions WHERE id = $1::uuid",
                               [world.runningVersion])
        #expect(rows.first?["lease_id"] == world.runningLease)
        let answer = try c.query("SELECT transcode_finalize($1::uuid, $2::uuid, 'failed', NULL, $3::jsonb)::text AS r",
                                 [world.runningVersion, world.runningLease, #"{"reason":"SOURCE_NOT_FOUND","message":"gone from bucket x"}"#])
        try c.query("COMMIT")
        #expect(answer.first?["r"]?.contains("\"ok\": true") == true)
        // The worker (the database owner) claims and finalizes as before.
        let store = QueueStore(connection: c)
        let v = UUID().uuidString.lowercased()
        try store.submit(versionId: v, roomId: world.room, roomName: nil, usdzKey: "rooms/\(world.room)/versions/\(v)/s.usdz", jsonKey: nil)
        let job = try #require(try store.claim(workerId: "tw-roles", leaseSeconds: 60))
        #expect(try store.finalize(versionId: v, leaseId: job.leaseId, status: "ready", outputs: .object([
            "glb_path": .string(job.outputPrefix + "model.glb"), "manifest_path": .string(job.outputPrefix + "layer_manifest.json"),
        ])).ok)
    }

    @Test func terminalEventsCarryOnlyTheFixedMessageOfTheirReason() throws {
        let world = try RoleWorld()
        defer { withExtendedLifetime(world) {} }
        let store = QueueStore(connection: world.connection)
        let detail = "SOURCE_DOWNLOAD_FAILED: GET https://abc.storage.supabase.co/rooms-private/uploads/x: 403 key AKIA123"
        #expect(try store.finalize(versionId: world.runningVersion, leaseId: world.runningLease, status: "failed", error: .object([
            "reason": .string("SOURCE_DOWNLOAD_FAILED"), "message": .string(detail), "retryable": .bool(false),
        ])).ok)
        let events = try SupabaseStandIn.messages(world.connection, topic: "room:\(world.room)")
        let failed = try #require(events.last { $0.event == "failed" })
        let text = String(decoding: try JSONSerialization.data(withJSONObject: failed.payload), as: UTF8.self)
        #expect(!text.contains("supabase.co") && !text.contains("AKIA") && !text.contains("rooms-private"))
        let message = failed.payload["message"] as? String
        #expect(message == SchemaCatalog.safeMessages.first { $0.reason == "SOURCE_DOWNLOAD_FAILED" }?.message)
        // The operator keeps the detail, in a column clients cannot read.
        #expect(try store.show(versionId: world.runningVersion)?["last_error"] == detail)
    }

    @Test func theCatalogGrantsClientRolesNothingElse() throws {
        let world = try RoleWorld()
        defer { withExtendedLifetime(world) {} }
        let c = world.connection
        let tables = try c.query("""
            SELECT c.relname, c.relrowsecurity FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
             WHERE n.nspname = 'public' AND c.relkind IN ('r', 'v', 'm', 'p') ORDER BY c.relname
            """)
        #expect(Set(tables.compactMap { $0["relname"] }) == ["redactions", "room_versions", "rooms", "transcode_schema_migrations",
                                                             "transcode_attempts", "transcode_event_log", "transcode_retry_requests",
                                                             "transcode_console_signouts", "transcode_redo_requests"])
        for t in tables {
            let name = try #require(t["relname"])
            if name == "room_versions" { continue }   // the app's view: below
            #expect(t.bool("relrowsecurity") == true, "\(name) has no row level security")
            for role in ["anon", "authenticated"] {
                // Owners read their redactions (migration 20; the policy keeps everyone else out).
                let privileges = name == "rooms" ? "TRUNCATE, REFERENCES, TRIGGER"
                    : name == "redactions" && role == "authenticated" ? "INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER"
                    : "SELECT, INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER"
                let held = try c.query("SELECT has_table_privilege($1, $2, $3) AS held", [role, "public." + name, privileges])
                #expect(held.first?.bool("held") == false, "\(role) holds a table privilege on \(name)")
            }
        }
        // public.room_versions is a view read with the reader's own rights; clients may only read it.
        let view = try c.query("""
            SELECT c.relkind::text AS kind, coalesce(array_to_string(c.reloptions, ','), '') AS options
              FROM pg_class c WHERE c.oid = 'public.room_versions'::regclass
            """).first
        #expect(view?["kind"] == "v")
        #expect(view?["options"]?.contains("security_invoker=true") == true)
        for role in ["anon", "authenticated"] {
            let held = try c.query("""
                SELECT has_table_privilege($1, 'public.room_versions', 'SELECT') AS reads,
                       has_table_privilege($1, 'public.room_versions', 'INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER') AS writes,
                       has_table_privilege($1, 'transcode_private.room_versions', 'SELECT, INSERT, UPDATE, DELETE, TRUNCATE') AS table_wide
                """, [role]).first
            #expect(held?.bool("reads") == true && held?.bool("writes") == false && held?.bool("table_wide") == false, "\(role)")
            let columns = try c.query("""
                SELECT attname FROM pg_attribute WHERE attrelid = 'transcode_private.room_versions'::regclass AND attnum > 0
                   AND NOT attisdropped AND has_column_privilege($1, 'transcode_private.room_versions', attname, 'SELECT')
                 ORDER BY attname
                """, [role]).compactMap { $0["attname"] }
            #expect(columns == SchemaCatalog.appVersionTableColumns.sorted(), "\(role)")
            let writable = try c.query("""
                SELECT count(*) AS n FROM pg_attribute WHERE attrelid = 'transcode_private.room_versions'::regclass AND attnum > 0
                   AND NOT attisdropped AND has_column_privilege($1, 'transcode_private.room_versions', attname, 'INSERT, UPDATE, REFERENCES')
                """, [role])
            #expect(writable.first?.int("n") == 0, "\(role)")
        }
        let viewColumns = try c.query("""
            SELECT attname FROM pg_attribute WHERE attrelid = 'public.room_versions'::regclass AND attnum > 0 ORDER BY attnum
            """).compactMap { $0["attname"] }
        #expect(viewColumns == SchemaCatalog.appVersionColumns)
        let callable = try c.query("""
            SELECT p.proname, r.rolname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
              CROSS JOIN (VALUES ('anon'), ('authenticated')) AS r(rolname)
             WHERE n.nspname IN ('public', 'transcode_private') AND has_function_privilege(r.rolname, p.oid, 'EXECUTE')
             ORDER BY 1, 2
            """).map { "\($0["rolname"] ?? "")→\($0["proname"] ?? "")" }
        // The app's retry button (migration 12) and the owner's redo request (migration 20) are the
        // functions a signed-in client may call; the retry limit is read by the app's view for its
        // `retries_left`.
        #expect(callable == ["authenticated→transcode_app_retry", "anon→transcode_app_retry_limit",
                             "authenticated→transcode_app_retry_limit", "authenticated→transcode_request_redo"])
        func retryColumns(_ role: String, _ privilege: String) throws -> [String] {
            try c.query("""
                SELECT attname FROM pg_attribute WHERE attrelid = 'public.transcode_retry_requests'::regclass AND attnum > 0
                   AND NOT attisdropped AND has_column_privilege($1, 'public.transcode_retry_requests', attname, $2) ORDER BY attname
                """, [role, privilege]).compactMap { $0["attname"] }
        }
        #expect(try retryColumns("authenticated", "SELECT") == (SchemaCatalog.clientReadableRetryColumns + ["error_code"]).sorted())
        #expect(try retryColumns("authenticated", "INSERT") == ["version_id"])
        #expect(try retryColumns("authenticated", "UPDATE") == [])
        #expect(try retryColumns("anon", "SELECT, INSERT, UPDATE, REFERENCES") == [])
    }

    /// The fixture is not vacuous: on the schema before migration 5 the same actions get through.
    @Test func theSchemaBeforeMigration5LetClientsThrough() throws {
        let world = try RoleWorld(through: 4)
        defer { withExtendedLifetime(world) {} }
        let anon = world.through(.anon)
        #expect(anon.contains("mark the version ready with any glb_path"))
        #expect(anon.contains("read lease ids"))
        #expect(anon.contains("insert a redaction"))
        #expect(anon.count >= 14, "got through: \(anon)")
    }
}
