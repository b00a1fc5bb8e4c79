/// The worker's schema, in order. Never edit a released migration: append a new one.
///
/// Events are sent with `pg_notify` on `SchemaCatalog.eventsChannel` as JSON text
/// `{"topic":"room:<room_id>","event":"ready|failed|transcode_progress|…","payload":{…}}`, and new
/// work is announced on `SchemaCatalog.queuedChannel` with the version id as payload. The terminal
/// events of `transcode_finalize` and `transcode_cancel` go through `transcode_emit_event`, which
/// also hands them to Supabase Realtime (`realtime.send`, private channel) on a database that has
/// it, in the same transaction.
public enum SchemaCatalog {
    public static let queuedChannel = "transcode_queued"
    public static let eventsChannel = "transcode_events"

    public static let migrations: [Migration] = [
        Migration(version: 1, name: "crowdroom tables", sql: tables),
        Migration(version: 2, name: "queue columns, indexes and wake-up trigger", sql: queue),
        Migration(version: 3, name: "finalize and cancel functions", sql: functions),
        Migration(version: 4, name: "terminal events through transcode_emit_event (Supabase Realtime when present)",
                  sql: eventDelivery),
        Migration(version: 5, name: "app clients read only the status and outputs of versions of rooms they see; fixed failure messages",
                  sql: clientAccess),
        Migration(version: 6, name: "events as the apps read them: one seq per version, failed.error as a string, public channels by default",
                  sql: appEvents),
        Migration(version: 7, name: "lost upload-complete calls: transcode_expire_upload, UPLOAD_EXPIRED message",
                  sql: uploadExpiry),
        Migration(version: 8, name: "rooms as the apps read them", sql: roomsShape),
        Migration(version: 9, name: "redactions in the app's shape", sql: appRedactions),
        Migration(version: 10, name: "buckets beside paths: output_bucket, source_bucket, rooms.thumbnail_bucket",
                  sql: storageBuckets),
        Migration(version: 11, name: "floor plan options per version: plan_units, plan_locale", sql: planOptions),
        Migration(version: 12, name: "operator console: attempts and event log; the app's retry button (transcode_app_retry)",
                  sql: consoleAndAppRetry),
        Migration(version: 13, name: "incremental re-transcodes: reprocess_full (reprocess --force)", sql: reprocessFull),
        Migration(version: 14, name: "console sign-outs held on every replica: transcode_console_signouts", sql: consoleSignOuts),
        Migration(version: 15, name: "the app's row: the table moves to transcode_private, public.room_versions is a view of the app's columns",
                  sql: appRow),
        Migration(version: 16, name: "terminal events as the app hears them: app error codes, repeats for late subscribers, reprocess off the app's channels",
                  sql: terminalEvents),
        Migration(version: 17, name: "the app's retry button by the app's rules: owner only, permanent failures refused, failure_count limit",
                  sql: appRetryRules),
        Migration(version: 18, name: "what the app writes: canonical redaction regions once each; the worker's columns of rooms",
                  sql: appWrites),
        Migration(version: 19, name: "deleting a room or a version deletes its stored objects: transcode_private.deletions, filled by delete triggers",
                  sql: deletions),
        Migration(version: 20, name: "privacy detail: what was applied to each redaction, its crop, the owner's read; redo requests",
                  sql: privacyDetail),
        Migration(version: 21, name: "retention: sources_erased_at, redactions_erased_at", sql: retention),
        Migration(version: 22, name: "several rooms of one home in one version: source_rooms", sql: sourceRooms),
    ]

    /// `rooms`, `room_versions` and `redactions`, created only when absent; the columns the worker
    /// reads are added when an existing table lacks them.
    static let tables = """
        DO $$ BEGIN
          IF NOT EXISTS (SELECT 1 FROM pg_type WHERE typname = 'room_version_status') THEN
            CREATE TYPE room_version_status AS ENUM ('uploading','queued','transcoding','ready','failed');
          END IF;
        END $$;
        CREATE TABLE IF NOT EXISTS rooms (
          id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
          name       text,
          created_at timestamptz NOT NULL DEFAULT now(),
          updated_at timestamptz NOT NULL DEFAULT now()
        );
        CREATE TABLE IF NOT EXISTS room_versions (
          id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
          room_id    uuid NOT NULL REFERENCES rooms(id) ON DELETE CASCADE,
          status     room_version_status NOT NULL DEFAULT 'uploading',
          created_at timestamptz NOT NULL DEFAULT now(),
          updated_at timestamptz NOT NULL DEFAULT now()
        );
        ALTER TABLE room_versions
          ADD COLUMN IF NOT EXISTS source_usdz_path text,
          ADD COLUMN IF NOT EXISTS source_json_path text,
          ADD COLUMN IF NOT EXISTS glb_path         text,
          ADD COLUMN IF NOT EXISTS manifest_path    text,
          ADD COLUMN IF NOT EXISTS thumbnail_path   text,
          ADD COLUMN IF NOT EXISTS thumbnail_paths  jsonb NOT NULL DEFAULT '[]'::jsonb,
          ADD COLUMN IF NOT EXISTS created_at       timestamptz NOT NULL DEFAULT now(),
          ADD COLUMN IF NOT EXISTS updated_at       timestamptz NOT NULL DEFAULT now();
        CREATE INDEX IF NOT EXISTS room_versions_room_idx ON room_versions (room_id);
        CREATE TABLE IF NOT EXISTS redactions (
          id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
          room_version_id uuid NOT NULL REFERENCES room_versions(id) ON DELETE CASCADE,
          texture_path    text NOT NULL,
          redacted_path   text NOT NULL,
          created_at      timestamptz NOT NULL DEFAULT now()
        );
        CREATE INDEX IF NOT EXISTS redactions_version_idx ON redactions (room_version_id);
        """

    /// Lease columns on `room_versions`, the claim indexes and the NOTIFY trigger.
    static let queue = """
        ALTER TABLE room_versions
          ADD COLUMN IF NOT EXISTS attempt                 smallint    NOT NULL DEFAULT 0,
          ADD COLUMN IF NOT EXISTS max_attempts            smallint    NOT NULL DEFAULT 5,
          ADD COLUMN IF NOT EXISTS priority                smallint    NOT NULL DEFAULT 0,
          ADD COLUMN IF NOT EXISTS run_after               timestamptz NOT NULL DEFAULT now(),
          ADD COLUMN IF NOT EXISTS enqueued_at             timestamptz DEFAULT now(),
          ADD COLUMN IF NOT EXISTS lease_id                uuid,
          ADD COLUMN IF NOT EXISTS locked_by               text,
          ADD COLUMN IF NOT EXISTS locked_at               timestamptz,
          ADD COLUMN IF NOT EXISTS lease_expires_at        timestamptz,
          ADD COLUMN IF NOT EXISTS heartbeat_at            timestamptz,
          ADD COLUMN IF NOT EXISTS transcode_phase         text,
          ADD COLUMN IF NOT EXISTS cancel_requested_at     timestamptz,
          ADD COLUMN IF NOT EXISTS reprocess_requested_at  timestamptz,
          ADD COLUMN IF NOT EXISTS last_error_code         text,
          ADD COLUMN IF NOT EXISTS last_error              text,
          ADD COLUMN IF NOT EXISTS errors                  jsonb       NOT NULL DEFAULT '[]'::jsonb,
          ADD COLUMN IF NOT EXISTS output_revision         integer     NOT NULL DEFAULT 0,
          ADD COLUMN IF NOT EXISTS manifest_schema_version integer,
          ADD COLUMN IF NOT EXISTS transcoded_at           timestamptz;
        DO $$ BEGIN
          IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'room_versions_lease_consistency') THEN
            ALTER TABLE room_versions ADD CONSTRAINT room_versions_lease_consistency CHECK (
              (lease_id IS NULL) = (locked_by IS NULL) AND (lease_id IS NULL) = (lease_expires_at IS NULL));
          END IF;
          IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'room_versions_max_attempts_positive') THEN
            ALTER TABLE room_versions ADD CONSTRAINT room_versions_max_attempts_positive CHECK (max_attempts > 0);
          END IF;
        END $$;
        ALTER TABLE room_versions SET (fillfactor = 90);
        CREATE INDEX IF NOT EXISTS room_versions_claimable_idx ON room_versions (priority, run_after)
          WHERE lease_id IS NULL AND (status = 'queued' OR (status = 'ready' AND reprocess_requested_at IS NOT NULL));
        CREATE INDEX IF NOT EXISTS room_versions_leased_idx ON room_versions (locked_at) WHERE lease_id IS NOT NULL;
        CREATE INDEX IF NOT EXISTS room_versions_status_idx ON room_versions (status);
        CREATE OR REPLACE FUNCTION room_versions_notify_queued() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN PERFORM pg_notify('transcode_queued', NEW.id::text); RETURN NULL; END $$;
        DROP TRIGGER IF EXISTS room_versions_notify_queued ON room_versions;
        CREATE TRIGGER room_versions_notify_queued
          AFTER INSERT OR UPDATE OF status, run_after, reprocess_requested_at, lease_id ON room_versions
          FOR EACH ROW WHEN (NEW.lease_id IS NULL AND NEW.run_after <= now()
                AND (NEW.status = 'queued' OR NEW.reprocess_requested_at IS NOT NULL))
          EXECUTE FUNCTION room_versions_notify_queued();
        """

    /// `transcode_finalize`: the one way a version leaves the queue as `ready` or `failed`. Fenced
    /// by the lease, idempotent on replay, and the event is sent in the same transaction, so it is
    /// delivered if and only if the change commits. The backend's `transcode-done` calls it too.
    ///
    /// `transcode_cancel`: cancels a queued version at once (failed, reason CANCELLED) or flags a
    /// running one so its worker stops at the next heartbeat; a pending reprocess is withdrawn.
    static let functions = """
        CREATE OR REPLACE FUNCTION transcode_finalize(
          p_version_id uuid, p_lease_id uuid, p_status text, p_outputs jsonb, p_error jsonb)
        RETURNS jsonb LANGUAGE plpgsql AS $$
        DECLARE
          r room_versions%ROWTYPE;
          was_reprocess boolean;
          ev jsonb;
        BEGIN
          IF p_status IS NULL OR p_status NOT IN ('ready', 'failed') THEN
            RETURN jsonb_build_object('ok', false, 'error', 'INVALID_STATUS');
          END IF;
          IF p_version_id IS NULL OR p_lease_id IS NULL THEN
            RETURN jsonb_build_object('ok', false, 'error', 'LEASE_LOST');
          END IF;
          SELECT * INTO r FROM room_versions WHERE id = p_version_id FOR UPDATE;
          IF NOT FOUND THEN
            RETURN jsonb_build_object('ok', false, 'error', 'VERSION_NOT_FOUND');
          END IF;
          IF r.lease_id IS DISTINCT FROM p_lease_id THEN
            IF p_status = 'ready' AND r.status = 'ready' AND r.glb_path = p_outputs->>'glb_path' THEN
              RETURN jsonb_build_object('ok', true, 'status', 'ready', 'output_revision', r.output_revision,
                                        'idempotent_replay', true);
            END IF;
            IF p_status = 'failed' AND r.lease_id IS NULL
               AND (r.errors -> -1 ->> 'lease_id') = p_lease_id::text
               AND coalesce((r.errors -> -1 ->> 'final')::boolean, false) THEN
              RETURN jsonb_build_object('ok', true, 'status', r.status, 'output_revision', r.output_revision,
                                        'idempotent_replay', true);
            END IF;
            RETURN jsonb_build_object('ok', false, 'error', 'LEASE_LOST');
          END IF;
          was_reprocess := r.reprocess_requested_at IS NOT NULL AND r.status = 'ready';
          IF p_status = 'ready' THEN
            UPDATE room_versions SET
              status = 'ready', glb_path = p_outputs->>'glb_path', manifest_path = p_outputs->>'manifest_path',
              thumbnail_path = p_outputs->>'thumbnail_path',
              thumbnail_paths = coalesce(p_outputs->'thumbnails', '[]'::jsonb),
              manifest_schema_version = (p_outputs->>'manifest_schema_version')::integer,
              output_revision = output_revision + 1, reprocess_requested_at = NULL, cancel_requested_at = NULL,
              lease_id = NULL, locked_by = NULL, locked_at = NULL, lease_expires_at = NULL, heartbeat_at = NULL,
              transcode_phase = NULL, last_error_code = NULL, last_error = NULL, transcoded_at = now(),
              updated_at = now()
            WHERE id = p_version_id RETURNING * INTO r;
            ev := jsonb_build_object('topic', 'room:' || r.room_id, 'event', 'ready', 'payload', jsonb_build_object(
              'schema', 'transcode-ready/v1', 'version_id', r.id, 'room_id', r.room_id,
              'glb_path', r.glb_path, 'manifest_path', r.manifest_path, 'thumbnails', r.thumbnail_paths,
              'manifest_schema_version', r.manifest_schema_version, 'output_revision', r.output_revision,
              'reprocess', was_reprocess,
              'at', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')));
          ELSE
            UPDATE room_versions SET
              status = CASE WHEN was_reprocess THEN status ELSE 'failed'::room_version_status END,
              reprocess_requested_at = NULL, cancel_requested_at = NULL,
              lease_id = NULL, locked_by = NULL, locked_at = NULL, lease_expires_at = NULL, heartbeat_at = NULL,
              transcode_phase = NULL, last_error_code = p_error->>'reason', last_error = left(p_error->>'message', 2000),
              errors = errors || jsonb_build_array(jsonb_build_object(
                'at', now(), 'attempt', attempt, 'code', p_error->>'reason', 'message', left(p_error->>'message', 2000),
                'phase', p_error->>'phase', 'worker', r.locked_by, 'lease_id', p_lease_id, 'final', true)),
              updated_at = now()
            WHERE id = p_version_id RETURNING * INTO r;
            ev := jsonb_build_object('topic', 'room:' || r.room_id,
              'event', CASE WHEN was_reprocess THEN 'reprocess_failed' ELSE 'failed' END,
              'payload', jsonb_build_object(
                'schema', 'transcode-failed/v1', 'version_id', r.id, 'room_id', r.room_id,
                'error', jsonb_build_object('code', 'ROOM_TRANSCODE_FAILED', 'reason', p_error->>'reason',
                                            'message', left(p_error->>'message', 500),
                                            'retryable', coalesce((p_error->>'retryable')::boolean, false)),
                'attempt', r.attempt,
                'at', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')));
          END IF;
          PERFORM pg_notify('transcode_events', ev::text);
          RETURN jsonb_build_object('ok', true, 'status', r.status, 'output_revision', r.output_revision,
                                    'idempotent_replay', false);
        END $$;

        CREATE OR REPLACE FUNCTION transcode_cancel(p_version_id uuid)
        RETURNS jsonb LANGUAGE plpgsql AS $$
        DECLARE
          r room_versions%ROWTYPE;
        BEGIN
          SELECT * INTO r FROM room_versions WHERE id = p_version_id FOR UPDATE;
          IF NOT FOUND THEN
            RETURN jsonb_build_object('ok', false, 'error', 'VERSION_NOT_FOUND');
          END IF;
          IF r.lease_id IS NOT NULL THEN
            UPDATE room_versions SET cancel_requested_at = coalesce(cancel_requested_at, now()), updated_at = now()
             WHERE id = p_version_id;
            RETURN jsonb_build_object('ok', true, 'running', true, 'status', r.status);
          END IF;
          IF r.status = 'ready' AND r.reprocess_requested_at IS NOT NULL THEN
            UPDATE room_versions SET reprocess_requested_at = NULL, priority = 0, updated_at = now()
             WHERE id = p_version_id;
            RETURN jsonb_build_object('ok', true, 'running', false, 'status', 'ready');
          END IF;
          IF r.status NOT IN ('queued', 'uploading') THEN
            RETURN jsonb_build_object('ok', false, 'error', 'INVALID_STATE', 'status', r.status);
          END IF;
          UPDATE room_versions SET status = 'failed', last_error_code = 'CANCELLED',
            last_error = 'cancelled by an operator', updated_at = now(),
            errors = errors || jsonb_build_array(jsonb_build_object(
              'at', now(), 'attempt', attempt, 'code', 'CANCELLED', 'message', 'cancelled by an operator', 'final', true))
           WHERE id = p_version_id RETURNING * INTO r;
          PERFORM pg_notify('transcode_events', jsonb_build_object('topic', 'room:' || r.room_id, 'event', 'failed',
            'payload', jsonb_build_object('schema', 'transcode-failed/v1', 'version_id', r.id, 'room_id', r.room_id,
              'error', jsonb_build_object('code', 'ROOM_TRANSCODE_FAILED', 'reason', 'CANCELLED',
                                          'message', 'cancelled by an operator', 'retryable', false),
              'attempt', r.attempt,
              'at', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')))::text);
          RETURN jsonb_build_object('ok', true, 'running', false, 'status', 'failed');
        END $$;
        """

    /// `transcode_emit_event(ev jsonb)`: delivers one `{topic, event, payload}` event: always with
    /// `pg_notify` on `transcode_events`, and, where the Supabase Realtime function
    /// `realtime.send(payload jsonb, event text, topic text, private boolean)` exists, through it
    /// on the private channel `topic` as well. Both happen in the caller's transaction, so the
    /// event is delivered if and only if the change commits. PL/pgSQL plans the `realtime.send`
    /// call only when it runs, so databases without Supabase never see it. SECURITY DEFINER with
    /// a fixed search_path, so a caller that may run `transcode_finalize` needs no rights on the
    /// `realtime` schema.
    ///
    /// `transcode_finalize` and `transcode_cancel` are recreated to send through it (their logic
    /// is migration 3's, unchanged), and a ready version's `thumbnail_path` defaults to its hero
    /// (else card) thumbnail when the caller gives none, as the worker's direct mode sets it.
    static let eventDelivery: String = {
        let emit = """
            CREATE OR REPLACE FUNCTION transcode_emit_event(ev jsonb)
            RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
            BEGIN
              PERFORM pg_notify('transcode_events', ev::text);
              IF to_regprocedure('realtime.send(jsonb,text,text,boolean)') IS NOT NULL THEN
                PERFORM realtime.send(ev->'payload', ev->>'event', ev->>'topic', true);
              END IF;
            END $$;


            """
        let replacements: [(String, String)] = [
            ("PERFORM pg_notify('transcode_events', ev::text);", "PERFORM transcode_emit_event(ev);"),
            ("PERFORM pg_notify('transcode_events', jsonb_build_object(", "PERFORM transcode_emit_event(jsonb_build_object("),
            (")))::text);", "))));"),
            ("thumbnail_path = p_outputs->>'thumbnail_path',", """
                thumbnail_path = coalesce(p_outputs->>'thumbnail_path', (SELECT t->>'path'
                  FROM jsonb_array_elements(coalesce(p_outputs->'thumbnails', '[]'::jsonb)) t
                  WHERE t->>'kind' IN ('hero', 'card') ORDER BY t->>'kind' = 'hero' DESC LIMIT 1)),
                """),
        ]
        var body = functions
        for (old, new) in replacements {
            precondition(body.contains(old), "migration 3 text changed: \(old)")
            body = body.replacingOccurrences(of: old, with: new)
        }
        return emit + body
    }()
}
