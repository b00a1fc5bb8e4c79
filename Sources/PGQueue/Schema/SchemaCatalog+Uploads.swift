/// Migration 7: versions whose upload-complete call never arrived.
///
/// A version starts `uploading`; the app's upload-complete hook queues it. When that call is
/// lost, the worker's upload sweep (`UploadSweeper`) queues the version itself once its source
/// objects are in storage, or, after the upload expiry, fails it with reason `UPLOAD_EXPIRED`
/// through `transcode_expire_upload(p_version_id uuid)`.
///
/// - `transcode_expire_upload`: fails a version that is still `uploading` and not leased, in the
///   same way `transcode_finalize` fails one (status `failed`, `last_error_code`, a final `errors`
///   entry, `failure_count` + 1, `event_seq` + 1) and sends the same `failed` event through
///   `transcode_emit_event` in the caller's transaction. Returns `{"ok": true, "status": "failed"}`,
///   or `{"ok": false, "error": "VERSION_NOT_FOUND" | "INVALID_STATE", "status": …}` when the
///   version is gone or no longer `uploading` (a concurrent enqueue won), changing nothing.
/// - `transcode_safe_message` is recreated with the messages of `currentSafeMessages` (migration 5's
///   list plus `UPLOAD_EXPIRED`); its privileges are kept.
/// - A partial index on `uploading` versions by `updated_at` keeps the sweep's scan small.
/// - The new function is executable by its owner and `service_role` only.
extension SchemaCatalog {
    /// The failure reason of a version whose upload never completed.
    static let uploadExpiredReason = "UPLOAD_EXPIRED"

    /// The fixed client-safe messages as of migration 7: migration 5's released list (unchanged,
    /// it generates migration 5's text) followed by the reasons added since.
    static let currentSafeMessages: [(reason: String, message: String)] = safeMessages + [
        (uploadExpiredReason, "The scan's upload did not finish."),
    ]

    /// The detailed message kept in the row (`last_error`, `errors`); clients see the safe one.
    static let uploadExpiredDetail = "UPLOAD_EXPIRED: the version stayed uploading past the upload expiry without its source objects in storage"

    static let uploadExpiry: String = {
        let cases = currentSafeMessages.map { "    WHEN '\($0.reason)' THEN '\($0.message.replacingOccurrences(of: "'", with: "''"))'" }
            .joined(separator: "\n")
        let detail = uploadExpiredDetail.replacingOccurrences(of: "'", with: "''")
        return """
            CREATE OR REPLACE FUNCTION transcode_safe_message(p_reason text)
            RETURNS text LANGUAGE sql IMMUTABLE AS $$
              SELECT CASE p_reason
            \(cases)
                ELSE 'Processing failed.' END
            $$;

            CREATE INDEX IF NOT EXISTS room_versions_uploading_idx ON room_versions (updated_at, id)
              WHERE status = 'uploading';

            CREATE OR REPLACE FUNCTION transcode_expire_upload(p_version_id uuid)
            RETURNS jsonb LANGUAGE plpgsql AS $$
            DECLARE
              r room_versions%ROWTYPE;
            BEGIN
              SELECT * INTO r FROM room_versions WHERE id = p_version_id FOR UPDATE;
              IF NOT FOUND THEN
                RETURN jsonb_build_object('ok', false, 'error', 'VERSION_NOT_FOUND');
              END IF;
              IF r.status <> 'uploading' OR r.lease_id IS NOT NULL THEN
                RETURN jsonb_build_object('ok', false, 'error', 'INVALID_STATE', 'status', r.status);
              END IF;
              UPDATE room_versions SET status = 'failed', last_error_code = '\(uploadExpiredReason)',
                last_error = '\(detail)', updated_at = now(), event_seq = event_seq + 1,
                failure_count = failure_count + 1, transcode_phase = NULL,
                errors = errors || jsonb_build_array(jsonb_build_object(
                  'at', now(), 'attempt', attempt, 'code', '\(uploadExpiredReason)',
                  'message', '\(detail)', 'phase', 'uploading', 'final', true))
               WHERE id = p_version_id RETURNING * INTO r;
              PERFORM transcode_emit_event(jsonb_build_object('topic', 'room:' || r.room_id, 'event', 'failed',
                'payload', jsonb_build_object('schema', 'transcode-failed/v1', 'version_id', r.id, 'room_id', r.room_id,
                  'error', 'ROOM_TRANSCODE_FAILED', 'reason', '\(uploadExpiredReason)',
                  'message', transcode_safe_message('\(uploadExpiredReason)'), 'retryable', false,
                  'failure_count', r.failure_count, 'status', r.status, 'attempt', r.attempt, 'seq', r.event_seq,
                  'at', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))));
              RETURN jsonb_build_object('ok', true, 'status', r.status);
            END $$;

            REVOKE ALL ON FUNCTION transcode_expire_upload(uuid) FROM PUBLIC;
            DO $$ DECLARE r text; BEGIN
              FOREACH r IN ARRAY ARRAY['anon', 'authenticated'] LOOP
                IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r) THEN
                  EXECUTE format('REVOKE ALL ON FUNCTION transcode_expire_upload(uuid) FROM %I', r);
                END IF;
              END LOOP;
              IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'service_role') THEN
                GRANT EXECUTE ON FUNCTION transcode_expire_upload(uuid) TO service_role;
              END IF;
            END $$;
            """
    }()
}
