// The `transcode-retry` Edge Function's entry point; the logic is in handler.ts.
//
// Deploy with JWT verification on (the default): the caller is a signed-in app user.
//   supabase functions deploy transcode-retry
import { handle } from "./handler.ts";

Deno.serve((req: Request) => handle(req, Deno.env));
