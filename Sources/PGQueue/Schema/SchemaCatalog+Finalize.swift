/// Migration 16's `transcode_finalize`, `transcode_cancel` and `transcode_expire_upload`: as
/// migrations 10, 6 and 7 left them, reading `transcode_private.room_versions`, recording the app's
/// error code on the row, and sending `version_updated` for a reprocess instead of `ready`.
extension SchemaCatalog {
    static let finalize = """
        CREATE OR REPLACE FUNCTION transcode_finalize(
          p_version_id uuid, p_lease_id uuid, p_status text, p_outputs jsonb, p_error jsonb)
        RETURNS jsonb LANGUAGE plpgsql SET search_path = pg_catalog, transcode_private, public AS $$
        DECLARE
          r transcode_private.room_versions%ROWTYPE;
          was_reprocess boolean;
          ev jsonb;
        BEGIN
          IF p_status IS NULL OR p_status NOT IN ('ready', 'failed') THEN
            RETURN jsonb_build_object('ok', false, 'error', 'INVALID_STATUS');
          END IF;
          IF p_version_id IS NULL OR p_lease_id IS NULL THEN
            RETURN jsonb_build_object('ok', false, 'error', 'LEASE_LOST');
          END IF;
          SELECT * INTO r FROM transcode_private.room_versions WHERE id = p_version_id FOR UPDATE;
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
            UPDATE transcode_private.room_versions SET
              status = 'ready', glb_path = p_outputs->>'glb_path', manifest_path = p_outputs->>'manifest_path',
              thumbnail_path = coalesce(p_outputs->>'thumbnail_path', (SELECT t->>'path'
          FROM jsonb_array_elements(coalesce(p_outputs->'thumbnails', '[]'::jsonb)) t
          WHERE t->>'kind' IN ('hero', 'card') ORDER BY t->>'kind' = 'hero' DESC LIMIT 1)),
              thumbnail_paths = coalesce(p_outputs->'thumbnails', '[]'::jsonb),
              manifest_schema_version = (p_outputs->>'manifest_schema_version')::integer,
              quality_grade = nullif(p_outputs->>'quality_grade', ''),
              output_bucket = nullif(p_outputs->>'bucket', ''),
              output_revision = output_revision + 1, reprocess_requested_at = NULL, cancel_requested_at = NULL,
              event_seq = event_seq + 1, error_code = NULL, error_retryable = NULL,
              lease_id = NULL, locked_by = NULL, locked_at = NULL, lease_expires_at = NULL, heartbeat_at = NULL,
              transcode_phase = NULL, last_error_code = NULL, last_error = NULL, transcoded_at = now(),
              updated_at = now()
            WHERE id = p_version_id RETURNING * INTO r;
            UPDATE public.rooms SET current_version_id = r.id,
              thumbnail_path = (SELECT t->>'path' FROM jsonb_array_elements(r.thumbnail_paths) t
                                 WHERE t->>'kind' = 'card' LIMIT 1),
              thumbnail_bucket = r.output_bucket,
              quality_grade = greatest(r.quality_grade, r.app_quality_grade)
             WHERE rooms.id = r.room_id
               AND (rooms.current_version_id IS NULL OR rooms.current_version_id = r.id
                    OR NOT EXISTS (SELECT 1 FROM transcode_private.room_versions c
                                    WHERE c.id = rooms.current_version_id AND c.created_at > r.created_at));
            ev := jsonb_build_object('topic', 'room:' || r.room_id,
              'event', CASE WHEN was_reprocess THEN 'version_updated' ELSE 'ready' END,
              'payload', jsonb_build_object(
                'schema', 'transcode-ready/v1', 'version_id', r.id, 'room_id', r.room_id,
                'status', r.status, 'manifest_schema_version', r.manifest_schema_version,
                'output_revision', r.output_revision, 'reprocess', was_reprocess, 'seq', r.event_seq,
                'quality_grade', r.quality_grade,
                'at', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')));
          ELSE
            UPDATE transcode_private.room_versions SET
              status = CASE WHEN was_reprocess THEN status ELSE 'failed'::room_version_status END,
              reprocess_requested_at = NULL, cancel_requested_at = NULL, event_seq = event_seq + 1,
              failure_count = failure_count + CASE WHEN was_reprocess THEN 0 ELSE 1 END,
              error_code = CASE WHEN was_reprocess THEN error_code ELSE transcode_app_error(p_error->>'reason') END,
              error_retryable = CASE WHEN was_reprocess THEN error_retryable
                                     ELSE coalesce((p_error->>'retryable')::boolean, false) END,
              lease_id = NULL, locked_by = NULL, locked_at = NULL, lease_expires_at = NULL, heartbeat_at = NULL,
              transcode_phase = NULL, last_error_code = p_error->>'reason', last_error = left(p_error->>'message', 2000),
              errors = errors || jsonb_build_array(jsonb_build_object(
                'at', now(), 'attempt', attempt, 'code', p_error->>'reason', 'message', left(p_error->>'message', 2000),
                'phase', p_error->>'phase', 'worker', r.locked_by, 'lease_id', p_lease_id, 'final', true)),
              updated_at = now()
            WHERE id = p_version_id RETURNING * INTO r;
            ev := jsonb_build_object('topic', 'room:' || r.room_id,
              'event', CASE WHEN was_reprocess THEN 'reprocess_failed' ELSE 'failed' END,
              'payload', transcode_failed_payload(r, p_error->>'reason')
                || jsonb_build_object('error', transcode_app_error(p_error->>'reason'),
                                      'retryable', coalesce((p_error->>'retryable')::boolean, false)));
          END IF;
          PERFORM transcode_emit_event(ev);
          RETURN jsonb_build_object('ok', true, 'status', r.status, 'output_revision', r.output_revision,
                                    'idempotent_replay', false);
        END $$;

        """

    static let cancelAndExpiry: String = {
        let detail = uploadExpiredDetail.replacingOccurrences(of: "'", with: "''")
        return """
            CREATE OR REPLACE FUNCTION transcode_cancel(p_version_id uuid)
            RETURNS jsonb LANGUAGE plpgsql SET search_path = pg_catalog, transcode_private, public AS $$
            DECLARE
              r transcode_private.room_versions%ROWTYPE;
            BEGIN
              SELECT * INTO r FROM transcode_private.room_versions WHERE id = p_version_id FOR UPDATE;
              IF NOT FOUND THEN
                RETURN jsonb_build_object('ok', false, 'error', 'VERSION_NOT_FOUND');
              END IF;
              IF r.lease_id IS NOT NULL THEN
                UPDATE transcode_private.room_versions SET cancel_requested_at = coalesce(cancel_requested_at, now()),
                  updated_at = now() WHERE id = p_version_id;
                RETURN jsonb_build_object('ok', true, 'running', true, 'status', r.status);
              END IF;
              IF r.status = 'ready' AND r.reprocess_requested_at IS NOT NULL THEN
                UPDATE transcode_private.room_versions SET reprocess_requested_at = NULL, priority = 0, updated_at = now()
                 WHERE id = p_version_id;
                RETURN jsonb_build_object('ok', true, 'running', false, 'status', 'ready');
              END IF;
              IF r.status NOT IN ('queued', 'uploading') THEN
                RETURN jsonb_build_object('ok', false, 'error', 'INVALID_STATE', 'status', r.status);
              END IF;
              UPDATE transcode_private.room_versions SET status = 'failed', last_error_code = 'CANCELLED',
                error_code = transcode_app_error('CANCELLED'), error_retryable = false,
                last_error = 'cancelled by an operator', updated_at = now(), event_seq = event_seq + 1,
                failure_count = failure_count + 1,
                errors = errors || jsonb_build_array(jsonb_build_object(
                  'at', now(), 'attempt', attempt, 'code', 'CANCELLED', 'message', 'cancelled by an operator', 'final', true))
               WHERE id = p_version_id RETURNING * INTO r;
              PERFORM transcode_emit_event(jsonb_build_object('topic', 'room:' || r.room_id, 'event', 'failed',
                'payload', transcode_failed_payload(r, 'CANCELLED')));
              RETURN jsonb_build_object('ok', true, 'running', false, 'status', 'failed');
            END $$;

            CREATE OR REPLACE FUNCTION transcode_expire_upload(p_version_id uuid)
            RETURNS jsonb LANGUAGE plpgsql SET search_path = pg_catalog, transcode_private, public AS $$
            DECLARE
              r transcode_private.room_versions%ROWTYPE;
            BEGIN
              SELECT * INTO r FROM transcode_private.room_versions WHERE id = p_version_id FOR UPDATE;
              IF NOT FOUND THEN
                RETURN jsonb_build_object('ok', false, 'error', 'VERSION_NOT_FOUND');
              END IF;
              IF r.status <> 'uploading' OR r.lease_id IS NOT NULL THEN
                RETURN jsonb_build_object('ok', false, 'error', 'INVALID_STATE', 'status', r.status);
              END IF;
              UPDATE transcode_private.room_versions SET status = 'failed', last_error_code = '\(uploadExpiredReason)',
                error_code = transcode_app_error('\(uploadExpiredReason)'), error_retryable = false,
                last_error = '\(detail)', updated_at = now(), event_seq = event_seq + 1,
                failure_count = failure_count + 1, transcode_phase = NULL,
                errors = errors || jsonb_build_array(jsonb_build_object(
                  'at', now(), 'attempt', attempt, 'code', '\(uploadExpiredReason)',
                  'message', '\(detail)', 'phase', 'uploading', 'final', true))
               WHERE id = p_version_id RETURNING * INTO r;
              PERFORM transcode_emit_event(jsonb_build_object('topic', 'room:' || r.room_id, 'event', 'failed',
                'payload', transcode_failed_payload(r, '\(uploadExpiredReason)')));
              RETURN jsonb_build_object('ok', true, 'status', r.status);
            END $$;

            """
    }()
}
