// Unit tests of the constant-time secret compare and the PostgREST headers, run with `deno test`
// by EdgeFunctionTests. No imports but the handler: the tests run with no network.
import { postgrestHeaders, sameSecret, serviceKey } from "../../../../supabase/functions/transcode-done/handler.ts";

function check(condition: boolean, what: string): void {
  if (!condition) throw new Error(`expected: ${what}`);
}

Deno.test("equal secrets match", () => {
  check(sameSecret("s3cret-value", "s3cret-value"), "equal strings match");
  check(sameSecret("é€😀", "é€😀"), "equal non-ASCII strings match");
});

Deno.test("unequal secrets do not match", () => {
  check(!sameSecret("s3cret-valuf", "s3cret-value"), "differing in the last byte");
  check(!sameSecret("t3cret-value", "s3cret-value"), "differing in the first byte");
  check(!sameSecret("s3cret-value ", "s3cret-value"), "one byte longer");
  check(!sameSecret("S3CRET-VALUE", "s3cret-value"), "case differs");
  // Same UTF-16 length, different bytes.
  check(!sameSecret("é", "e"), "é is not e");
});

Deno.test("a prefix or an extension does not match", () => {
  check(!sameSecret("s3cret", "s3cret-value"), "a prefix");
  check(!sameSecret("s3cret-value-and-more", "s3cret-value"), "an extension");
  check(!sameSecret("s3cret-value\u0000", "s3cret-value"), "a trailing NUL");
});

Deno.test("an empty secret matches nothing", () => {
  check(!sameSecret("", ""), "empty against empty");
  check(!sameSecret("anything", ""), "anything against empty");
  check(!sameSecret("", "s3cret-value"), "empty against a secret");
});

Deno.test("the service key: new secret keys first, then the legacy JWT", () => {
  const env = (vars: Record<string, string>) => ({ get: (name: string) => vars[name] });
  check(serviceKey(env({})) === undefined, "no key");
  check(serviceKey(env({ SUPABASE_SERVICE_ROLE_KEY: "eyJa.eyJb.c" })) === "eyJa.eyJb.c", "legacy key");
  check(serviceKey(env({ SUPABASE_SERVICE_ROLE_KEY: "eyJa.eyJb.c", SUPABASE_SECRET_KEY: "sb_secret_x" })) === "sb_secret_x",
    "the single secret key wins");
  check(serviceKey(env({ SUPABASE_SERVICE_ROLE_KEY: "eyJa.eyJb.c", SUPABASE_SECRET_KEYS: '{"other":"sb_secret_o","default":"sb_secret_d"}' })) === "sb_secret_d",
    "the default entry of the dictionary");
  check(serviceKey(env({ SUPABASE_SECRET_KEYS: '{"other":"sb_secret_o"}' })) === "sb_secret_o", "the first entry");
  check(serviceKey(env({ SUPABASE_SECRET_KEYS: "not json", SUPABASE_SERVICE_ROLE_KEY: "eyJa.eyJb.c" })) === "eyJa.eyJb.c",
    "a malformed dictionary falls back");
});

Deno.test("PostgREST headers: sb_secret keys only in apikey, JWTs also as Bearer", () => {
  const secret = postgrestHeaders("sb_secret_abc");
  check(secret["apikey"] === "sb_secret_abc" && secret["Authorization"] === undefined, "sb_secret key in apikey only");
  const jwt = postgrestHeaders("eyJhbGciOiJIUzI1NiJ9.eyJyb2xlIjoic2VydmljZV9yb2xlIn0.c2ln");
  check(jwt["Authorization"] === "Bearer eyJhbGciOiJIUzI1NiJ9.eyJyb2xlIjoic2VydmljZV9yb2xlIn0.c2ln", "JWT as Bearer");
  check(jwt["Content-Type"] === "application/json", "JSON content type");
});
