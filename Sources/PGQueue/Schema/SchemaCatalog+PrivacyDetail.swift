/// Migration 20: the owner's privacy detail and redo requests.
///
/// - `redactions` gains what the worker did with each row: `applied_methods` (`app_replacement`,
///   `server_blur`), `crop_path` and `crop_bucket` (a small WebP of the *published* texture around
///   the row's area, in the private source bucket, never in the public output bucket: the app shows
///   it through a signed URL), `applied_at`.
/// - The room's owner, and nobody else, reads their versions' rows, every column, `select=*`
///   included (`redactions_owner_read`, where `rooms` has an `owner_id`).
/// - `transcode_request_redo(version_id, regions jsonb)`: the owner asks for a redo with new `manual`
///   areas (the app's JSON, as `transcode_add_redactions` takes it); the rows are added and the
///   ready version is re-transcoded in full at interactive priority, so the new areas are blurred
///   and the superseded revision deleted. At most `transcode.redo_limit` (default 3) per version;
///   each request is recorded in `transcode_redo_requests`.
extension SchemaCatalog {
    /// The `redactions` columns the room's owner may read.
    public static let ownerReadableRedactionColumns = [
        "id", "room_version_id", "texture_ref", "texture_path", "kind", "region", "region_origin", "method",
        "applied_methods", "crop_path", "crop_bucket", "applied_at", "created_at",
    ]

    /// Redo requests accepted per version unless `transcode.redo_limit` says otherwise.
    public static let defaultRedoLimit = 3

    static let privacyDetail: String = {
        """
            ALTER TABLE redactions
              ADD COLUMN IF NOT EXISTS applied_methods text[],
              ADD COLUMN IF NOT EXISTS crop_path       text,
              ADD COLUMN IF NOT EXISTS crop_bucket     text,
              ADD COLUMN IF NOT EXISTS applied_at      timestamptz;
            CREATE TABLE IF NOT EXISTS transcode_redo_requests (
              id           bigserial PRIMARY KEY,
              version_id   uuid        NOT NULL REFERENCES transcode_private.room_versions(id) ON DELETE CASCADE,
              user_id      uuid,
              requested_at timestamptz NOT NULL DEFAULT now(),
              added        integer     NOT NULL DEFAULT 0
            );
            CREATE INDEX IF NOT EXISTS transcode_redo_requests_version_idx ON transcode_redo_requests (version_id, id);

            CREATE OR REPLACE FUNCTION transcode_redo_limit() RETURNS integer LANGUAGE sql STABLE AS $$
              SELECT CASE WHEN coalesce(current_setting('transcode.redo_limit', true), '') ~ '^[0-9]{1,4}$'
                          THEN current_setting('transcode.redo_limit', true)::integer ELSE \(defaultRedoLimit) END
            $$;

            CREATE OR REPLACE FUNCTION transcode_request_redo(p_version_id uuid, p_regions jsonb) RETURNS jsonb
            LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, transcode_private, public AS $$
            DECLARE
              r transcode_private.room_versions%ROWTYPE;
              sub text := nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'sub';
              owner text;
              used integer;
              manual jsonb;
              added integer;
            BEGIN
              IF p_regions IS NULL OR jsonb_typeof(p_regions) <> 'array' OR jsonb_array_length(p_regions) > 50 THEN
                RETURN jsonb_build_object('ok', false, 'error', 'INVALID_BODY');
              END IF;
              SELECT * INTO r FROM transcode_private.room_versions WHERE id = p_version_id FOR UPDATE;
              IF NOT FOUND OR NOT EXISTS (SELECT 1 FROM information_schema.columns
                   WHERE table_schema = 'public' AND table_name = 'rooms' AND column_name = 'owner_id') THEN
                RETURN jsonb_build_object('ok', false, 'error', 'VERSION_NOT_FOUND');
              END IF;
              EXECUTE 'SELECT owner_id::text FROM public.rooms WHERE id = $1' INTO owner USING r.room_id;
              IF owner IS NULL OR sub IS NULL OR owner <> sub THEN
                RETURN jsonb_build_object('ok', false, 'error', 'VERSION_NOT_FOUND');
              END IF;
              IF r.status <> 'ready' THEN
                RETURN jsonb_build_object('ok', false, 'error', 'INVALID_STATE', 'status', r.status);
              END IF;
              SELECT count(*) INTO used FROM transcode_redo_requests WHERE version_id = r.id;
              IF used >= transcode_redo_limit() THEN
                RETURN jsonb_build_object('ok', false, 'error', 'REDO_LIMIT_REACHED', 'redo_limit', transcode_redo_limit());
              END IF;
              SELECT coalesce(jsonb_agg(e || jsonb_build_object('kind', 'manual')), '[]'::jsonb) INTO manual
                FROM jsonb_array_elements(p_regions) e WHERE jsonb_typeof(e) = 'object';
              BEGIN
                added := transcode_add_redactions(r.id, manual);
              EXCEPTION WHEN check_violation OR invalid_parameter_value OR not_null_violation THEN
                RETURN jsonb_build_object('ok', false, 'error', 'REDACTION_INVALID');
              END;
              INSERT INTO transcode_redo_requests (version_id, user_id, added) VALUES (r.id, sub::uuid, added);
              UPDATE transcode_private.room_versions
                 SET reprocess_requested_at = now(), reprocess_full = true, priority = 0, attempt = 0,
                     run_after = now(), updated_at = now()
               WHERE id = r.id;
              RETURN jsonb_build_object('ok', true, 'added', added, 'redo_requests', used + 1,
                                        'redo_limit', transcode_redo_limit());
            END $$;

            ALTER TABLE transcode_redo_requests ENABLE ROW LEVEL SECURITY;
            REVOKE ALL ON TABLE transcode_redo_requests FROM PUBLIC;
            REVOKE ALL ON FUNCTION transcode_redo_limit(), transcode_request_redo(uuid, jsonb) FROM PUBLIC;
            DO $$ DECLARE r text; BEGIN
              FOREACH r IN ARRAY ARRAY['anon', 'authenticated'] LOOP
                IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r) THEN
                  EXECUTE format('REVOKE ALL ON TABLE transcode_redo_requests FROM %I', r);
                  EXECUTE format('REVOKE ALL ON SEQUENCE transcode_redo_requests_id_seq FROM %I', r);
                  EXECUTE format('REVOKE ALL ON FUNCTION transcode_redo_limit(), transcode_request_redo(uuid, jsonb) FROM %I', r);
                END IF;
              END LOOP;
              DROP POLICY IF EXISTS redactions_owner_read ON redactions;
              IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'authenticated') THEN
                GRANT EXECUTE ON FUNCTION transcode_request_redo(uuid, jsonb) TO authenticated;
                GRANT SELECT ON redactions TO authenticated;
                IF EXISTS (SELECT 1 FROM information_schema.columns
                            WHERE table_schema = 'public' AND table_name = 'rooms' AND column_name = 'owner_id')
                   AND to_regprocedure('auth.uid()') IS NOT NULL THEN
                  EXECUTE 'CREATE POLICY redactions_owner_read ON redactions FOR SELECT TO authenticated USING ('
                    || 'EXISTS (SELECT 1 FROM transcode_private.room_versions v JOIN public.rooms o ON o.id = v.room_id '
                    || 'WHERE v.id = redactions.room_version_id AND o.owner_id = auth.uid()))';
                END IF;
              END IF;
              IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'service_role') THEN
                GRANT SELECT ON TABLE transcode_redo_requests TO service_role;
                GRANT EXECUTE ON FUNCTION transcode_request_redo(uuid, jsonb), transcode_redo_limit() TO service_role;
              END IF;
            END $$;
            """
    }()

    /// Every column of `redactions` is the owner's to read (their own upload's keys included), so
    /// the app's `select=*` works; `ownerReadableRedactionColumns` names those the app shows.
}
