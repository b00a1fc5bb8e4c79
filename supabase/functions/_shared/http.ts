// Helpers the worker's Edge Functions share: JSON answers and a bounded body read. Plain Deno,
// no imported library, so the functions run under any Deno with no network access but the
// project's own.

/// Where a handler reads its settings: `Deno.env` in production, a map in tests.
export interface Env {
  get(name: string): string | undefined;
}

/// Tuning for tests; production uses the defaults.
export interface Options {
  /// How long one PostgREST call may take, in milliseconds (default 10 000).
  timeoutMs?: number;
}

/// The default bound on one PostgREST call, in milliseconds.
export const defaultTimeoutMs = 10_000;

export const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const jwtShape = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/// A project key from the environment: `single` when set; else the `default` entry (or the
/// first) of the JSON dictionary in `dictionary`; else `legacy`; undefined when none is set.
export function projectKey(env: Env, single: string, dictionary: string, legacy: string): string | undefined {
  const one = env.get(single);
  if (one) return one;
  const text = env.get(dictionary);
  if (text) {
    try {
      const keys: unknown = JSON.parse(text);
      if (isObject(keys)) {
        if (typeof keys.default === "string" && keys.default) return keys.default;
        const first = Object.values(keys).find((v) => typeof v === "string" && v !== "");
        if (typeof first === "string") return first;
      }
    } catch {
      // Not JSON: fall back to the legacy key.
    }
  }
  return env.get(legacy) || undefined;
}

/// Thrown by `readBody` as soon as more bytes than allowed arrived.
export class BodyTooLarge extends Error {}

/// A JSON answer with `status`.
export function answer(status: number, body: Record<string, unknown>): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
}

/// `{"ok":false,"error":code}` with `status`.
export function refuse(status: number, error: string, extra: Record<string, unknown> = {}): Response {
  return answer(status, { ok: false, error, ...extra });
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/// Reads the body as bytes, stopping with `BodyTooLarge` as soon as more than `limit` arrived.
export async function readBody(req: Request, limit: number): Promise<Uint8Array> {
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

/// The request's JSON body (at most `limit` bytes, UTF-8), or the answer refusing it: 413
/// BODY_TOO_LARGE (declared or read), 400 INVALID_JSON.
export async function jsonBody(req: Request, limit: number): Promise<{ body: unknown } | { refusal: Response }> {
  const declared = req.headers.get("content-length");
  if (declared !== null && !(Number(declared) <= limit)) return { refusal: refuse(413, "BODY_TOO_LARGE") };
  let bytes: Uint8Array;
  try {
    bytes = await readBody(req, limit);
  } catch (e) {
    if (e instanceof BodyTooLarge) return { refusal: refuse(413, "BODY_TOO_LARGE") };
    return { refusal: refuse(400, "INVALID_JSON") };
  }
  try {
    return { body: JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes)) };
  } catch {
    return { refusal: refuse(400, "INVALID_JSON") };
  }
}

/// Calls PostgREST's `rpc/<fn>` with `headers` and `args`: the HTTP status, PostgREST's error
/// code (`code` of an error body, "" otherwise) and the parsed JSON answer; undefined when the
/// call failed on the network or timed out.
export async function rpc(
  fetchImpl: typeof fetch,
  baseURL: string,
  fn: string,
  headers: Record<string, string>,
  args: Record<string, unknown>,
  options: Options,
): Promise<{ ok: boolean; status: number; code: string; data: unknown } | undefined> {
  let response: Response;
  let text: string;
  try {
    response = await fetchImpl(`${baseURL}/rest/v1/rpc/${fn}`, {
      method: "POST",
      headers: { ...headers, "Content-Type": "application/json" },
      body: JSON.stringify(args),
      signal: AbortSignal.timeout(options.timeoutMs ?? defaultTimeoutMs),
    });
    text = await response.text();
  } catch {
    // Refused connection, reset, DNS failure or the timeout: worth a retry.
    return undefined;
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    data = undefined;
  }
  const code = !response.ok && isObject(data) && typeof data.code === "string" ? data.code : "";
  return { ok: response.ok, status: response.status, code, data };
}
