/// Migration 5: what app clients may reach.
///
/// On Supabase, the REST API runs every request as `anon` (no session) or `authenticated` (a
/// signed-in user), and a new project's default privileges grant both roles ALL on every table
/// and function created in `public`. The worker's tables hold queue internals (lease ids,
/// `locked_by`, heartbeats, attempt errors with storage details, `run_after`), the migration
/// ledger and redaction rows; none of it is for clients. This migration closes them, keeping the
/// tables in `public` (the worker, the backend's SQL and `service_role` use them there):
///
/// - row level security on `rooms`, `room_versions`, `redactions` and the ledger; without a
///   policy a client role sees no row and can change none;
/// - `room_versions`: `anon` gets nothing; `authenticated` may SELECT only the columns the app
///   reads (`id`, `room_id`, `status`, output paths and thumbnails, schema version, revision,
///   times) and only rows whose room it can already see: the policy asks `rooms`, so the
///   backend's own room policies decide. No INSERT, UPDATE or DELETE for either role;
/// - `redactions` and the ledger: no privilege at all for client roles;
/// - `rooms`: the backend's table; only TRUNCATE, REFERENCES and TRIGGER (never needed by a
///   client, and TRUNCATE ignores row level security) are taken from the client roles;
/// - the worker's functions are executable by their owner and `service_role` only.
///
/// Role-specific statements run only where the role exists, so a plain Postgres gets the same
/// migration. The database owner (the worker's `DATABASE_URL`) and `service_role` (BYPASSRLS
/// on Supabase) are not limited. Terminal events carry a fixed message per reason
/// (`transcode_safe_message`), never the worker's detailed error text (kept in the row's
/// `last_error` and `errors`, which clients cannot read).
extension SchemaCatalog {
    /// The `room_versions` columns a signed-in app client may read: those migration 5 granted and
    /// those later migrations added (`clientReadableColumnsOfBuckets`).
    public static let clientReadableVersionColumns = accessReadableVersionColumns + clientReadableColumnsOfBuckets

    /// The columns migration 5 grants.
    static let accessReadableVersionColumns = [
        "id", "room_id", "status", "glb_path", "manifest_path", "thumbnail_path", "thumbnail_paths",
        "manifest_schema_version", "output_revision", "transcoded_at", "created_at", "updated_at",
    ]

    /// The worker's functions, with their argument types.
    static let workerFunctions = [
        "transcode_finalize(uuid, uuid, text, jsonb, jsonb)", "transcode_cancel(uuid)", "transcode_emit_event(jsonb)",
        "room_versions_notify_queued()", "transcode_safe_message(text)",
    ]

    /// The fixed, client-safe message of each failure reason (no bucket, key, host or detail).
    static let safeMessages: [(reason: String, message: String)] = [
        ("SOURCE_NOT_FOUND", "The uploaded scan could not be found."),
        ("SOURCE_KEY_REFUSED", "The uploaded scan is not stored where this room's files belong."),
        ("FILE_TOO_LARGE", "The uploaded scan is too large."),
        ("SOURCE_DOWNLOAD_FAILED", "The uploaded scan could not be read from storage."),
        ("USDZ_PARSE_ERROR", "The 3D scan file could not be read."),
        ("ROOMPLAN_JSON_INVALID", "The room description file could not be read."),
        ("REDACTION_INVALID", "A blurred texture does not match the scan."),
        ("LAYERING_FAILED", "The room could not be assembled from the scan."),
        ("PREVIEW_FAILED", "The room's preview images could not be made."),
        ("OUTPUT_UPLOAD_FAILED", "The processed room could not be stored."),
        ("TIMEOUT", "Processing took too long."),
        ("LEASE_EXPIRED", "The worker processing the room stopped."),
        ("CANCELLED", "Processing was cancelled."),
        ("COMPLETION_REJECTED", "The processed room could not be recorded."),
        ("INTERNAL", "Processing failed because of an internal error."),
    ]

    static let clientAccess: String = {
        let cases = safeMessages.map { "    WHEN '\($0.reason)' THEN '\($0.message.replacingOccurrences(of: "'", with: "''"))'" }
            .joined(separator: "\n")
        let functions = workerFunctions.joined(separator: ", ")
        let columns = accessReadableVersionColumns.joined(separator: ", ")
        let safe = """
            CREATE OR REPLACE FUNCTION transcode_safe_message(p_reason text)
            RETURNS text LANGUAGE sql IMMUTABLE AS $$
              SELECT CASE p_reason
            \(cases)
                ELSE 'Processing failed.' END
            $$;

            """
        let lockDown = """
            ALTER TABLE rooms ENABLE ROW LEVEL SECURITY;
            ALTER TABLE room_versions ENABLE ROW LEVEL SECURITY;
            ALTER TABLE redactions ENABLE ROW LEVEL SECURITY;
            ALTER TABLE transcode_schema_migrations ENABLE ROW LEVEL SECURITY;
            REVOKE ALL ON TABLE room_versions, redactions, transcode_schema_migrations FROM PUBLIC;
            REVOKE ALL ON FUNCTION \(functions) FROM PUBLIC;
            DO $$ DECLARE r text; BEGIN
              FOREACH r IN ARRAY ARRAY['anon', 'authenticated'] LOOP
                IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r) THEN
                  EXECUTE format('REVOKE ALL ON TABLE room_versions, redactions, transcode_schema_migrations FROM %I', r);
                  EXECUTE format('REVOKE TRUNCATE, REFERENCES, TRIGGER ON TABLE rooms FROM %I', r);
                  EXECUTE format('REVOKE ALL ON FUNCTION \(functions) FROM %I', r);
                END IF;
              END LOOP;
              DROP POLICY IF EXISTS room_versions_read_through_room ON room_versions;
              IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'authenticated') THEN
                GRANT SELECT (\(columns)) ON room_versions TO authenticated;
                CREATE POLICY room_versions_read_through_room ON room_versions FOR SELECT TO authenticated
                  USING (EXISTS (SELECT 1 FROM rooms r WHERE r.id = room_versions.room_id));
              END IF;
              IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'service_role') THEN
                GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE rooms, room_versions, redactions TO service_role;
                GRANT SELECT ON TABLE transcode_schema_migrations TO service_role;
                GRANT EXECUTE ON FUNCTION transcode_finalize(uuid, uuid, text, jsonb, jsonb), transcode_cancel(uuid),
                  transcode_emit_event(jsonb), transcode_safe_message(text) TO service_role;
              END IF;
            END $$;
            """
        // transcode_finalize and transcode_cancel as migration 4 left them, with the fixed message.
        let replacements: [(String, String)] = [
            ("'message', left(p_error->>'message', 500),", "'message', transcode_safe_message(p_error->>'reason'),"),
            ("'message', 'cancelled by an operator', 'retryable', false),", "'message', transcode_safe_message('CANCELLED'), 'retryable', false),"),
        ]
        var body = eventDelivery
        if let cut = body.range(of: "CREATE OR REPLACE FUNCTION transcode_finalize(") {
            body = String(body[cut.lowerBound...])
        }
        for (old, new) in replacements {
            precondition(body.contains(old), "migration 4 text changed: \(old)")
            body = body.replacingOccurrences(of: old, with: new)
        }
        return safe + body + "\n" + lockDown
    }()
}
