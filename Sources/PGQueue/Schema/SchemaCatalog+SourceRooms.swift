/// Migration 22: several rooms of one home in one version.
///
/// A version's sources are one room by default (`source_usdz_path`, `source_json_path`). A home
/// scanned room by room, in one world frame (iOS 17's multi-room capture before the phone merges
/// it), names every room in `source_rooms`: a JSON array of `{"json_path", "usdz_path"}` objects
/// (`usdz_path` optional), 2 to `maxSourceRooms` of them, each key once, in the order the rooms are
/// merged. When it is set, the single-source columns are not read. The storage layout the backend
/// uses (any keys below the version's source prefix are accepted):
///
///     <prefix>rooms/1/roomplan.json   <prefix>rooms/1/source.usdz
///     <prefix>rooms/2/roomplan.json   <prefix>rooms/2/source.usdz …
///
/// `transcode_set_version_inputs` takes it as `"source_rooms": [...]` and refuses a malformed list
/// (`INVALID_INPUTS`, with the problem); a check constraint holds the same rule for every writer.
extension SchemaCatalog {
    /// The most rooms one version may name (`source_rooms`).
    public static let maxSourceRooms = 16

    static let sourceRooms: String = {
        let inputs = versionInputColumns.map {
            "      \($0) = CASE WHEN p_inputs ? '\($0)' THEN p_inputs->>'\($0)' ELSE \($0) END"
        }.joined(separator: ",\n")
        let inputList = versionInputColumns.map { "'\($0)'" }.joined(separator: ", ")
        return """
            CREATE OR REPLACE FUNCTION transcode_private.source_rooms_problem(p jsonb)
            RETURNS text LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog AS $$
            DECLARE
              e jsonb;
              k text;
              i int := 0;
              paths text[] := '{}';
            BEGIN
              IF jsonb_typeof(p) IS DISTINCT FROM 'array' THEN RETURN 'not an array'; END IF;
              IF jsonb_array_length(p) < 2 OR jsonb_array_length(p) > \(maxSourceRooms) THEN
                RETURN 'from 2 to \(maxSourceRooms) rooms';
              END IF;
              FOR e IN SELECT value FROM jsonb_array_elements(p) LOOP
                i := i + 1;
                IF jsonb_typeof(e) <> 'object' THEN RETURN format('room %s is not an object', i); END IF;
                FOR k IN SELECT jsonb_object_keys(e) LOOP
                  IF k NOT IN ('json_path', 'usdz_path') THEN RETURN format('room %s: unknown key %s', i, k); END IF;
                END LOOP;
                IF jsonb_typeof(e -> 'json_path') IS DISTINCT FROM 'string' OR e ->> 'json_path' = '' THEN
                  RETURN format('room %s has no json_path', i);
                END IF;
                IF e ? 'usdz_path' AND jsonb_typeof(e -> 'usdz_path') NOT IN ('string', 'null') THEN
                  RETURN format('room %s: usdz_path is not a string', i);
                END IF;
                IF e ->> 'json_path' = ANY (paths) OR e ->> 'usdz_path' = ANY (paths) OR e ->> 'json_path' = e ->> 'usdz_path' THEN
                  RETURN format('room %s names a file given before', i);
                END IF;
                paths := paths || (e ->> 'json_path') || coalesce(e ->> 'usdz_path', '');
                paths := array_remove(paths, '');
              END LOOP;
              RETURN NULL;
            END $$;
            REVOKE ALL ON FUNCTION transcode_private.source_rooms_problem(jsonb) FROM PUBLIC;
            DO $$ DECLARE r text; BEGIN
              FOREACH r IN ARRAY ARRAY['anon', 'authenticated'] LOOP
                IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r) THEN
                  EXECUTE format('REVOKE ALL ON FUNCTION transcode_private.source_rooms_problem(jsonb) FROM %I', r);
                END IF;
              END LOOP;
              -- upload-complete (service_role) writes the list: the function and the check run as it.
              IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'service_role') THEN
                GRANT EXECUTE ON FUNCTION transcode_private.source_rooms_problem(jsonb) TO service_role;
              END IF;
            END $$;

            ALTER TABLE transcode_private.room_versions ADD COLUMN IF NOT EXISTS source_rooms jsonb;
            ALTER TABLE transcode_private.room_versions DROP CONSTRAINT IF EXISTS room_versions_source_rooms_shape;
            ALTER TABLE transcode_private.room_versions ADD CONSTRAINT room_versions_source_rooms_shape
              CHECK (source_rooms IS NULL OR transcode_private.source_rooms_problem(source_rooms) IS NULL);

            CREATE OR REPLACE FUNCTION transcode_set_version_inputs(p_version_id uuid, p_inputs jsonb)
            RETURNS jsonb LANGUAGE plpgsql SET search_path = pg_catalog, transcode_private, public AS $$
            DECLARE
              bad text;
              problem text;
            BEGIN
              IF p_inputs IS NULL OR jsonb_typeof(p_inputs) <> 'object' THEN
                RETURN jsonb_build_object('ok', false, 'error', 'INVALID_INPUTS');
              END IF;
              SELECT k INTO bad FROM jsonb_object_keys(p_inputs) k
               WHERE k <> 'source_rooms'
                 AND (k NOT IN (\(inputList)) OR jsonb_typeof(p_inputs -> k) NOT IN ('string', 'null')) LIMIT 1;
              IF bad IS NOT NULL THEN
                RETURN jsonb_build_object('ok', false, 'error', 'INVALID_INPUTS', 'key', bad);
              END IF;
              IF p_inputs ? 'source_rooms' AND jsonb_typeof(p_inputs -> 'source_rooms') <> 'null' THEN
                problem := transcode_private.source_rooms_problem(p_inputs -> 'source_rooms');
                IF problem IS NOT NULL THEN
                  RETURN jsonb_build_object('ok', false, 'error', 'INVALID_INPUTS', 'key', 'source_rooms', 'problem', problem);
                END IF;
              END IF;
              UPDATE transcode_private.room_versions SET
            \(inputs),
                  source_rooms = CASE WHEN p_inputs ? 'source_rooms'
                                      THEN nullif(p_inputs -> 'source_rooms', 'null'::jsonb) ELSE source_rooms END,
                  updated_at = now()
               WHERE id = p_version_id;
              IF NOT FOUND THEN
                RETURN jsonb_build_object('ok', false, 'error', 'VERSION_NOT_FOUND');
              END IF;
              RETURN jsonb_build_object('ok', true);
            END $$;
            """
    }()
}
