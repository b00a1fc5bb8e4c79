import PGQueue
import WorkerRuntime
import WorkerCore

/// `transcode-worker enqueue VERSION_ID`: queues an uploaded version (what the upload-complete
/// hook does), idempotently.
struct EnqueueCommand {
    static let help = """
        USAGE: transcode-worker enqueue VERSION_ID [options]

        Queues an uploaded version: an `uploading` row becomes `queued` and the wake-up trigger
        tells the workers. Idempotent: a version that is already queued or being transcoded is
        reported as "deduplicated" (a queued one waiting in retry backoff is made runnable now).
        A `ready` or `failed` version is refused: use `transcode-worker retry` (failed) or
        `transcode-worker reprocess` (ready).

        OPTIONS:
        \(DatabaseOptions.helpLines)

        JSON (--json): {"version_id", "result": "queued"|"deduplicated", "status", "deduplicated",
          "attempt" (queued only)}; on failure {"error": {"code": "VERSION_NOT_FOUND"|"INVALID_STATE",
          "message", "status"}}

        \(DatabaseOptions.exitHelp)
        """

    var options: DatabaseOptions
    var versionId: String

    init(_ args: [String]) throws {
        options = try DatabaseOptions(args)
        versionId = try options.versionID(for: "enqueue")
    }

    func run() throws -> Int32 {
        try options.withConnection { connection in
            let store = QueueStore(connection: connection)
            // A version that was queued already is reported as deduplicated: no new work was made.
            let before = try store.show(versionId: versionId)?["status"]
            switch try store.enqueue(versionId: versionId) {
            case .queued where before == "queued":
                options.emit(
                    json: ["version_id": .string(versionId), "result": .string("deduplicated"),
                           "status": .string("queued"), "deduplicated": .bool(true)],
                    text: "deduplicated \(versionId): already queued, nothing to add")
                return ExitStatus.ok
            case .queued(let attempt):
                options.emit(
                    json: ["version_id": .string(versionId), "result": .string("queued"),
                           "status": .string("queued"), "deduplicated": .bool(false),
                           "attempt": .int(Int64(attempt))],
                    text: "queued \(versionId)")
                return ExitStatus.ok
            case .deduplicated(let status):
                options.emit(
                    json: ["version_id": .string(versionId), "result": .string("deduplicated"),
                           "status": .string(status), "deduplicated": .bool(true)],
                    text: "deduplicated \(versionId): already \(status), nothing changed")
                return ExitStatus.ok
            case .notFound:
                return options.fail(code: "VERSION_NOT_FOUND", message: "no version \(versionId)",
                                    status: ExitStatus.invalidInput, extra: ["version_id": .string(versionId)])
            case .invalidState(let status):
                let hint = status == "failed" ? "use `transcode-worker retry \(versionId)`"
                    : status == "ready" ? "use `transcode-worker reprocess \(versionId)` to transcode it again"
                    : "use retry (failed versions) or reprocess (ready versions)"
                return options.fail(code: "INVALID_STATE", message: "version \(versionId) is \(status); \(hint)",
                                    status: ExitStatus.invalidInput,
                                    extra: ["version_id": .string(versionId), "status": .string(status)])
            }
        }
    }
}
