/// Migration 12: what the operator console shows, and the app's retry button.
///
/// - `transcode_attempts`: one row per finished attempt (ready, retried, failed, released or lease
///   lost), written by the worker: attempt number, lease, worker, start and end, outcome, reason
///   and per-phase milliseconds (`timings_ms`, e.g. `{"download":12,"parse":9,"upload":30}`).
///   Indexed by version and by end time (the console's throughput over the last hour and day).
/// - `transcode_event_log`: every terminal event `transcode_emit_event` delivers (`ready`,
///   `failed`, `reprocess_failed`), with its payload, so an operator sees what the app was told.
///   `transcode_emit_event` is recreated with that one insert added; its logic is migration 6's.
/// - The app's retry button (`transcode-retry` Edge Function): `transcode_app_retry(uuid)`, called
///   by a signed-in user through PostgREST. It runs as the caller (SECURITY INVOKER) and records a
///   request in `transcode_retry_requests`; that insert passes only when the caller can read the
///   version, i.e. see its room (row level security on the insert, the backend's room policies
///   deciding), and a trigger owned by the worker (`transcode_retry_request_apply`) then, under a
///   lock on the version row, re-queues a `failed` version (priority 0: a person is waiting),
///   answers `ALREADY_QUEUED` for a version that is queued or running (a double tap), refuses
///   other states (`INVALID_STATE`) and refuses once the version had `app_retry_limit` app retries
///   (`RETRY_LIMIT_REACHED`; default 3, or the database setting `transcode.app_retry_limit`).
///   `room_versions.app_retry_count` counts the re-queues. A version keeps its last 20 requests.
///
/// Client roles get nothing on the two log tables; on `transcode_retry_requests`, `authenticated`
/// may insert `version_id` only (the trigger fills in the rest, the user from the JWT) and read
/// back the outcome of requests on versions it can see; `transcode_app_retry` is executable by
/// `authenticated` and `service_role` only.
extension SchemaCatalog {
    /// How many app retries a version gets when `transcode.app_retry_limit` is not set.
    public static let defaultAppRetryLimit = 3
    /// How many retry requests are kept per version.
    public static let keptRetryRequests = 20

    /// The columns of `transcode_retry_requests` a signed-in client may read back.
    public static let clientReadableRetryColumns = ["id", "version_id", "requested_at", "outcome", "status_after",
                                                    "app_retries", "retry_limit"]

    static let consoleAndAppRetry: String = {
        let tables = """
            CREATE TABLE IF NOT EXISTS transcode_attempts (
              id          bigserial PRIMARY KEY,
              version_id  uuid        NOT NULL REFERENCES room_versions(id) ON DELETE CASCADE,
              attempt     integer     NOT NULL,
              lease_id    uuid,
              worker      text,
              reprocess   boolean     NOT NULL DEFAULT false,
              started_at  timestamptz NOT NULL,
              finished_at timestamptz NOT NULL DEFAULT now(),
              outcome     text        NOT NULL,
              reason      text,
              timings_ms  jsonb       NOT NULL DEFAULT '{}'::jsonb
            );
            CREATE INDEX IF NOT EXISTS transcode_attempts_version_idx ON transcode_attempts (version_id, id);
            CREATE INDEX IF NOT EXISTS transcode_attempts_finished_idx ON transcode_attempts (finished_at);
            CREATE TABLE IF NOT EXISTS transcode_event_log (
              id         bigserial PRIMARY KEY,
              version_id uuid        NOT NULL REFERENCES room_versions(id) ON DELETE CASCADE,
              event      text        NOT NULL,
              payload    jsonb       NOT NULL,
              at         timestamptz NOT NULL DEFAULT now()
            );
            CREATE INDEX IF NOT EXISTS transcode_event_log_version_idx ON transcode_event_log (version_id, id);
            ALTER TABLE room_versions ADD COLUMN IF NOT EXISTS app_retry_count integer NOT NULL DEFAULT 0;
            CREATE INDEX IF NOT EXISTS room_versions_created_idx ON room_versions (created_at DESC, id DESC);
            CREATE TABLE IF NOT EXISTS transcode_retry_requests (
              id           bigserial PRIMARY KEY,
              version_id   uuid        NOT NULL REFERENCES room_versions(id) ON DELETE CASCADE,
              user_id      uuid,
              requested_at timestamptz NOT NULL DEFAULT now(),
              outcome      text        NOT NULL DEFAULT 'PENDING',
              status_after text,
              app_retries  integer,
              retry_limit  integer
            );
            CREATE INDEX IF NOT EXISTS transcode_retry_requests_version_idx ON transcode_retry_requests (version_id, id);

            """
        let retry = """

            CREATE OR REPLACE FUNCTION transcode_app_retry_limit() RETURNS integer LANGUAGE sql STABLE AS $$
              SELECT CASE WHEN coalesce(current_setting('transcode.app_retry_limit', true), '') ~ '^[0-9]{1,4}$'
                          THEN current_setting('transcode.app_retry_limit', true)::integer ELSE \(defaultAppRetryLimit) END
            $$;

            CREATE OR REPLACE FUNCTION transcode_retry_request_apply() RETURNS trigger
            LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
            DECLARE
              r room_versions%ROWTYPE;
              sub text := nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'sub';
              lim integer := transcode_app_retry_limit();
            BEGIN
              SELECT * INTO r FROM room_versions WHERE id = NEW.version_id FOR UPDATE;
              NEW.user_id := CASE WHEN sub ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' THEN sub::uuid END;
              NEW.requested_at := now();
              NEW.retry_limit := lim;
              IF NOT FOUND THEN
                NEW.outcome := 'VERSION_NOT_FOUND';
              ELSIF r.status IN ('queued', 'transcoding') OR r.lease_id IS NOT NULL THEN
                NEW.outcome := 'ALREADY_QUEUED';
              ELSIF r.status <> 'failed' THEN
                NEW.outcome := 'INVALID_STATE';
              ELSIF r.app_retry_count >= lim THEN
                NEW.outcome := 'RETRY_LIMIT_REACHED';
              ELSE
                UPDATE room_versions
                   SET status = 'queued', attempt = 0, run_after = now(), priority = 0, enqueued_at = now(),
                       last_error_code = NULL, last_error = NULL, cancel_requested_at = NULL,
                       app_retry_count = app_retry_count + 1, updated_at = now()
                 WHERE id = r.id RETURNING * INTO r;
                NEW.outcome := 'QUEUED';
              END IF;
              NEW.status_after := r.status::text;
              NEW.app_retries := r.app_retry_count;
              DELETE FROM transcode_retry_requests
               WHERE version_id = NEW.version_id
                 AND id <= (SELECT id FROM transcode_retry_requests WHERE version_id = NEW.version_id
                             ORDER BY id DESC OFFSET \(keptRetryRequests - 1) LIMIT 1);
              RETURN NEW;
            END $$;
            DROP TRIGGER IF EXISTS transcode_retry_request_apply ON transcode_retry_requests;
            CREATE TRIGGER transcode_retry_request_apply BEFORE INSERT ON transcode_retry_requests
              FOR EACH ROW EXECUTE FUNCTION transcode_retry_request_apply();

            CREATE OR REPLACE FUNCTION transcode_app_retry(p_version_id uuid) RETURNS jsonb
            LANGUAGE plpgsql SECURITY INVOKER SET search_path = pg_catalog, public AS $$
            DECLARE
              q transcode_retry_requests%ROWTYPE;
            BEGIN
              IF p_version_id IS NULL OR NOT EXISTS (SELECT 1 FROM room_versions WHERE id = p_version_id) THEN
                RETURN jsonb_build_object('ok', false, 'error', 'VERSION_NOT_FOUND');
              END IF;
              BEGIN
                INSERT INTO transcode_retry_requests (version_id) VALUES (p_version_id)
                RETURNING id, version_id, NULL::uuid, requested_at, outcome, status_after, app_retries, retry_limit INTO q;
              EXCEPTION WHEN insufficient_privilege THEN
                RETURN jsonb_build_object('ok', false, 'error', 'VERSION_NOT_FOUND');
              END;
              RETURN CASE q.outcome
                WHEN 'QUEUED' THEN jsonb_build_object('ok', true, 'status', q.status_after, 'deduplicated', false,
                                                      'app_retries', q.app_retries, 'retry_limit', q.retry_limit)
                WHEN 'ALREADY_QUEUED' THEN jsonb_build_object('ok', true, 'status', q.status_after, 'deduplicated', true,
                                                              'app_retries', q.app_retries, 'retry_limit', q.retry_limit)
                WHEN 'RETRY_LIMIT_REACHED' THEN jsonb_build_object('ok', false, 'error', q.outcome, 'status', q.status_after,
                                                                   'app_retries', q.app_retries, 'retry_limit', q.retry_limit)
                ELSE jsonb_build_object('ok', false, 'error', q.outcome, 'status', q.status_after) END;
            END $$;

            ALTER TABLE transcode_attempts ENABLE ROW LEVEL SECURITY;
            ALTER TABLE transcode_event_log ENABLE ROW LEVEL SECURITY;
            ALTER TABLE transcode_retry_requests ENABLE ROW LEVEL SECURITY;
            REVOKE ALL ON TABLE transcode_attempts, transcode_event_log, transcode_retry_requests FROM PUBLIC;
            REVOKE ALL ON FUNCTION transcode_app_retry_limit(), transcode_retry_request_apply(), transcode_app_retry(uuid) FROM PUBLIC;
            DO $$ DECLARE r text; BEGIN
              FOREACH r IN ARRAY ARRAY['anon', 'authenticated'] LOOP
                IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r) THEN
                  EXECUTE format('REVOKE ALL ON TABLE transcode_attempts, transcode_event_log, transcode_retry_requests FROM %I', r);
                  EXECUTE format('REVOKE ALL ON SEQUENCE transcode_attempts_id_seq, transcode_event_log_id_seq, transcode_retry_requests_id_seq FROM %I', r);
                  EXECUTE format('REVOKE ALL ON FUNCTION transcode_app_retry_limit(), transcode_retry_request_apply(), transcode_app_retry(uuid) FROM %I', r);
                END IF;
              END LOOP;
              DROP POLICY IF EXISTS transcode_retry_requests_insert ON transcode_retry_requests;
              DROP POLICY IF EXISTS transcode_retry_requests_read ON transcode_retry_requests;
              IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'authenticated') THEN
                GRANT INSERT (version_id) ON transcode_retry_requests TO authenticated;
                GRANT SELECT (\(clientReadableRetryColumns.joined(separator: ", "))) ON transcode_retry_requests TO authenticated;
                GRANT USAGE ON SEQUENCE transcode_retry_requests_id_seq TO authenticated;
                GRANT EXECUTE ON FUNCTION transcode_app_retry(uuid) TO authenticated;
                CREATE POLICY transcode_retry_requests_insert ON transcode_retry_requests FOR INSERT TO authenticated
                  WITH CHECK (EXISTS (SELECT 1 FROM room_versions v WHERE v.id = transcode_retry_requests.version_id));
                CREATE POLICY transcode_retry_requests_read ON transcode_retry_requests FOR SELECT TO authenticated
                  USING (EXISTS (SELECT 1 FROM room_versions v WHERE v.id = transcode_retry_requests.version_id));
              END IF;
              IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'service_role') THEN
                GRANT SELECT ON TABLE transcode_attempts, transcode_event_log, transcode_retry_requests TO service_role;
                GRANT INSERT (version_id) ON transcode_retry_requests TO service_role;
                GRANT USAGE ON SEQUENCE transcode_retry_requests_id_seq TO service_role;
                GRANT EXECUTE ON FUNCTION transcode_app_retry(uuid), transcode_app_retry_limit() TO service_role;
              END IF;
            END $$;
            """
        // transcode_emit_event as migration 6 left it, with the event logged.
        var emit = appEvents
        let start = emit.range(of: "CREATE OR REPLACE FUNCTION transcode_emit_event(ev jsonb)")!.lowerBound
        emit = String(emit[start...])
        emit = String(emit[..<emit.range(of: "END $$;")!.upperBound])
        let notify = "  PERFORM pg_notify('transcode_events', ev::text);\n"
        precondition(emit.contains(notify), "migration 6 text changed: \(notify)")
        emit = emit.replacingOccurrences(of: notify, with: notify + """
              IF (ev->'payload'->>'version_id') ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' THEN
                INSERT INTO public.transcode_event_log (version_id, event, payload)
                SELECT v.id, coalesce(ev->>'event', ''), coalesce(ev->'payload', '{}'::jsonb)
                  FROM public.room_versions v WHERE v.id = (ev->'payload'->>'version_id')::uuid;
              END IF;

            """)
        return tables + emit + "\n" + retry
    }()
}
