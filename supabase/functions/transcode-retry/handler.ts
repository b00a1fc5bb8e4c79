// transcode-retry: the iOS app's retry button on its failure page. A signed-in user asks to
// process a failed version of their room again:
//
//   POST /functions/v1/transcode-retry
//   Authorization: Bearer <the user's Supabase session JWT>
//   {"version_id": "9b0c…"}
//
// The function calls `transcode_app_retry` through PostgREST's rpc endpoint with the user's own
// JWT, so the database runs it as that user (`authenticated`, `auth.uid()` from the token):
// PostgREST checks the token's signature and expiry, and row level security decides whether the
// user can see the version's room. The SQL function re-queues the version only when the caller
// owns its room and it is `failed` with a failure a retry can mend, and refuses once the version
// has failed `transcode.app_retry_limit` times (default 3, the app's own rule); it answers a
// double tap with the version's current state instead of queuing twice (migrations 12 and 17 in
// docs/integration.md, "The app's retry button").
//
// Environment (read on every request):
//   SUPABASE_URL               the project's API gateway (set by Supabase)
//   SUPABASE_PUBLISHABLE_KEY   an `sb_publishable_…` key when set; else the `default` entry (or the
//   SUPABASE_PUBLISHABLE_KEYS  first) of this JSON dictionary Supabase provides; else
//   SUPABASE_ANON_KEY          the legacy anon JWT (set by Supabase). Sent as `apikey` only: the
//                              caller's JWT is the one that authorizes.
//
// Answers (JSON bodies; `error` is a stable code the app maps):
//   202 {"ok":true,"version_id","status":"queued","deduplicated":false,"app_retries","retry_limit"}
//   200 the same with "deduplicated":true (already queued or running: a double tap)
//   400 INVALID_JSON · 401 UNAUTHENTICATED (no, invalid, expired or anonymous token: sign in again)
//   403 FORBIDDEN (a room the user can see but does not own)
//   404 VERSION_NOT_FOUND (unknown, or a room the user cannot see) · 405 METHOD_NOT_ALLOWED
//   409 INVALID_STATE {"status"} (not failed) · 409 RETRY_LIMIT_REACHED {"app_retries","retry_limit"}
//       (failed 3 times: show the manual feedback path instead)
//   409 PERMANENT_FAILURE {"code"} (a retry cannot mend it; `code` is the app's, e.g. FILE_TOO_LARGE)
//   413 BODY_TOO_LARGE (over 4 KiB)
//   422 INVALID_BODY (version_id missing or not a UUID)
//   500 MISCONFIGURED (a setting is missing, or PostgREST lacks the function)
//   503 DATABASE_UNAVAILABLE (network failure, timeout or 5xx: try again)
import { answer, type Env, isObject, jsonBody, jwtShape, type Options, projectKey, refuse, rpc, uuid } from "../_shared/http.ts";

export type { Env, Options };

/// The largest request body accepted, in bytes.
export const maxBodyBytes = 4 * 1024;

/// The key sent as `apikey`: a publishable key wins over the legacy anon JWT.
export function publishableKey(env: Env): string | undefined {
  return projectKey(env, "SUPABASE_PUBLISHABLE_KEY", "SUPABASE_PUBLISHABLE_KEYS", "SUPABASE_ANON_KEY");
}

/// Answers one retry request. `fetchImpl` is the fetch used to reach PostgREST.
export async function handle(
  req: Request,
  env: Env,
  fetchImpl: typeof fetch = fetch,
  options: Options = {},
): Promise<Response> {
  if (req.method !== "POST") return refuse(405, "METHOD_NOT_ALLOWED");
  const auth = req.headers.get("authorization") ?? "";
  const token = auth.startsWith("Bearer ") ? auth.slice(7).trim() : "";
  if (!jwtShape.test(token)) return refuse(401, "UNAUTHENTICATED");
  const baseURL = (env.get("SUPABASE_URL") ?? "").replace(/\/+$/, "");
  const key = publishableKey(env);
  if (baseURL === "" || key === undefined) return refuse(500, "MISCONFIGURED");

  const read = await jsonBody(req, maxBodyBytes);
  if ("refusal" in read) return read.refusal;
  const body = read.body;
  if (!isObject(body) || typeof body.version_id !== "string" || !uuid.test(body.version_id)) {
    return refuse(422, "INVALID_BODY");
  }
  const versionId = body.version_id.toLowerCase();

  const result = await rpc(fetchImpl, baseURL, "transcode_app_retry", { "apikey": key, "Authorization": `Bearer ${token}` },
    { p_version_id: versionId }, options);
  if (result === undefined) return refuse(503, "DATABASE_UNAVAILABLE");
  const { data, code } = result;
  if (!result.ok) {
    // A bad or expired token (PGRST301/PGRST303), or a role that may not call the function (anon).
    if (result.status === 401 || code === "42501" || code.startsWith("PGRST30")) return refuse(401, "UNAUTHENTICATED");
    if (code.startsWith("22")) return refuse(422, "INVALID_BODY");
    if (result.status === 403 || result.status === 404 || code === "PGRST202") {
      console.error(JSON.stringify({ level: "error", msg: "PostgREST refused transcode_app_retry", status: result.status, code }));
      return refuse(500, "MISCONFIGURED");
    }
    return refuse(503, "DATABASE_UNAVAILABLE");
  }
  if (!isObject(data)) return refuse(503, "DATABASE_UNAVAILABLE");
  if (data.ok === true) {
    return answer(data.deduplicated === true ? 200 : 202, {
      ok: true, version_id: versionId, status: data.status, deduplicated: data.deduplicated === true,
      app_retries: data.app_retries, retry_limit: data.retry_limit,
    });
  }
  switch (data.error) {
    case "VERSION_NOT_FOUND":
      return refuse(404, "VERSION_NOT_FOUND");
    case "INVALID_STATE":
      return refuse(409, "INVALID_STATE", { status: data.status });
    case "RETRY_LIMIT_REACHED":
      return refuse(409, "RETRY_LIMIT_REACHED", { app_retries: data.app_retries, retry_limit: data.retry_limit });
    case "PERMANENT_FAILURE":
      return refuse(409, "PERMANENT_FAILURE", { code: data.code });
    case "FORBIDDEN":
      return refuse(403, "FORBIDDEN");
    default:
      return refuse(503, "DATABASE_UNAVAILABLE");
  }
}
