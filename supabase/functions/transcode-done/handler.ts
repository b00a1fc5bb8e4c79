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

/// Where the handler reads its settings: `Deno.env` in production, a map in tests.
export interface Env {
  get(name: string): string | undefined;
}

/// Tuning for tests; production uses the defaults.
export interface Options {
  /// How long one PostgREST call may take, in milliseconds (default 10 000).
  timeoutMs?: number;
}

/// The largest request body accepted, in bytes.
export const maxBodyBytes = 64 * 1024;
/// The default bound on one PostgREST call, in milliseconds.
export const defaultTimeoutMs = 10_000;

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const jwtShape = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

class BodyTooLarge extends Error {}

function answer(status: number, body: Record<string, unknown>): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
}

function refuse(status: number, error: string): Response {
  return answer(status, { ok: false, error });
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

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
  const single = env.get("SUPABASE_SECRET_KEY");
  if (single) return single;
  const dictionary = env.get("SUPABASE_SECRET_KEYS");
  if (dictionary) {
    try {
      const keys: unknown = JSON.parse(dictionary);
      if (isObject(keys)) {
        if (typeof keys.default === "string" && keys.default) return keys.default;
        const first = Object.values(keys).find((v) => typeof v === "string" && v !== "");
        if (typeof first === "string") return first;
      }
    } catch {
      // Not JSON: fall back to the legacy key.
    }
  }
  return env.get("SUPABASE_SERVICE_ROLE_KEY") || undefined;
}

/// The headers for PostgREST: the key always in `apikey`; a legacy JWT key also as
/// `Authorization: Bearer` (an `sb_secret_…` key is not a JWT and must not be sent there).
export function postgrestHeaders(key: string): Record<string, string> {
  const headers: Record<string, string> = { "apikey": key, "Content-Type": "application/json" };
  if (!key.startsWith("sb_") && jwtShape.test(key)) headers["Authorization"] = `Bearer ${key}`;
  return headers;
}

/// Reads the body as bytes, stopping with `BodyTooLarge` as soon as more than `limit` arrived.
async function readBody(req: Request, limit: number): Promise<Uint8Array> {
  if (!req.body) return new Uint8Array(0);
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  while (true) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => {});
      throw new BodyTooLarge();
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const c of chunks) {
    bytes.set(c, offset);
    offset += c.byteLength;
  }
  return bytes;
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

  const declared = req.headers.get("content-length");
  if (declared !== null && !(Number(declared) <= maxBodyBytes)) return refuse(413, "BODY_TOO_LARGE");
  let bytes: Uint8Array;
  try {
    bytes = await readBody(req, maxBodyBytes);
  } catch (e) {
    if (e instanceof BodyTooLarge) return refuse(413, "BODY_TOO_LARGE");
    return refuse(400, "INVALID_JSON");
  }
  let body: unknown;
  try {
    body = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    return refuse(400, "INVALID_JSON");
  }
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

  let response: Response;
  let text: string;
  try {
    response = await fetchImpl(`${baseURL}/rest/v1/rpc/transcode_finalize`, {
      method: "POST",
      headers: postgrestHeaders(key),
      body: JSON.stringify({
        p_version_id: body.version_id,
        p_lease_id: body.lease.lease_id,
        p_status: body.status,
        p_outputs: body.status === "ready" ? outputs : null,
        p_error: body.status === "failed" ? error : null,
      }),
      signal: AbortSignal.timeout(options.timeoutMs ?? defaultTimeoutMs),
    });
    text = await response.text();
  } catch {
    // Refused connection, reset, DNS failure or the timeout: worth a retry.
    return refuse(503, "DATABASE_UNAVAILABLE");
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    data = undefined;
  }
  if (!response.ok) {
    const code = isObject(data) && typeof data.code === "string" ? data.code : "";
    // Data errors (class 22) will not pass on a retry.
    if (code.startsWith("22")) return refuse(422, "INVALID_VALUE");
    // A refused key, a missing grant or a missing function: the deployment needs fixing.
    if (response.status === 401 || response.status === 403 || code === "42501" || code === "PGRST202") {
      console.error(JSON.stringify({ level: "error", msg: "PostgREST refused transcode_finalize", status: response.status, code }));
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
