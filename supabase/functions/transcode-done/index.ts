// The `transcode-done` Edge Function's entry point; the logic is in handler.ts.
//
// Deploy with JWT verification off (the worker authenticates with a shared secret):
//   supabase secrets set WORKER_CALLBACK_SECRET=<random secret>
//   supabase functions deploy transcode-done --no-verify-jwt
// and give the worker the same value as TRANSCODE_DONE_SECRET.
import { handle } from "./handler.ts";

Deno.serve((req: Request) => handle(req, Deno.env));
