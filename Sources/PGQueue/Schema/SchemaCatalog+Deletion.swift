/// Migration 19: deleting a room or a version deletes its stored objects.
///
/// - `transcode_private.deletions`: a durable queue of what storage still holds of deleted rows,
///   one row per deleted version (`version_deleted`) and per deleted room (`room_deleted`). The
///   worker's deletion sweep (`DeletionSweeper`) takes due rows (`next_at <= now()`,
///   `FOR UPDATE SKIP LOCKED`), deletes every object under the version's prefix
///   `rooms/<room>/versions/<version>/` (sources, redacted textures, every output revision, reports,
///   thumbnails) or the room's `rooms/<room>/`, in the source store and in the output store, and then
///   deletes the row. A storage failure keeps the row with `attempts + 1`, `last_error` and a later
///   `next_at`, so an outage or a restart loses nothing.
/// - Triggers write those rows in the transaction of the delete, whoever deletes (the backend's
///   account deletion, `service_role`, an owner under a delete policy, a cascade from `rooms` or
///   from a foreign key of the backend's): `transcode_room_versions_deleted` (BEFORE DELETE on
///   `transcode_private.room_versions`, so that the version's `redactions` rows, which the cascade
///   removes first, can still be read) records the version with the keys its rows named (sources,
///   outputs, thumbnails, redacted textures) and their buckets; `transcode_rooms_deleted` (AFTER
///   DELETE on `rooms`) records the room. The functions run as their owner (`SECURITY DEFINER`), so
///   no deleting role needs any privilege on the queue.
/// - `TRUNCATE` fires no delete trigger; the orphan sweep finds what it leaves.
///
/// Client roles get nothing on the queue (row level security on, no policy, every privilege
/// revoked); the worker, as its owner, and `service_role` read it.
extension SchemaCatalog {
    /// The reasons a deletion row records.
    public static let deletionReasons = ["room_deleted", "version_deleted"]

    static let deletions = """
        CREATE TABLE IF NOT EXISTS transcode_private.deletions (
          id          bigserial   PRIMARY KEY,
          reason      text        NOT NULL CHECK (reason IN ('room_deleted', 'version_deleted')),
          room_id     uuid        NOT NULL,
          version_id  uuid        CHECK ((version_id IS NULL) = (reason = 'room_deleted')),
          buckets     jsonb       NOT NULL DEFAULT '[]'::jsonb,
          keys        jsonb       NOT NULL DEFAULT '[]'::jsonb,
          enqueued_at timestamptz NOT NULL DEFAULT now(),
          attempts    integer     NOT NULL DEFAULT 0,
          next_at     timestamptz NOT NULL DEFAULT now(),
          last_error  text
        );
        CREATE INDEX IF NOT EXISTS deletions_due_idx ON transcode_private.deletions (next_at, id);
        COMMENT ON TABLE transcode_private.deletions IS
          'Stored objects of deleted rooms and versions still to delete; written by triggers, emptied by the worker.';

        CREATE OR REPLACE FUNCTION transcode_private.enqueue_version_deletion()
        RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, transcode_private, public AS $$
        DECLARE
          named jsonb;
        BEGIN
          SELECT coalesce(jsonb_agg(DISTINCT k) FILTER (WHERE k IS NOT NULL AND k <> ''), '[]'::jsonb) INTO named
            FROM (
              SELECT unnest(ARRAY[OLD.source_usdz_path, OLD.source_json_path, OLD.glb_path, OLD.manifest_path, OLD.thumbnail_path]) AS k
              UNION ALL
              SELECT t->>'path' FROM jsonb_array_elements(
                CASE WHEN jsonb_typeof(OLD.thumbnail_paths) = 'array' THEN OLD.thumbnail_paths ELSE '[]'::jsonb END) t
              UNION ALL
              SELECT r.redacted_path FROM public.redactions r WHERE r.room_version_id = OLD.id
            ) keys;
          INSERT INTO transcode_private.deletions (reason, room_id, version_id, buckets, keys)
          VALUES ('version_deleted', OLD.room_id, OLD.id,
                  coalesce((SELECT jsonb_agg(DISTINCT b) FROM unnest(ARRAY[OLD.source_bucket, OLD.output_bucket]) b
                             WHERE b IS NOT NULL AND b <> ''), '[]'::jsonb),
                  named);
          RETURN OLD;
        END $$;

        CREATE OR REPLACE FUNCTION transcode_private.enqueue_room_deletion()
        RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, transcode_private, public AS $$
        BEGIN
          INSERT INTO transcode_private.deletions (reason, room_id, buckets, keys)
          VALUES ('room_deleted', OLD.id,
                  CASE WHEN coalesce(OLD.thumbnail_bucket, '') = '' THEN '[]'::jsonb ELSE jsonb_build_array(OLD.thumbnail_bucket) END,
                  CASE WHEN coalesce(OLD.thumbnail_path, '') = '' THEN '[]'::jsonb ELSE jsonb_build_array(OLD.thumbnail_path) END);
          RETURN OLD;
        END $$;

        DROP TRIGGER IF EXISTS transcode_room_versions_deleted ON transcode_private.room_versions;
        CREATE TRIGGER transcode_room_versions_deleted BEFORE DELETE ON transcode_private.room_versions
          FOR EACH ROW EXECUTE FUNCTION transcode_private.enqueue_version_deletion();
        DROP TRIGGER IF EXISTS transcode_rooms_deleted ON public.rooms;
        CREATE TRIGGER transcode_rooms_deleted AFTER DELETE ON public.rooms
          FOR EACH ROW EXECUTE FUNCTION transcode_private.enqueue_room_deletion();

        ALTER TABLE transcode_private.deletions ENABLE ROW LEVEL SECURITY;
        REVOKE ALL ON TABLE transcode_private.deletions FROM PUBLIC;
        REVOKE ALL ON SEQUENCE transcode_private.deletions_id_seq FROM PUBLIC;
        REVOKE ALL ON FUNCTION transcode_private.enqueue_version_deletion(), transcode_private.enqueue_room_deletion() FROM PUBLIC;
        DO $$ DECLARE r text; BEGIN
          FOREACH r IN ARRAY ARRAY['anon', 'authenticated'] LOOP
            IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r) THEN
              EXECUTE format('REVOKE ALL ON TABLE transcode_private.deletions FROM %I', r);
              EXECUTE format('REVOKE ALL ON SEQUENCE transcode_private.deletions_id_seq FROM %I', r);
              EXECUTE format('REVOKE ALL ON FUNCTION transcode_private.enqueue_version_deletion(), '
                || 'transcode_private.enqueue_room_deletion() FROM %I', r);
            END IF;
          END LOOP;
          IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'service_role') THEN
            GRANT SELECT ON TABLE transcode_private.deletions TO service_role;
          END IF;
        END $$;
        """
}
