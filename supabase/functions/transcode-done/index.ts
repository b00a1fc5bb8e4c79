// transcode-done: records the end of a transcode worker's attempt (the `transcode-done/v1`
// contract) by calling `transcode_finalize` in the database. That function is fenced by the
// worker's lease, idempotent on replay, and sends the app's `ready` / `failed` event with
// `realtime.send` in the same transaction, so the event goes out if and only if the change
// commits. This function only authenticates, validates and maps the answer to HTTP.
//
// Deploy with JWT verification off (the worker authenticates with a shared secret):
//   supabase secrets set WORKER_CALLBACK_SECRET=<random secret>
//   supabase functions deploy transcode-done --no-verify-jwt
// and give the worker the same value as TRANSCODE_DONE_SECRET.
//
// Answers: 200 {"ok":true,"status","output_revision","idempotent_replay"}; 409 LEASE_LOST (a
// newer attempt owns the version: the worker deletes its outputs); 404 VERSION_NOT_FOUND;
// 400/422 invalid request; 401 bad secret; 503 database unavailable (the worker retries).
import { createClient } from "jsr:@supabase/supabase-js@2";

const secret = Deno.env.get("WORKER_CALLBACK_SECRET") ?? "";
const db = createClient(Deno.env.get("SUPABASE_URL") ?? "", Deno.env.get("SUPABASE_SERVICE_ROLE_KEY") ?? "", {
  auth: { persistSession: false, autoRefreshToken: false },
});

const maxBodyBytes = 64 * 1024;
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function answer(status: number, body: Record<string, unknown>): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
}

// Compares in time independent of where the strings differ.
function sameSecret(given: string, expected: string): boolean {
  const a = new TextEncoder().encode(given);
  const b = new TextEncoder().encode(expected);
  let diff = a.length ^ b.length;
  for (let i = 0; i < b.length; i++) diff |= (i < a.length ? a[i] : 0) ^ b[i];
  return b.length > 0 && diff === 0;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

Deno.serve(async (req: Request) => {
  if (req.method !== "POST") return answer(405, { ok: false, error: "METHOD_NOT_ALLOWED" });
  const auth = req.headers.get("authorization") ?? "";
  if (!secret || !auth.startsWith("Bearer ") || !sameSecret(auth.slice(7), secret)) {
    return answer(401, { ok: false, error: "UNAUTHORIZED" });
  }
  const text = await req.text();
  if (text.length > maxBodyBytes) return answer(413, { ok: false, error: "BODY_TOO_LARGE" });
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return answer(400, { ok: false, error: "INVALID_JSON" });
  }
  if (!isObject(body) || body.schema !== "transcode-done/v1" || typeof body.version_id !== "string" ||
      !uuid.test(body.version_id) || !isObject(body.lease) || typeof body.lease.lease_id !== "string" ||
      !uuid.test(body.lease.lease_id) || (body.status !== "ready" && body.status !== "failed")) {
    return answer(422, { ok: false, error: "INVALID_BODY" });
  }
  const outputs = body.outputs, error = body.error;
  if (body.status === "ready" && (!isObject(outputs) || typeof outputs.glb_path !== "string" ||
      typeof outputs.manifest_path !== "string")) {
    return answer(422, { ok: false, error: "INVALID_OUTPUTS" });
  }
  if (body.status === "failed" && (!isObject(error) || typeof error.reason !== "string")) {
    return answer(422, { ok: false, error: "INVALID_ERROR" });
  }
  const { data, error: rpcError } = await db.rpc("transcode_finalize", {
    p_version_id: body.version_id,
    p_lease_id: body.lease.lease_id,
    p_status: body.status,
    p_outputs: body.status === "ready" ? outputs : null,
    p_error: body.status === "failed" ? error : null,
  });
  if (rpcError) {
    // Data errors (class 22) will not pass on a retry; anything else may.
    if ((rpcError.code ?? "").startsWith("22")) return answer(422, { ok: false, error: "INVALID_VALUE" });
    return answer(503, { ok: false, error: "DATABASE_UNAVAILABLE" });
  }
  if (isObject(data) && data.ok === true) return answer(200, data);
  const code = isObject(data) ? String(data.error) : "UNKNOWN";
  if (code === "LEASE_LOST") return answer(409, { ok: false, error: code });
  if (code === "VERSION_NOT_FOUND") return answer(404, { ok: false, error: code });
  return answer(422, { ok: false, error: code });
});
