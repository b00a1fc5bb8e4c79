import WorkerRuntime

#if canImport(Glibc)
import Glibc
import WorkerCore
#endif

/// Entry point of the `transcode-worker` command: dispatches sub-commands and returns an exit status.
public enum CommandLineTool {
    public static let version = WorkerVersion.string

    static let help = """
        transcode-worker \(version): RoomPlan USDZ / USD → layered glTF, manifest and thumbnails,
        as a command-line converter or as a Postgres queue worker.

        USAGE: transcode-worker <command> [options]
               transcode-worker <command> --help     (a command's options, defaults and exit statuses)

        CONVERTER (files only, no database; transcode-worker links no parser, so these run
        transcode-job and transcode-inspect, installed beside it):
          convert INPUT --out DIR   Convert a room scan (USDZ/USDC/USDA and/or the RoomPlan JSON) into
                                    DIR/model.glb, DIR/layer_manifest.json and DIR/thumbs/*.webp.
          inspect FILE              Parse a .usdz/.usdc/.usda file and report layers, prims, counts,
                                    warnings.

        QUEUE WORKER (DATABASE_URL or --database-url):
          run                       The worker daemon: claims queued versions, transcodes, publishes.
          process VERSION_ID        Transcode one version now, in the foreground.
          migrate [--status]        Create or update the database schema (idempotent).
          enqueue VERSION_ID        Queue an uploaded version (no-op when already queued or running).
          retry VERSION_ID | --failed [--since T] [--room ID] [--dry-run]
                                    Queue failed versions again with fresh attempts (priority 10).
          reprocess --below-schema N [--limit K] | VERSION_ID
                                    Re-transcode ready versions; they stay ready meanwhile (priority 20).
          cancel VERSION_ID         Cancel a queued version, or ask its worker to stop.
          gc [--dry-run] [--all]    Delete superseded and abandoned output revisions from storage.
          status                    Versions per status, waiting work, leases in flight, recent failures.
          show VERSION_ID           One version's row and its error history.
          submit --usdz FILE [--roomplan FILE]
                                    Put local files into storage and queue them (local runs, demos).
          watch [--until-idle] [--timeout S]
                                    Print queue events (progress, ready, failed) as they arrive.
          probe [livez|readyz]      Ask the local worker's HTTP server; exit 0 when healthy (for
                                    container health checks).
          errors [--markdown|--json]
                                    Every failure reason and error code, with what it means.
          job-exec --out DIR …      Internal: the child process that runs one job attempt
                                    (transcode-job job-exec).

          help                      Show this help (also: --help, -h).
          version                   Print the version.

        EXIT STATUS: 0 success, 2 usage error, 3 invalid input / not found / invalid state,
        4 database or internal error.
        """

    static func commandHelp(_ cmd: String) -> String {
        switch cmd {
        case "run": return RunCommand.help
        case "process": return ProcessCommand.help
        case "migrate": return MigrateCommand.help
        case "enqueue": return EnqueueCommand.help
        case "retry": return RetryCommand.help
        case "reprocess": return ReprocessCommand.help
        case "cancel": return CancelCommand.help
        case "gc": return GCCommand.help
        case "status": return StatusCommand.help
        case "show": return ShowCommand.help
        case "submit": return SubmitCommand.help
        case "watch": return WatchCommand.help
        case "probe": return ProbeCommand.help
        case "errors": return ErrorsCommand.help
        default: return help
        }
    }

    /// The `transcode-worker` executable's entry, the same for every command: the process makes
    /// itself non-dumpable before anything else (`ProcessGuard`; exit status 4 when it cannot),
    /// adopts the orphans of its job children (`ChildSandbox.adoptOrphans`; it starts no other
    /// child), takes the secrets out of its environment (`SecretEnvironment.withdrawFromProcess`;
    /// exit status 2 for an unreadable `NAME_FILE`), then runs `main`.
    public static func executableMain(_ args: [String]) -> Int32 {
        do {
            try ProcessGuard.makeNonDumpable()
        } catch {
            printError("error: \(error)")
            return ExitStatus.internalError
        }
        ChildSandbox.adoptOrphans()
        do {
            try SecretEnvironment.withdrawFromProcess()
        } catch {
            printError("error: \(error)")
            return ExitStatus.usage
        }
        return main(args)
    }

    public static func main(_ args: [String]) -> Int32 {
        guard let cmd = args.first else {
            print(help)
            return ExitStatus.usage
        }
        let rest = Array(args.dropFirst())
        // convert, inspect and job-exec parse scans: they run in the programs beside this one.
        if SiblingProgram.program(for: cmd) != nil { return SiblingProgram.exec(cmd, rest) }
        return CommandRun.exitStatus(help: { Self.commandHelp(cmd) }) {
            // NAME_FILE secrets (Kubernetes secret mounts) become NAME for every reader.
            try SecretEnvironment.installInProcess()
            switch cmd {
            case "run":
                return try RunCommand(rest).run()
            case "process":
                return try ProcessCommand(rest).run()
            case "migrate":
                return try MigrateCommand(rest).run()
            case "enqueue":
                return try EnqueueCommand(rest).run()
            case "retry":
                return try RetryCommand(rest).run()
            case "reprocess":
                return try ReprocessCommand(rest).run()
            case "cancel":
                return try CancelCommand(rest).run()
            case "gc":
                return try GCCommand(rest).run()
            case "status":
                return try StatusCommand(rest).run()
            case "show":
                return try ShowCommand(rest).run()
            case "submit":
                return try SubmitCommand(rest).run()
            case "watch":
                return try WatchCommand(rest).run()
            case "probe":
                return try ProbeCommand(rest).run()
            case "errors":
                return try ErrorsCommand(rest).run()
            case "help", "--help", "-h":
                print(help)
                return 0
            case "version", "--version":
                print(version)
                return 0
            default:
                throw UsageError("unknown command '\(cmd)'")
            }
        }
    }
}

/// Writes one line to stderr, unbuffered.
func printError(_ s: String) {
    CommandRun.printError(s)
}
