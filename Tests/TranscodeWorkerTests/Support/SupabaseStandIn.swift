import Foundation
import TestSupport
@testable import TranscodeWorker
@testable import PGQueue

/// What a Supabase project provides that the tests need, on the test Postgres and a loopback
/// HTTP server:
/// - the `realtime` schema's `messages` table and `send(payload, event, topic, private)` function
///   with Supabase's signature (Realtime streams the rows of `realtime.messages` to clients; here
///   the tests read them), and the `anon`, `authenticated` and `service_role` roles;
/// - the `transcode-done` Edge Function's logic (supabase/functions/transcode-done/handler.ts, which
///   `EdgeFunctionTests` runs for real under Deno): the same
///   authentication, validation and answers, calling `transcode_finalize`;
/// - the Realtime REST broadcast endpoint, answering 202 and recording each request.
enum SupabaseStandIn {
    static let realtimeSchemaSQL = """
        CREATE SCHEMA IF NOT EXISTS realtime;
        CREATE TABLE IF NOT EXISTS realtime.messages (
          id          bigserial PRIMARY KEY,
          topic       text NOT NULL,
          extension   text NOT NULL DEFAULT 'broadcast',
          event       text,
          payload     jsonb,
          private     boolean DEFAULT false,
          inserted_at timestamptz NOT NULL DEFAULT now()
        );
        CREATE OR REPLACE FUNCTION realtime.send(payload jsonb, event text, topic text, private boolean DEFAULT true)
        RETURNS void LANGUAGE plpgsql AS $$
        BEGIN
          INSERT INTO realtime.messages (topic, event, payload, private) VALUES (topic, event, payload, private);
        END $$;
        -- Realtime Authorization: the server sets realtime.topic for the channel a client joins and
        -- reads realtime.messages as that client; row level security decides.
        CREATE OR REPLACE FUNCTION realtime.topic() RETURNS text LANGUAGE sql STABLE AS $$
          SELECT nullif(current_setting('realtime.topic', true), '')
        $$;
        ALTER TABLE realtime.messages ENABLE ROW LEVEL SECURITY;
        DO $$ BEGIN
          IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'authenticated') THEN
            GRANT USAGE ON SCHEMA realtime TO authenticated;
            GRANT SELECT ON realtime.messages TO authenticated;
            GRANT EXECUTE ON FUNCTION realtime.topic() TO authenticated;
          END IF;
        END $$;
        """

    /// Cluster-wide roles as Supabase has them (`service_role` bypasses row level security):
    /// created once, tolerating a concurrent creator.
    static let rolesSQL = """
        DO $$ DECLARE r text; BEGIN
          FOREACH r IN ARRAY ARRAY['anon', 'authenticated', 'service_role'] LOOP
            BEGIN
              IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r) THEN
                EXECUTE format('CREATE ROLE %I NOLOGIN', r);
              END IF;
            EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
            END;
          END LOOP;
          IF NOT (SELECT rolbypassrls FROM pg_roles WHERE rolname = 'service_role') THEN
            BEGIN
              ALTER ROLE service_role BYPASSRLS;
            EXCEPTION WHEN OTHERS THEN NULL;
            END;
          END IF;
        END $$;
        """

    /// What a new Supabase project sets up in each database: the client roles may use `public`,
    /// and everything the migrating role creates there is granted to all three roles by default
    /// (tables, functions, sequences); `auth.uid()` reads the request's JWT subject the way
    /// PostgREST hands it over (`request.jwt.claim.sub`, or `sub` in `request.jwt.claims`).
    static let projectDefaultsSQL = """
        GRANT USAGE ON SCHEMA public TO anon, authenticated, service_role;
        ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT ALL ON TABLES TO anon, authenticated, service_role;
        ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT ALL ON FUNCTIONS TO anon, authenticated, service_role;
        ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT ALL ON SEQUENCES TO anon, authenticated, service_role;
        CREATE SCHEMA IF NOT EXISTS auth;
        CREATE OR REPLACE FUNCTION auth.uid() RETURNS uuid LANGUAGE sql STABLE AS $$
          SELECT nullif(coalesce(nullif(current_setting('request.jwt.claim.sub', true), ''),
                                 nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'sub'), '')::uuid
        $$;
        GRANT USAGE ON SCHEMA auth TO anon, authenticated, service_role;
        GRANT EXECUTE ON FUNCTION auth.uid() TO anon, authenticated, service_role;
        """

    /// The files of `supabase/migrations/`, in order.
    static func migrationFiles() throws -> [(name: String, sql: String)] {
        let dir = JobFixture.packageRoot.appendingPathComponent("supabase/migrations")
        return try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".sql") }.sorted().map {
            ($0, try String(contentsOf: dir.appendingPathComponent($0), encoding: .utf8))
        }
    }

    /// Prepares a database as a Supabase project has it and deploys `supabase/migrations/` as the
    /// Supabase CLI does (each file in one transaction).
    /// `through`: deploy only the files whose migrations end at or before that version (to
    /// look at an older schema).
    /// `after`: skip the files whose migrations all come at or before it (a re-run of the newer ones).
    static func deploy(on connection: PGConnection, through: Int? = nil, after: Int? = nil) throws {
        try connection.execute(script: rolesSQL)
        try connection.execute(script: projectDefaultsSQL)
        try connection.execute(script: realtimeSchemaSQL)
        for file in try migrationFiles() {
            if let through, let last = lastMigration(in: file.sql), last > through { continue }
            if let after, let last = lastMigration(in: file.sql), last <= after { continue }
            try connection.query("BEGIN")
            do {
                try connection.execute(script: file.sql)
                try connection.query("COMMIT")
            } catch {
                _ = try? connection.query("ROLLBACK")
                throw error
            }
        }
    }

    /// The last migration a generated file holds (from its first line), nil for other files.
    static func lastMigration(in sql: String) -> Int? {
        guard let header = sql.split(separator: "\n").first, header.contains("schema migrations") else { return nil }
        return header.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .punctuationCharacters)) }.last
    }

    /// The `realtime.messages` rows for `topic`, oldest first: (event, payload, private).
    static func messages(_ connection: PGConnection, topic: String) throws -> [(event: String, payload: [String: Any], isPrivate: Bool)] {
        try connection.query("SELECT event, payload::text AS payload, private FROM realtime.messages WHERE topic = $1 ORDER BY id",
                             [topic]).map { row in
            let payload = (try? JSONSerialization.jsonObject(with: Data((row["payload"] ?? "{}").utf8))) as? [String: Any] ?? [:]
            return (row["event"] ?? "", payload, row.bool("private") ?? false)
        }
    }

    /// The Edge Function's answer to one request, given the callback secret and a database URL.
    static func transcodeDone(_ request: RecordedRequest, secret: String, databaseURL: String) -> LoopbackHTTPServer.Response {
        func answer(_ status: Int, _ body: [String: Any]) -> LoopbackHTTPServer.Response {
            let data = (try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])) ?? Data()
            return (status, [("Content-Type", "application/json")], Array(data))
        }
        guard request.method == "POST" else { return answer(405, ["ok": false, "error": "METHOD_NOT_ALLOWED"]) }
        guard request.headers["authorization"] == "Bearer \(secret)" else { return answer(401, ["ok": false, "error": "UNAUTHORIZED"]) }
        guard request.body.count <= 64 * 1024 else { return answer(413, ["ok": false, "error": "BODY_TOO_LARGE"]) }
        guard let body = try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any] else {
            return answer(400, ["ok": false, "error": "INVALID_JSON"])
        }
        guard body["schema"] as? String == "transcode-done/v1", let version = body["version_id"] as? String,
              UUID(uuidString: version) != nil, let lease = (body["lease"] as? [String: Any])?["lease_id"] as? String,
              UUID(uuidString: lease) != nil, let status = body["status"] as? String, status == "ready" || status == "failed"
        else { return answer(422, ["ok": false, "error": "INVALID_BODY"]) }
        let outputs = body["outputs"] as? [String: Any], error = body["error"] as? [String: Any]
        if status == "ready", outputs?["glb_path"] as? String == nil || outputs?["manifest_path"] as? String == nil {
            return answer(422, ["ok": false, "error": "INVALID_OUTPUTS"])
        }
        if status == "failed", error?["reason"] as? String == nil { return answer(422, ["ok": false, "error": "INVALID_ERROR"]) }
        func text(_ object: [String: Any]?) -> String? {
            object.flatMap { try? JSONSerialization.data(withJSONObject: $0) }.map { String(decoding: $0, as: UTF8.self) }
        }
        guard let connection = try? PGConnection(url: databaseURL) else { return answer(503, ["ok": false, "error": "DATABASE_UNAVAILABLE"]) }
        defer { connection.close() }
        guard let row = try? connection.query(
            "SELECT transcode_finalize($1::uuid, $2::uuid, $3, $4::jsonb, $5::jsonb)::text AS r",
            [version, lease, status, status == "ready" ? text(outputs) : nil, status == "failed" ? text(error) : nil]).first,
              let result = try? JSONSerialization.jsonObject(with: Data((row["r"] ?? "").utf8)) as? [String: Any]
        else { return answer(503, ["ok": false, "error": "DATABASE_UNAVAILABLE"]) }
        if result["ok"] as? Bool == true { return answer(200, result) }
        let code = result["error"] as? String ?? "UNKNOWN"
        switch code {
        case "LEASE_LOST": return answer(409, ["ok": false, "error": code])
        case "VERSION_NOT_FOUND": return answer(404, ["ok": false, "error": code])
        default: return answer(422, ["ok": false, "error": code])
        }
    }
}
