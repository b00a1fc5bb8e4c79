// Serves one of the worker's Edge Function handlers on 127.0.0.1 and an ephemeral port for the
// Swift tests (EdgeFunctionTests, AppRetryEdgeTests). Prints one line, `{"port":N}`, once it
// listens. Arguments: the function's name (`transcode-done` or `transcode-retry`), and, when
// given, a bound on each PostgREST call in milliseconds (the deployed function uses the default).
import { handle as transcodeDone } from "../../../../supabase/functions/transcode-done/handler.ts";
import { handle as transcodeRetry } from "../../../../supabase/functions/transcode-retry/handler.ts";

const handlers: Record<string, typeof transcodeDone> = { "transcode-done": transcodeDone, "transcode-retry": transcodeRetry };
const handle = handlers[Deno.args[0] ?? ""];
if (!handle) throw new Error(`unknown function ${Deno.args[0]}`);

const timeoutMs = Deno.args[1] ? Number(Deno.args[1]) : undefined;

Deno.serve({
  hostname: "127.0.0.1",
  port: 0,
  onListen: ({ port }) => console.log(JSON.stringify({ port })),
}, (req: Request) => handle(req, Deno.env, fetch, { timeoutMs }));
