/// Migration 6: events as the CrowdRoom apps read them.
///
/// - One `seq` per version, monotonic across attempts and workers: `room_versions.event_seq`.
///   Every new lease moves it forward by `eventSeqBlock` (trigger `room_versions_event_seq_block`),
///   and the attempt numbers its progress events inside that block (`ClaimedJob.eventSeqBase`);
///   every terminal event takes `event_seq + 1`, so it is newer than all progress of its attempt.
/// - `failed` carries `error` as the string `ROOM_TRANSCODE_FAILED` (the app reads
///   `payload["error"] as? String`), with `reason`, `retryable`, the reason's fixed `message` and
///   `failure_count` (final failures of the version, kept in `room_versions.failure_count`).
/// - Events carry nothing a stranger who knows a room id should not see: ids, status, step,
///   revision, reason codes. Clients read output paths from the row they may read.
/// - Channels: public by default (where the app's code listens); private when the database
///   setting `transcode.realtime_private` is `on` (`ALTER DATABASE … SET transcode.realtime_private
///   = on`; the worker's own broadcasts follow it). Terminal events also go to `user:<owner_id>`
///   when `rooms` has an `owner_id` column and the room an owner.
/// - Where Supabase Realtime exists, a SELECT policy on `realtime.messages` lets a signed-in user
///   receive private `room:<id>` messages of rooms they can see and their own `user:<id>` ones.
extension SchemaCatalog {
    /// How far a new lease moves `event_seq`: room for the progress events of one attempt.
    public static let eventSeqBlock = 1000

    static let appEvents: String = {
        let columns = """
            ALTER TABLE room_versions
              ADD COLUMN IF NOT EXISTS event_seq     bigint  NOT NULL DEFAULT 0,
              ADD COLUMN IF NOT EXISTS failure_count integer NOT NULL DEFAULT 0;
            CREATE OR REPLACE FUNCTION room_versions_event_seq_block() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN NEW.event_seq := OLD.event_seq + \(eventSeqBlock); RETURN NEW; END $$;
            DROP TRIGGER IF EXISTS room_versions_event_seq_block ON room_versions;
            CREATE TRIGGER room_versions_event_seq_block
              BEFORE UPDATE OF lease_id ON room_versions
              FOR EACH ROW WHEN (NEW.lease_id IS NOT NULL AND NEW.lease_id IS DISTINCT FROM OLD.lease_id)
              EXECUTE FUNCTION room_versions_event_seq_block();

            CREATE OR REPLACE FUNCTION transcode_realtime_private() RETURNS boolean LANGUAGE sql STABLE AS $$
              SELECT coalesce(current_setting('transcode.realtime_private', true), '') IN ('on', 'true', '1')
            $$;

            CREATE OR REPLACE FUNCTION transcode_emit_event(ev jsonb)
            RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
            DECLARE
              owner text;
              is_private boolean := transcode_realtime_private();
            BEGIN
              PERFORM pg_notify('transcode_events', ev::text);
              IF to_regprocedure('realtime.send(jsonb,text,text,boolean)') IS NULL THEN
                RETURN;
              END IF;
              PERFORM realtime.send(ev->'payload', ev->>'event', ev->>'topic', is_private);
              IF ev->>'event' IN ('ready', 'failed', 'reprocess_failed') AND EXISTS (
                   SELECT 1 FROM information_schema.columns
                    WHERE table_schema = 'public' AND table_name = 'rooms' AND column_name = 'owner_id') THEN
                EXECUTE 'SELECT owner_id::text FROM public.rooms WHERE id = $1' INTO owner USING (ev->'payload'->>'room_id')::uuid;
                IF owner IS NOT NULL THEN
                  PERFORM realtime.send(ev->'payload', ev->>'event', 'user:' || owner, is_private);
                END IF;
              END IF;
            END $$;

            """
        let policy = """

            DO $$ BEGIN
              IF to_regclass('realtime.messages') IS NOT NULL AND to_regprocedure('realtime.topic()') IS NOT NULL
                 AND to_regprocedure('auth.uid()') IS NOT NULL
                 AND EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'authenticated') THEN
                DROP POLICY IF EXISTS transcode_room_events_read ON realtime.messages;
                CREATE POLICY transcode_room_events_read ON realtime.messages FOR SELECT TO authenticated
                  USING (realtime.messages.extension = 'broadcast' AND (
                    (realtime.topic() LIKE 'room:%'
                     AND EXISTS (SELECT 1 FROM public.rooms r WHERE 'room:' || r.id::text = realtime.topic()))
                    OR realtime.topic() = 'user:' || auth.uid()::text));
              END IF;
            END $$;
            REVOKE ALL ON FUNCTION room_versions_event_seq_block(), transcode_realtime_private() FROM PUBLIC;
            DO $$ DECLARE r text; BEGIN
              FOREACH r IN ARRAY ARRAY['anon', 'authenticated'] LOOP
                IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r) THEN
                  EXECUTE format('REVOKE ALL ON FUNCTION room_versions_event_seq_block(), transcode_realtime_private(), transcode_emit_event(jsonb) FROM %I', r);
                END IF;
              END LOOP;
              IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'service_role') THEN
                GRANT EXECUTE ON FUNCTION transcode_realtime_private(), transcode_emit_event(jsonb) TO service_role;
              END IF;
            END $$;
            """
        let at = "'at', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')"
        let replacements: [(String, String)] = [
            // ready: the next seq, no paths in the event.
            ("      output_revision = output_revision + 1, reprocess_requested_at = NULL, cancel_requested_at = NULL,",
             "      output_revision = output_revision + 1, reprocess_requested_at = NULL, cancel_requested_at = NULL,\n      event_seq = event_seq + 1,"),
            ("""
                  'glb_path', r.glb_path, 'manifest_path', r.manifest_path, 'thumbnails', r.thumbnail_paths,
                  'manifest_schema_version', r.manifest_schema_version, 'output_revision', r.output_revision,
                  'reprocess', was_reprocess,
            """, """
                  'status', r.status, 'manifest_schema_version', r.manifest_schema_version, 'output_revision', r.output_revision,
                  'reprocess', was_reprocess, 'seq', r.event_seq,
            """),
            // failed: the next seq, one more final failure (a failed reprocess keeps the version ready).
            ("      reprocess_requested_at = NULL, cancel_requested_at = NULL,\n      lease_id = NULL, locked_by = NULL, locked_at = NULL, lease_expires_at = NULL, heartbeat_at = NULL,\n      transcode_phase = NULL, last_error_code = p_error->>'reason',",
             "      reprocess_requested_at = NULL, cancel_requested_at = NULL, event_seq = event_seq + 1,\n      failure_count = failure_count + CASE WHEN was_reprocess THEN 0 ELSE 1 END,\n      lease_id = NULL, locked_by = NULL, locked_at = NULL, lease_expires_at = NULL, heartbeat_at = NULL,\n      transcode_phase = NULL, last_error_code = p_error->>'reason',"),
            ("""
                    'error', jsonb_build_object('code', 'ROOM_TRANSCODE_FAILED', 'reason', p_error->>'reason',
                                                'message', transcode_safe_message(p_error->>'reason'),
                                                'retryable', coalesce((p_error->>'retryable')::boolean, false)),
                    'attempt', r.attempt,
            """, """
                    'error', 'ROOM_TRANSCODE_FAILED', 'reason', p_error->>'reason',
                    'message', transcode_safe_message(p_error->>'reason'),
                    'retryable', coalesce((p_error->>'retryable')::boolean, false),
                    'failure_count', r.failure_count, 'status', r.status,
                    'attempt', r.attempt, 'seq', r.event_seq,
            """),
            // cancel: the same shape.
            ("  UPDATE room_versions SET status = 'failed', last_error_code = 'CANCELLED',\n    last_error = 'cancelled by an operator', updated_at = now(),",
             "  UPDATE room_versions SET status = 'failed', last_error_code = 'CANCELLED',\n    last_error = 'cancelled by an operator', updated_at = now(), event_seq = event_seq + 1,\n    failure_count = failure_count + 1,"),
            ("""
                  'error', jsonb_build_object('code', 'ROOM_TRANSCODE_FAILED', 'reason', 'CANCELLED',
                                              'message', transcode_safe_message('CANCELLED'), 'retryable', false),
                  'attempt', r.attempt,
                  \(at))));
            """, """
                  'error', 'ROOM_TRANSCODE_FAILED', 'reason', 'CANCELLED',
                  'message', transcode_safe_message('CANCELLED'), 'retryable', false,
                  'failure_count', r.failure_count, 'status', r.status, 'attempt', r.attempt, 'seq', r.event_seq,
                  \(at))));
            """),
        ]
        var body = clientAccess
        let start = body.range(of: "CREATE OR REPLACE FUNCTION transcode_finalize(")!.lowerBound
        let end = body.range(of: "ALTER TABLE rooms ENABLE ROW LEVEL SECURITY;")!.lowerBound
        body = String(body[start..<end])
        for (old, new) in replacements {
            precondition(body.contains(old), "migration 5 text changed: \(old)")
            body = body.replacingOccurrences(of: old, with: new)
        }
        return columns + body + policy
    }()
}
