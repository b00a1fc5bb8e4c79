/// Migration 18: what the app and its backend write, as they write it.
///
/// Redactions. The app posts `{textureRef, kind, region, method}` with `region` a `CGRect`, which
/// Foundation's `JSONEncoder` writes as `[[x, y], [width, height]]`, normalised to the texture, in
/// Vision's space: origin at the **bottom left**.
/// - `transcode_canonical_region(jsonb)`: `[[x,y],[w,h]]`, `{x,y,width,height}` and `{x,y,w,h}` all
///   become `{"x","y","w","h"}`; a negative size is turned round, and the box is cut to the unit
///   square (a face at the edge of the photo reaches past it). The trigger
///   `redactions_canonical_region` applies it to every insert and update, before the region check
///   of migration 9, so whatever inserts the app's JSON is stored in the one form.
/// - `region_origin` (`bottom_left`, the default and the app's, or `top_left`) says where `y` is
///   measured from.
/// - A redaction is stored once: duplicates are removed and a unique index keeps them out, so a
///   re-sent upload-complete adds nothing.
/// - `transcode_add_redactions(version_id, redactions jsonb)`: the app's array as it posted it
///   (camelCase keys, `CGRect` regions), inserted row by row, duplicates skipped; returns the number
///   added. Service role only (the backend's upload-complete).
///
/// Rooms. The worker owns `current_version_id`, `thumbnail_path`, `thumbnail_bucket` and
/// `quality_grade`; the trigger `rooms_worker_columns` refuses (42501) an insert or update by a
/// client role (`anon`, `authenticated`) that sets or changes any of them, whatever the backend's
/// policies allow, while the client's own columns (`title`, …) stay theirs.
extension SchemaCatalog {
    /// The columns of `rooms` only the worker (and the backend's privileged roles) may write.
    public static let workerRoomColumns = ["current_version_id", "thumbnail_path", "thumbnail_bucket", "quality_grade"]

    static let appWrites: String = {
        let changed = workerRoomColumns.map { "NEW.\($0) IS DISTINCT FROM OLD.\($0)" }.joined(separator: " OR ")
        let set = workerRoomColumns.map { "NEW.\($0) IS NOT NULL" }.joined(separator: " OR ")
        return redactionRegions + """

            CREATE OR REPLACE FUNCTION transcode_rooms_worker_columns() RETURNS trigger
            LANGUAGE plpgsql SET search_path = pg_catalog, public AS $$
            BEGIN
              IF current_user IN ('anon', 'authenticated') AND (
                   (TG_OP = 'INSERT' AND (\(set)))
                OR (TG_OP = 'UPDATE' AND (\(changed)))) THEN
                RAISE EXCEPTION 'rooms.% are written by the transcode worker only', '\(workerRoomColumns.joined(separator: ", "))'
                  USING ERRCODE = '42501';
              END IF;
              RETURN NEW;
            END $$;
            DROP TRIGGER IF EXISTS rooms_worker_columns ON rooms;
            CREATE TRIGGER rooms_worker_columns BEFORE INSERT OR UPDATE ON rooms
              FOR EACH ROW EXECUTE FUNCTION transcode_rooms_worker_columns();
            REVOKE ALL ON FUNCTION transcode_canonical_region(jsonb), transcode_redactions_canonical_region(),
              transcode_add_redactions(uuid, jsonb), transcode_rooms_worker_columns() FROM PUBLIC;
            DO $$ DECLARE r text; BEGIN
              FOREACH r IN ARRAY ARRAY['anon', 'authenticated'] LOOP
                IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r) THEN
                  EXECUTE format('REVOKE ALL ON FUNCTION transcode_canonical_region(jsonb), '
                    || 'transcode_redactions_canonical_region(), transcode_add_redactions(uuid, jsonb), '
                    || 'transcode_rooms_worker_columns() FROM %I', r);
                END IF;
              END LOOP;
              IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'service_role') THEN
                GRANT EXECUTE ON FUNCTION transcode_canonical_region(jsonb), transcode_add_redactions(uuid, jsonb) TO service_role;
              END IF;
            END $$;
            """
    }()

    private static let redactionRegions = """
        CREATE OR REPLACE FUNCTION transcode_canonical_region(p jsonb) RETURNS jsonb
        LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog AS $$
        DECLARE
          x numeric; y numeric; w numeric; h numeric;
        BEGIN
          IF p IS NULL OR jsonb_typeof(p) = 'null' THEN
            RETURN NULL;
          ELSIF jsonb_typeof(p) = 'array' AND jsonb_array_length(p) = 2
                AND jsonb_typeof(p->0) = 'array' AND jsonb_typeof(p->1) = 'array'
                AND jsonb_array_length(p->0) = 2 AND jsonb_array_length(p->1) = 2
                AND jsonb_typeof(p->0->0) = 'number' AND jsonb_typeof(p->0->1) = 'number'
                AND jsonb_typeof(p->1->0) = 'number' AND jsonb_typeof(p->1->1) = 'number' THEN
            x := (p->0->>0)::numeric; y := (p->0->>1)::numeric; w := (p->1->>0)::numeric; h := (p->1->>1)::numeric;
          ELSIF jsonb_typeof(p) = 'object' AND jsonb_typeof(p->'x') = 'number' AND jsonb_typeof(p->'y') = 'number'
                AND ((jsonb_typeof(p->'w') = 'number' AND jsonb_typeof(p->'h') = 'number')
                  OR (jsonb_typeof(p->'width') = 'number' AND jsonb_typeof(p->'height') = 'number')) THEN
            x := (p->>'x')::numeric; y := (p->>'y')::numeric;
            w := coalesce((p->>'w')::numeric, (p->>'width')::numeric);
            h := coalesce((p->>'h')::numeric, (p->>'height')::numeric);
          ELSE
            RETURN p;
          END IF;
          IF w < 0 THEN x := x + w; w := -w; END IF;
          IF h < 0 THEN y := y + h; h := -h; END IF;
          w := least(x + w, 1) - greatest(x, 0); x := greatest(x, 0);
          h := least(y + h, 1) - greatest(y, 0); y := greatest(y, 0);
          IF w <= 0 OR h <= 0 OR x > 1 OR y > 1 THEN
            RETURN p;
          END IF;
          RETURN jsonb_build_object('x', round(x, 6)::float8, 'y', round(y, 6)::float8, 'w', round(w, 6)::float8, 'h', round(h, 6)::float8);
        END $$;

        ALTER TABLE redactions ADD COLUMN IF NOT EXISTS region_origin text NOT NULL DEFAULT 'bottom_left';
        DO $$ BEGIN
          IF NOT EXISTS (SELECT 1 FROM pg_constraint
                          WHERE conrelid = 'redactions'::regclass AND conname = 'redactions_region_origin_check') THEN
            ALTER TABLE redactions ADD CONSTRAINT redactions_region_origin_check
              CHECK (region_origin IN ('bottom_left', 'top_left'));
          END IF;
        END $$;
        CREATE OR REPLACE FUNCTION transcode_redactions_canonical_region() RETURNS trigger
        LANGUAGE plpgsql SET search_path = pg_catalog, public AS $$
        BEGIN
          NEW.region := transcode_canonical_region(NEW.region);
          RETURN NEW;
        END $$;
        DROP TRIGGER IF EXISTS redactions_canonical_region ON redactions;
        CREATE TRIGGER redactions_canonical_region BEFORE INSERT OR UPDATE OF region ON redactions
          FOR EACH ROW EXECUTE FUNCTION transcode_redactions_canonical_region();

        DELETE FROM redactions a USING redactions b
         WHERE a.room_version_id = b.room_version_id
           AND coalesce(a.texture_ref, a.texture_path) = coalesce(b.texture_ref, b.texture_path)
           AND coalesce(a.kind, '') = coalesce(b.kind, '') AND coalesce(a.region, 'null') = coalesce(b.region, 'null')
           AND coalesce(a.redacted_path, '') = coalesce(b.redacted_path, '')
           AND a.region_origin = b.region_origin AND (a.created_at, a.id) > (b.created_at, b.id);
        CREATE UNIQUE INDEX IF NOT EXISTS redactions_once ON redactions (room_version_id,
          (coalesce(texture_ref, texture_path)), (coalesce(kind, '')), (coalesce(region, 'null'::jsonb)),
          (coalesce(redacted_path, '')), region_origin);

        CREATE OR REPLACE FUNCTION transcode_add_redactions(p_version_id uuid, p_redactions jsonb) RETURNS integer
        LANGUAGE plpgsql SET search_path = pg_catalog, public AS $$
        DECLARE
          e jsonb;
          n integer := 0;
          added integer;
        BEGIN
          IF p_redactions IS NULL OR jsonb_typeof(p_redactions) <> 'array' THEN
            RAISE EXCEPTION 'redactions must be a JSON array' USING ERRCODE = '22023';
          END IF;
          FOR e IN SELECT value FROM jsonb_array_elements(p_redactions) LOOP
            INSERT INTO redactions (room_version_id, texture_ref, kind, region, method, redacted_path, region_origin)
            VALUES (p_version_id, coalesce(e->>'textureRef', e->>'texture_ref'), e->>'kind', e->'region',
                    e->>'method', coalesce(e->>'redactedPath', e->>'redacted_path'),
                    coalesce(e->>'regionOrigin', e->>'region_origin', 'bottom_left'))
            ON CONFLICT DO NOTHING;
            GET DIAGNOSTICS added = ROW_COUNT;
            n := n + added;
          END LOOP;
          RETURN n;
        END $$;
        """
}
