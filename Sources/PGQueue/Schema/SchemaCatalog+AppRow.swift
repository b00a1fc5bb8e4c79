/// Migration 15: the app's row and the worker's table.
///
/// The iOS app re-reads a version with `GET /rest/v1/room_versions?id=eq.…` (or `id=in.(…)`) and no
/// `select=`, so PostgREST runs `SELECT "public"."room_versions".*`: every column of what it reads
/// must be readable by whoever may see the row, and nothing internal may be there.
///
/// - The table, with the queue's state (lease, worker, heartbeats, attempts, `run_after`, error
///   details, source keys and buckets, plan options), moves to the schema `transcode_private`, which
///   PostgREST does not expose (`ALTER TABLE … SET SCHEMA`: a catalog change, no rows copied, no
///   downtime; indexes, triggers, policies and foreign keys move with it). The worker names it
///   `transcode_private.room_versions` in every statement.
/// - `public.room_versions` becomes a view of the app's columns (`appVersionColumns`), with
///   `security_invoker`, so the reader's own privileges and the table's row level security apply:
///   a client sees a version exactly when the backend's `rooms` policies show it the room, `anon`
///   included (public rooms). Client roles hold `SELECT` on those columns of the table and `USAGE`
///   on the schema, which a view read through PostgREST needs; nothing else.
/// - New on the row: `error` (the code the app maps, §5.3: `FILE_TOO_LARGE`, `REDACTION_INVALID`,
///   else `ROOM_TRANSCODE_FAILED`), `retryable` and `retries_left` (how many more times the app's
///   Retry is accepted: 0 once the version failed `transcode.app_retry_limit` times or for a
///   failure a retry cannot mend), each NULL/0 unless the version is `failed`, and `seq`.
/// - `transcode_set_version_inputs(version_id, inputs jsonb)`: how the backend's upload-complete
///   records the sources and options it used to write on the row (service role only).
extension SchemaCatalog {
    /// The schema PostgREST does not expose, holding the worker's tables.
    public static let privateSchema = "transcode_private"

    /// The columns of `public.room_versions`, the app's row, in order.
    public static let appVersionColumns = [
        "id", "room_id", "status", "glb_path", "manifest_path", "thumbnail_path", "thumbnail_paths",
        "output_bucket", "quality_grade", "manifest_schema_version", "output_revision", "transcoded_at",
        "created_at", "updated_at", "failure_count", "error", "retryable", "retries_left", "seq",
    ]

    /// The table columns the view reads, granted to client roles for `security_invoker`.
    static let appVersionTableColumns = [
        "id", "room_id", "status", "glb_path", "manifest_path", "thumbnail_path", "thumbnail_paths",
        "output_bucket", "quality_grade", "manifest_schema_version", "output_revision", "transcoded_at",
        "created_at", "updated_at", "failure_count", "error_code", "error_retryable", "event_seq",
    ]

    /// The inputs `transcode_set_version_inputs` accepts, each a text column of the table.
    public static let versionInputColumns = [
        "source_usdz_path", "source_json_path", "source_bucket", "app_quality_grade", "plan_units", "plan_locale",
    ]

    /// The app's error code of a failure reason (its plan's §5.3); every other reason is
    /// `ROOM_TRANSCODE_FAILED`.
    public static let appErrorCodes: [(reason: String, code: String)] = [
        ("FILE_TOO_LARGE", "FILE_TOO_LARGE"), ("REDACTION_INVALID", "REDACTION_INVALID"),
    ]

    static let appRow: String = {
        let tableColumns = appVersionTableColumns.joined(separator: ", ")
        let codes = appErrorCodes.map { "    WHEN '\($0.reason)' THEN '\($0.code)'" }.joined(separator: "\n")
        let inputs = versionInputColumns.map {
            "      \($0) = CASE WHEN p_inputs ? '\($0)' THEN p_inputs->>'\($0)' ELSE \($0) END"
        }.joined(separator: ",\n")
        let inputList = versionInputColumns.map { "'\($0)'" }.joined(separator: ", ")
        return """
            CREATE SCHEMA IF NOT EXISTS transcode_private;
            REVOKE ALL ON SCHEMA transcode_private FROM PUBLIC;
            DO $$ BEGIN
              IF EXISTS (SELECT 1 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                          WHERE n.nspname = 'public' AND c.relname = 'room_versions' AND c.relkind IN ('r', 'p')) THEN
                ALTER TABLE public.room_versions SET SCHEMA transcode_private;
              END IF;
            END $$;
            ALTER TABLE transcode_private.room_versions
              ADD COLUMN IF NOT EXISTS error_code      text,
              ADD COLUMN IF NOT EXISTS error_retryable boolean;

            CREATE OR REPLACE FUNCTION transcode_app_error(p_reason text)
            RETURNS text LANGUAGE sql IMMUTABLE AS $$
              SELECT CASE p_reason
            \(codes)
                ELSE 'ROOM_TRANSCODE_FAILED' END
            $$;
            UPDATE transcode_private.room_versions
               SET error_code = transcode_app_error(last_error_code),
                   error_retryable = coalesce(last_error_code NOT IN ('CANCELLED', 'UPLOAD_EXPIRED', 'FILE_TOO_LARGE',
                     'REDACTION_INVALID', 'USDZ_PARSE_ERROR', 'ROOMPLAN_JSON_INVALID', 'SOURCE_KEY_REFUSED'), true)
             WHERE status = 'failed' AND error_code IS NULL;

            CREATE OR REPLACE VIEW public.room_versions WITH (security_invoker = true) AS
            SELECT v.id, v.room_id, v.status, v.glb_path, v.manifest_path, v.thumbnail_path, v.thumbnail_paths,
                   v.output_bucket, v.quality_grade, v.manifest_schema_version, v.output_revision, v.transcoded_at,
                   v.created_at, v.updated_at, v.failure_count,
                   CASE WHEN v.status = 'failed' THEN v.error_code END AS error,
                   CASE WHEN v.status = 'failed' THEN v.error_retryable END AS retryable,
                   CASE WHEN v.status = 'failed' AND coalesce(v.error_retryable, false)
                        THEN greatest(0, transcode_app_retry_limit() - v.failure_count) ELSE 0 END AS retries_left,
                   v.event_seq AS seq
              FROM transcode_private.room_versions v;
            COMMENT ON VIEW public.room_versions IS
              'The app''s row of each version; the worker''s table is transcode_private.room_versions.';

            CREATE OR REPLACE FUNCTION transcode_set_version_inputs(p_version_id uuid, p_inputs jsonb)
            RETURNS jsonb LANGUAGE plpgsql SET search_path = pg_catalog, transcode_private, public AS $$
            DECLARE
              bad text;
            BEGIN
              IF p_inputs IS NULL OR jsonb_typeof(p_inputs) <> 'object' THEN
                RETURN jsonb_build_object('ok', false, 'error', 'INVALID_INPUTS');
              END IF;
              SELECT k INTO bad FROM jsonb_object_keys(p_inputs) k
               WHERE k NOT IN (\(inputList)) OR jsonb_typeof(p_inputs -> k) NOT IN ('string', 'null') LIMIT 1;
              IF bad IS NOT NULL THEN
                RETURN jsonb_build_object('ok', false, 'error', 'INVALID_INPUTS', 'key', bad);
              END IF;
              UPDATE transcode_private.room_versions SET
            \(inputs),
                  updated_at = now()
               WHERE id = p_version_id;
              IF NOT FOUND THEN
                RETURN jsonb_build_object('ok', false, 'error', 'VERSION_NOT_FOUND');
              END IF;
              RETURN jsonb_build_object('ok', true);
            END $$;

            REVOKE ALL ON FUNCTION transcode_app_error(text), transcode_set_version_inputs(uuid, jsonb) FROM PUBLIC;
            DO $$ DECLARE r text; readers text := ''; BEGIN
              FOREACH r IN ARRAY ARRAY['anon', 'authenticated'] LOOP
                IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r) THEN
                  EXECUTE format('REVOKE ALL ON FUNCTION transcode_app_error(text), transcode_set_version_inputs(uuid, jsonb) FROM %I', r);
                  EXECUTE format('GRANT USAGE ON SCHEMA transcode_private TO %I', r);
                  EXECUTE format('REVOKE ALL ON TABLE transcode_private.room_versions FROM %I', r);
                  EXECUTE format('GRANT SELECT (\(tableColumns)) ON transcode_private.room_versions TO %I', r);
                  EXECUTE format('REVOKE ALL ON TABLE public.room_versions FROM %I', r);
                  EXECUTE format('GRANT SELECT ON TABLE public.room_versions TO %I', r);
                  EXECUTE format('GRANT EXECUTE ON FUNCTION transcode_app_retry_limit() TO %I', r);
                  readers := readers || CASE WHEN readers = '' THEN '' ELSE ', ' END || quote_ident(r);
                END IF;
              END LOOP;
              DROP POLICY IF EXISTS room_versions_read_through_room ON transcode_private.room_versions;
              IF readers <> '' THEN
                EXECUTE 'CREATE POLICY room_versions_read_through_room ON transcode_private.room_versions FOR SELECT TO '
                  || readers || ' USING (EXISTS (SELECT 1 FROM public.rooms r WHERE r.id = room_versions.room_id))';
              END IF;
              IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'service_role') THEN
                GRANT USAGE ON SCHEMA transcode_private TO service_role;
                GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE transcode_private.room_versions TO service_role;
                GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE public.room_versions TO service_role;
                GRANT EXECUTE ON FUNCTION transcode_app_error(text), transcode_set_version_inputs(uuid, jsonb) TO service_role;
              END IF;
            END $$;
            """
    }()
}
