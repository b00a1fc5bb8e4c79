import PGQueue
import WorkerRuntime
import WorkerCore

/// `transcode-worker cancel VERSION_ID`: stops a queued or running transcode.
struct CancelCommand {
    static let help = """
        USAGE: transcode-worker cancel VERSION_ID [options]

        Cancels a version through `transcode_cancel`:
          queued (or uploading)     becomes `failed` with reason CANCELLED at once, and the
                                    `failed` event is sent;
          being transcoded          the stop is requested: the worker sees it at its next heartbeat,
                                    stops, and finalizes it `failed` with reason CANCELLED;
          ready, reprocess pending  the reprocess request is withdrawn; the version stays ready.
        Any other state is refused (exit 3). `transcode-worker retry` queues a cancelled version again.

        OPTIONS:
        \(DatabaseOptions.helpLines)

        JSON (--json): {"version_id", "result": "cancelled"|"stop_requested"|"reprocess_withdrawn",
          "running", "status"}; on failure {"error": {"code": "VERSION_NOT_FOUND"|"INVALID_STATE", …}}

        \(DatabaseOptions.exitHelp)
        """

    var options: DatabaseOptions
    var versionId: String

    init(_ args: [String]) throws {
        options = try DatabaseOptions(args)
        versionId = try options.versionID(for: "cancel")
    }

    func run() throws -> Int32 {
        try options.withConnection { connection in
            let outcome = try QueueStore(connection: connection).cancel(versionId: versionId)
            guard outcome.ok else {
                let code = outcome.error ?? "INVALID_STATE"
                if code == "VERSION_NOT_FOUND" {
                    return options.fail(code: code, message: "no version \(versionId)", status: ExitStatus.invalidInput,
                                        extra: ["version_id": .string(versionId)])
                }
                let status = outcome.status ?? "unknown"
                return options.fail(code: code,
                                    message: "version \(versionId) is \(status); only queued or running versions can be cancelled",
                                    status: ExitStatus.invalidInput,
                                    extra: ["version_id": .string(versionId), "status": .string(status)])
            }
            let status = outcome.status ?? "unknown"
            let result: String, text: String
            if outcome.running {
                result = "stop_requested"
                text = "stop requested for \(versionId); the worker stops at its next heartbeat"
            } else if status == "ready" {
                result = "reprocess_withdrawn"
                text = "reprocess request withdrawn for \(versionId); it stays ready on its current outputs"
            } else {
                result = "cancelled"
                text = "cancelled \(versionId): now \(status) (reason CANCELLED)"
            }
            if options.json {
                options.emitJSON(["version_id": .string(versionId), "result": .string(result),
                                  "running": .bool(outcome.running), "status": .string(status)])
            } else {
                options.emit(text)
            }
            return ExitStatus.ok
        }
    }
}
