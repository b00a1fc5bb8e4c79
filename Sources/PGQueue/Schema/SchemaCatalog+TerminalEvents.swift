/// Migration 16: terminal events as the app hears them.
///
/// - `failed` carries the app's code in `error` (`transcode_app_error`: `FILE_TOO_LARGE`,
///   `REDACTION_INVALID`, else `ROOM_TRANSCODE_FAILED`) with `reason`, `retryable`,
///   `failure_count` and `retries_left` beside it; the row keeps the same code (`error_code`,
///   `error_retryable`), which the app's row shows as `error`, `retryable`, `retries_left`.
/// - Late subscribers: a public broadcast is not replayed, and a RoomPlan job often ends before the
///   app's join completes. Each `ready` and `failed` on `room:<id>` is recorded in
///   `transcode_private.event_repeats` and sent again with the same payload and `seq`
///   `terminalEventRepeatSeconds` after the first send, by `transcode_repeat_due_events`, which
///   the workers call (`QueueStore.repeatDueEvents`). A repeat stops when the version moves on
///   (a newer `seq` or another status).
/// - Operators' work stays off the app's channels: a reprocess that succeeds sends
///   `version_updated` on `room:<id>` (the web editor may reload), never `ready`, and a failed one
///   (`reprocess_failed`) reaches only the worker's own channel and the event log. `user:<owner>`
///   gets `ready` and `failed` of the owner's uploads only, and always on a private channel (the
///   `realtime.messages` policy of migration 6 lets only that user read it).
/// - `transcode_finalize`, `transcode_cancel` and `transcode_expire_upload` read the table in
///   `transcode_private` and build their events with `transcode_failed_payload`.
extension SchemaCatalog {
    /// Seconds after the first send of a terminal event at which it is sent again.
    public static let terminalEventRepeatSeconds = [1, 3, 10, 30, 60]

    /// The event a successful reprocess sends on `room:<id>` instead of `ready`.
    public static let versionUpdatedEvent = "version_updated"

    static let terminalEvents: String = {
        let offsets = terminalEventRepeatSeconds.map(String.init).joined(separator: ", ")
        return repeatsTable + failedPayload + emitEvent + """

            CREATE OR REPLACE FUNCTION transcode_repeat_due_events(p_now timestamptz DEFAULT now(), p_limit integer DEFAULT 200)
            RETURNS integer LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, transcode_private, public AS $$
            DECLARE
              e transcode_private.event_repeats%ROWTYPE;
              offsets integer[] := ARRAY[\(offsets)];
              n integer := 0;
            BEGIN
              DELETE FROM transcode_private.event_repeats x
               WHERE NOT EXISTS (SELECT 1 FROM transcode_private.room_versions v
                                  WHERE v.id = x.version_id AND v.event_seq::text = x.payload->>'seq'
                                    AND v.status::text = x.payload->>'status');
              FOR e IN SELECT * FROM transcode_private.event_repeats WHERE next_at <= p_now
                        ORDER BY next_at LIMIT greatest(p_limit, 1) FOR UPDATE SKIP LOCKED LOOP
                IF to_regprocedure('realtime.send(jsonb,text,text,boolean)') IS NOT NULL THEN
                  PERFORM realtime.send(e.payload, e.event, e.topic, e.private);
                END IF;
                n := n + 1;
                IF e.sends + 1 >= array_length(offsets, 1) THEN
                  DELETE FROM transcode_private.event_repeats WHERE version_id = e.version_id;
                ELSE
                  UPDATE transcode_private.event_repeats
                     SET sends = e.sends + 1, next_at = e.first_sent_at + offsets[e.sends + 2] * interval '1 second'
                   WHERE version_id = e.version_id;
                END IF;
              END LOOP;
              RETURN n;
            END $$;

            """ + finalize + cancelAndExpiry + terminalEventsAccess
    }()

    private static let repeatsTable = """
        CREATE TABLE IF NOT EXISTS transcode_private.event_repeats (
          version_id    uuid        PRIMARY KEY REFERENCES transcode_private.room_versions(id) ON DELETE CASCADE,
          topic         text        NOT NULL,
          event         text        NOT NULL,
          payload       jsonb       NOT NULL,
          private       boolean     NOT NULL,
          first_sent_at timestamptz NOT NULL,
          sends         integer     NOT NULL DEFAULT 0,
          next_at       timestamptz NOT NULL
        );
        CREATE INDEX IF NOT EXISTS event_repeats_next_idx ON transcode_private.event_repeats (next_at);

        """

    /// The `failed` payload of a version row after its failure was recorded.
    private static let failedPayload = """
        CREATE OR REPLACE FUNCTION transcode_failed_payload(r transcode_private.room_versions, p_reason text)
        RETURNS jsonb LANGUAGE sql STABLE SET search_path = pg_catalog, transcode_private, public AS $$
          SELECT jsonb_build_object(
            'schema', 'transcode-failed/v1', 'version_id', r.id, 'room_id', r.room_id,
            'error', r.error_code, 'reason', p_reason, 'message', transcode_safe_message(p_reason),
            'retryable', coalesce(r.error_retryable, false), 'failure_count', r.failure_count,
            'retries_left', CASE WHEN coalesce(r.error_retryable, false)
                                 THEN greatest(0, transcode_app_retry_limit() - r.failure_count) ELSE 0 END,
            'status', r.status, 'attempt', r.attempt, 'seq', r.event_seq,
            'at', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
        $$;

        """

    private static let emitEvent = """
        CREATE OR REPLACE FUNCTION transcode_emit_event(ev jsonb)
        RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, transcode_private, public AS $$
        DECLARE
          owner text;
          is_private boolean := transcode_realtime_private();
          name text := ev->>'event';
          vid uuid;
        BEGIN
          PERFORM pg_notify('transcode_events', ev::text);
          IF (ev->'payload'->>'version_id') ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' THEN
            vid := (ev->'payload'->>'version_id')::uuid;
            INSERT INTO public.transcode_event_log (version_id, event, payload)
            SELECT v.id, coalesce(name, ''), coalesce(ev->'payload', '{}'::jsonb)
              FROM transcode_private.room_versions v WHERE v.id = vid;
          END IF;
          IF to_regprocedure('realtime.send(jsonb,text,text,boolean)') IS NULL OR name = 'reprocess_failed' THEN
            RETURN;
          END IF;
          PERFORM realtime.send(ev->'payload', name, ev->>'topic', is_private);
          IF name NOT IN ('ready', 'failed') THEN
            RETURN;
          END IF;
          IF vid IS NOT NULL AND EXISTS (SELECT 1 FROM transcode_private.room_versions WHERE id = vid) THEN
            INSERT INTO transcode_private.event_repeats AS x (version_id, topic, event, payload, private, first_sent_at, sends, next_at)
            VALUES (vid, ev->>'topic', name, ev->'payload', is_private, now(), 0, now() + interval '1 second')
            ON CONFLICT (version_id) DO UPDATE SET topic = EXCLUDED.topic, event = EXCLUDED.event,
              payload = EXCLUDED.payload, private = EXCLUDED.private, first_sent_at = EXCLUDED.first_sent_at,
              sends = 0, next_at = EXCLUDED.next_at;
          END IF;
          IF EXISTS (SELECT 1 FROM information_schema.columns
                      WHERE table_schema = 'public' AND table_name = 'rooms' AND column_name = 'owner_id') THEN
            EXECUTE 'SELECT owner_id::text FROM public.rooms WHERE id = $1' INTO owner USING (ev->'payload'->>'room_id')::uuid;
            IF owner IS NOT NULL THEN
              PERFORM realtime.send(ev->'payload', name, 'user:' || owner, true);
            END IF;
          END IF;
        END $$;

        """

    private static let terminalEventsAccess = """
        ALTER TABLE transcode_private.event_repeats ENABLE ROW LEVEL SECURITY;
        REVOKE ALL ON TABLE transcode_private.event_repeats FROM PUBLIC;
        REVOKE ALL ON FUNCTION transcode_failed_payload(transcode_private.room_versions, text),
          transcode_repeat_due_events(timestamptz, integer) FROM PUBLIC;
        DO $$ DECLARE r text; BEGIN
          FOREACH r IN ARRAY ARRAY['anon', 'authenticated'] LOOP
            IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r) THEN
              EXECUTE format('REVOKE ALL ON TABLE transcode_private.event_repeats FROM %I', r);
              EXECUTE format('REVOKE ALL ON FUNCTION transcode_failed_payload(transcode_private.room_versions, text), '
                || 'transcode_repeat_due_events(timestamptz, integer), transcode_emit_event(jsonb) FROM %I', r);
            END IF;
          END LOOP;
          IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'service_role') THEN
            GRANT EXECUTE ON FUNCTION transcode_repeat_due_events(timestamptz, integer) TO service_role;
          END IF;
        END $$;
        """
}
