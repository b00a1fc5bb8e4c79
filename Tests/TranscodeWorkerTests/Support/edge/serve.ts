// Serves the transcode-done handler on 127.0.0.1 and an ephemeral port for the Swift tests
// (EdgeFunctionTests). Prints one line, `{"port":N}`, once it listens. The first argument, when
// given, bounds each PostgREST call in milliseconds (the deployed function uses the default).
import { handle } from "../../../../supabase/functions/transcode-done/handler.ts";

const timeoutMs = Deno.args[0] ? Number(Deno.args[0]) : undefined;

Deno.serve({
  hostname: "127.0.0.1",
  port: 0,
  onListen: ({ port }) => console.log(JSON.stringify({ port })),
}, (req: Request) => handle(req, Deno.env, fetch, { timeoutMs }));
