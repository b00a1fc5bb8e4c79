// transcode-done: records the end of a transcode worker's attempt (the `transcode-done/v1`
// contract) by calling `transcode_finalize` in the database through PostgREST's rpc endpoint,
// `POST {SUPABASE_URL}/rest/v1/rpc/transcode_finalize`, with the service key. That SQL function is
// fenced by the worker's lease, idempotent on replay, and sends the app's `ready` / `failed` event
// with `realtime.send` in the same transaction, so the event goes out if and only if the change
// commits. This module only authenticates, validates and maps the answer to HTTP. It uses plain
// `fetch` and no imported library, so it runs under any Deno with no network access but the
// project's own.
//
// Environment (read on every request, so a changed secret applies at once):
//   WORKER_CALLBACK_SECRET     the shared secret the worker sends as `Authorization: Bearer …`
//   SUPABASE_URL               the project's API gateway (set by Supabase)
//   SUPABASE_SECRET_KEY        an `sb_secret_…` key, when set; else the `default` entry (or the
//   SUPABASE_SECRET_KEYS       first) of this JSON dictionary Supabase provides; else
//   SUPABASE_SERVICE_ROLE_KEY  the legacy service_role JWT (set by Supabase)
//
// Answers (JSON bodies):
//   200 {"ok":true,"status","output_revision","idempotent_replay"} (also on a replay)
//   400 INVALID_JSON · 401 UNAUTHORIZED · 404 VERSION_NOT_FOUND · 405 METHOD_NOT_ALLOWED
//   409 LEASE_LOST (a newer attempt owns the version: the worker deletes its outputs)
//   413 BODY_TOO_LARGE (over 64 KiB of bytes)
//   422 INVALID_BODY, INVALID_OUTPUTS, INVALID_ERROR, INVALID_VALUE (a class-22 database error) or
//       another refusal code of transcode_finalize
//   500 MISCONFIGURED (a setting is missing, or PostgREST refused the key or lacks the function)
//   503 DATABASE_UNAVAILABLE (network failure, timeout or 5xx: the worker retries)

import {
  defaultTimeoutMs,
  type Env,
  isObject,
  jsonBody,
  projectKey,
  jwtShape,
  type Options,
  refuse,
  rpc,
  answer,
  uuid,
} from "../_shared/http.ts";

export { defaultTimeoutMs };
export type { Env, Options };

/// The largest request body accepted, in bytes.
export const maxBodyBytes = 64 * 1024;

/// True when `given` equals `expected` (compared as UTF-8 bytes), in time that depends only on
/// the length of `expected`, never on where the two differ. An empty `expected` matches nothing.
export function sameSecret(given: string, expected: string): boolean {
  const a = new TextEncoder().encode(given);
  const b = new TextEncoder().encode(expected);
  let diff = a.length ^ b.length;
  for (let i = 0; i < b.length; i++) diff |= (i < a.length ? a[i] : 0) ^ b[i];
  return b.length > 0 && diff === 0;
}

/// The service key to call PostgREST with, or undefined when none is configured. A new-style
/// secret key wins over the legacy service_role JWT.
export function serviceKey(env: Env): string | undefined {
  return projectKey(env, "SUPABASE_SECRET_KEY", "SUPABASE_SECRET_KEYS", "SUPABASE_SERVICE_ROLE_KEY");
}

/// The headers for PostgREST: the key always in `apikey`; a legacy JWT key also as
/// `Authorization: Bearer` (an `sb_secret_…` key is not a JWT and must not be sent there).
export function postgrestHeaders(key: string): Record<string, string> {
  const headers: Record<string, string> = { "apikey": key, "Content-Type": "application/json" };
  if (!key.startsWith("sb_") && jwtShape.test(key)) headers["Authorization"] = `Bearer ${key}`;
  return headers;
}

/// Answers one `transcode-done/v1` request. `fetchImpl` is the fetch used to reach PostgREST.
export async function handle(
  req: Request,
  env: Env,
  fetchImpl: typeof fetch = fetch,
  options: Options = {},
): Promise<Response> {
  if (req.method !== "POST") return refuse(405, "METHOD_NOT_ALLOWED");
  const secret = env.get("WORKER_CALLBACK_SECRET") ?? "";
  if (secret === "") return refuse(500, "MISCONFIGURED");
  const auth = req.headers.get("authorization") ?? "";
  if (!auth.startsWith("Bearer ") || !sameSecret(auth.slice(7), secret)) return refuse(401, "UNAUTHORIZED");
  const baseURL = (env.get("SUPABASE_URL") ?? "").replace(/\/+$/, "");
  const key = serviceKey(env);
  if (baseURL === "" || key === undefined) return refuse(500, "MISCONFIGURED");

  const read = await jsonBody(req, maxBodyBytes);
  if ("refusal" in read) return read.refusal;
  const body = read.body;
  if (!isObject(body) || body.schema !== "transcode-done/v1" || typeof body.version_id !== "string" ||
      !uuid.test(body.version_id) || !isObject(body.lease) || typeof body.lease.lease_id !== "string" ||
      !uuid.test(body.lease.lease_id) || (body.status !== "ready" && body.status !== "failed")) {
    return refuse(422, "INVALID_BODY");
  }
  const outputs = body.outputs, error = body.error;
  if (body.status === "ready" && (!isObject(outputs) || typeof outputs.glb_path !== "string" ||
      typeof outputs.manifest_path !== "string")) {
    return refuse(422, "INVALID_OUTPUTS");
  }
  if (body.status === "failed" && (!isObject(error) || typeof error.reason !== "string")) {
    return refuse(422, "INVALID_ERROR");
  }

  const result = await rpc(fetchImpl, baseURL, "transcode_finalize", postgrestHeaders(key), {
    p_version_id: body.version_id,
    p_lease_id: body.lease.lease_id,
    p_status: body.status,
    p_outputs: body.status === "ready" ? outputs : null,
    p_error: body.status === "failed" ? error : null,
  }, options);
  if (result === undefined) return refuse(503, "DATABASE_UNAVAILABLE");
  const { data, code } = result;
  if (!result.ok) {
    // Data errors (class 22) will not pass on a retry.
    if (code.startsWith("22")) return refuse(422, "INVALID_VALUE");
    // A refused key, a missing grant or a missing function: the deployment needs fixing.
    if (result.status === 401 || result.status === 403 || code === "42501" || code === "PGRST202") {
      console.error(JSON.stringify({ level: "error", msg: "PostgREST refused transcode_finalize", status: result.status, code }));
      return refuse(500, "MISCONFIGURED");
    }
    return refuse(503, "DATABASE_UNAVAILABLE");
  }
  if (isObject(data) && data.ok === true) return answer(200, data);
  if (!isObject(data) || typeof data.error !== "string") return refuse(503, "DATABASE_UNAVAILABLE");
  if (data.error === "LEASE_LOST") return refuse(409, data.error);
  if (data.error === "VERSION_NOT_FOUND") return refuse(404, data.error);
  return refuse(422, data.error);
}
