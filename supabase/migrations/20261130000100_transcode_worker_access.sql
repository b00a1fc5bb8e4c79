-- CrowdRoom transcode worker on Supabase: who may call the worker's SQL functions.
--
-- Only the service role (the transcode-done Edge Function, operators) may finalize or cancel a
-- version; the app's anon and signed-in users cannot reach these functions through the REST API.
-- The worker itself connects as the database owner (DATABASE_URL) and is not affected.
REVOKE ALL ON FUNCTION transcode_finalize(uuid, uuid, text, jsonb, jsonb) FROM PUBLIC, anon, authenticated;
REVOKE ALL ON FUNCTION transcode_cancel(uuid) FROM PUBLIC, anon, authenticated;
REVOKE ALL ON FUNCTION transcode_emit_event(jsonb) FROM PUBLIC, anon, authenticated;
GRANT EXECUTE ON FUNCTION transcode_finalize(uuid, uuid, text, jsonb, jsonb) TO service_role;
GRANT EXECUTE ON FUNCTION transcode_cancel(uuid) TO service_role;
GRANT EXECUTE ON FUNCTION transcode_emit_event(jsonb) TO service_role;
