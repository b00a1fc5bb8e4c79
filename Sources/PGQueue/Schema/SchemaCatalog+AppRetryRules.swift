/// Migration 17: the app's retry button by the app's rules.
///
/// `transcode_retry_request_apply` (the row trigger behind `transcode_app_retry`) now:
/// - lets only the room's owner retry (`rooms.owner_id = auth.uid()`, where `rooms` has an
///   `owner_id`): anyone else who sees a public room gets `FORBIDDEN` and changes nothing;
/// - refuses a failure a retry cannot mend (`error_retryable` false: a file too large, an invalid
///   redaction, an unreadable scan, a cancellation) with `PERMANENT_FAILURE` and the app's code in
///   `error_code`, spending nothing;
/// - agrees with the app, which hides Retry once a version has failed `transcode.app_retry_limit`
///   times (default 3): `RETRY_LIMIT_REACHED` when `failure_count` has reached it.
/// Both functions read the table in `transcode_private`.
extension SchemaCatalog {
    static let appRetryRules = """
        ALTER TABLE transcode_retry_requests ADD COLUMN IF NOT EXISTS error_code text;
        CREATE OR REPLACE FUNCTION transcode_retry_request_apply() RETURNS trigger
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, transcode_private, public AS $$
        DECLARE
          r transcode_private.room_versions%ROWTYPE;
          sub text := nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'sub';
          lim integer := transcode_app_retry_limit();
          owner text;
          seen boolean;
          has_owner boolean := EXISTS (SELECT 1 FROM information_schema.columns
            WHERE table_schema = 'public' AND table_name = 'rooms' AND column_name = 'owner_id');
        BEGIN
          SELECT * INTO r FROM transcode_private.room_versions WHERE id = NEW.version_id FOR UPDATE;
          seen := FOUND;
          NEW.user_id := CASE WHEN sub ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' THEN sub::uuid END;
          NEW.requested_at := now();
          NEW.retry_limit := lim;
          IF seen AND has_owner THEN
            EXECUTE 'SELECT owner_id::text FROM public.rooms WHERE id = $1' INTO owner USING r.room_id;
          END IF;
          IF NOT seen THEN
            NEW.outcome := 'VERSION_NOT_FOUND';
          ELSIF has_owner AND (owner IS NULL OR NEW.user_id IS NULL OR owner <> NEW.user_id::text) THEN
            NEW.outcome := 'FORBIDDEN';
          ELSIF r.status IN ('queued', 'transcoding') OR r.lease_id IS NOT NULL THEN
            NEW.outcome := 'ALREADY_QUEUED';
          ELSIF r.status <> 'failed' THEN
            NEW.outcome := 'INVALID_STATE';
          ELSIF NOT coalesce(r.error_retryable, true) THEN
            NEW.outcome := 'PERMANENT_FAILURE';
            NEW.error_code := r.error_code;
          ELSIF r.failure_count >= lim THEN
            NEW.outcome := 'RETRY_LIMIT_REACHED';
          ELSE
            UPDATE transcode_private.room_versions
               SET status = 'queued', attempt = 0, run_after = now(), priority = 0, enqueued_at = now(),
                   last_error_code = NULL, last_error = NULL, cancel_requested_at = NULL,
                   error_code = NULL, error_retryable = NULL,
                   app_retry_count = app_retry_count + 1, updated_at = now()
             WHERE id = r.id RETURNING * INTO r;
            NEW.outcome := 'QUEUED';
          END IF;
          NEW.status_after := r.status::text;
          NEW.app_retries := r.app_retry_count;
          DELETE FROM transcode_retry_requests
           WHERE version_id = NEW.version_id
             AND id <= (SELECT id FROM transcode_retry_requests WHERE version_id = NEW.version_id
                         ORDER BY id DESC OFFSET 19 LIMIT 1);
          RETURN NEW;
        END $$;

        CREATE OR REPLACE FUNCTION transcode_app_retry(p_version_id uuid) RETURNS jsonb
        LANGUAGE plpgsql SECURITY INVOKER SET search_path = pg_catalog, public AS $$
        DECLARE
          q transcode_retry_requests%ROWTYPE;
        BEGIN
          IF p_version_id IS NULL OR NOT EXISTS (SELECT 1 FROM public.room_versions WHERE id = p_version_id) THEN
            RETURN jsonb_build_object('ok', false, 'error', 'VERSION_NOT_FOUND');
          END IF;
          BEGIN
            INSERT INTO transcode_retry_requests (version_id) VALUES (p_version_id)
            RETURNING id, version_id, NULL::uuid, requested_at, outcome, status_after, app_retries, retry_limit, error_code INTO q;
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
            WHEN 'PERMANENT_FAILURE' THEN jsonb_build_object('ok', false, 'error', q.outcome, 'status', q.status_after,
                                                             'code', q.error_code)
            ELSE jsonb_build_object('ok', false, 'error', q.outcome, 'status', q.status_after) END;
        END $$;
        DO $$ BEGIN
          IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'authenticated') THEN
            GRANT SELECT (error_code) ON transcode_retry_requests TO authenticated;
          END IF;
        END $$;
        """
}
