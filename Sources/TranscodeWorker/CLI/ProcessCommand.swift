import Dispatch
import Foundation
import JSONCore
import ObjectStorage
import PGQueue
import WorkerRuntime
#if canImport(Glibc)
import Glibc
import WorkerCore
#endif

/// `transcode-worker process VERSION_ID [--json] [--database-url URL] [--storage-url URL] [--<setting> VALUE …]`
struct ProcessCommand {
    static let help = """
        USAGE: transcode-worker process VERSION_ID [--json] [--database-url URL] [--storage-url URL]
                                        [--<setting> VALUE …]

        Runs one version now, in the foreground, exactly as a worker would (child process, limits,
        heartbeats, uploads, finalize or transcode-done), and prints each phase as it happens and
        the outcome. Logs (JSON lines) go to standard error.

        The version is made runnable first:
          uploading, queued         run as they are (a retry backoff is skipped)
          failed                    queued again with a fresh set of attempts (like `retry`)
          ready                     re-transcoded as a reprocess: it keeps serving its current
                                    outputs until the new ones are in (a failure keeps it ready)
          transcoding               refused while a live worker holds it; a dead worker's expired
                                    lease is taken over
        A retryable failure puts the version back in the queue with backoff (a running worker
        picks it up); a permanent one fails it.

        OPTIONS:
          --json                    Print phases and the outcome as JSON lines.
        \(WorkerConfig.commonFlagsHelp)
          --lease-seconds S         Lease length; heartbeats renew it (env TRANSCODE_LEASE_SECONDS, 90).
          --heartbeat-seconds S     Lease renewal and cancel check interval (TRANSCODE_HEARTBEAT_SECONDS, 15).
          --max-attempts N          Attempts before the version fails for good (TRANSCODE_MAX_ATTEMPTS, 5).
          --retry-base-seconds S    Backoff base: min(max, base·3^(attempt−1)) (TRANSCODE_RETRY_BASE_SECONDS, 10).
          --retry-max-seconds S     Backoff cap (TRANSCODE_RETRY_MAX_SECONDS, 600).
          --attempt-timeout-seconds S
                                    Wall-clock limit of the child process (TRANSCODE_ATTEMPT_TIMEOUT_SECONDS, 900).
          --child-memory-mb N       Address-space limit of the child, MiB (TRANSCODE_CHILD_MEMORY_MB, 4096).
          --child-cpu-seconds N     CPU-time limit of the child (TRANSCODE_CHILD_CPU_SECONDS, 1800).
          --max-source-bytes N      Largest accepted source file (TRANSCODE_MAX_SOURCE_BYTES, 52428800).
          --done-url URL            POST transcode-done there instead of finalizing in SQL (TRANSCODE_DONE_URL).
          --done-secret SECRET      Bearer token and apikey for --done-url (TRANSCODE_DONE_SECRET;
                                    in Supabase mode the bearer only, apikey is the service key).
          --supabase-url URL        Supabase mode (SUPABASE_URL, with SUPABASE_SERVICE_KEY from the
                                    environment): progress through Realtime's REST broadcast,
                                    transcode-done at URL/functions/v1/transcode-done.
          --worker-id ID            Recorded as the lease holder (TRANSCODE_WORKER_ID, tw-<host>-<pid>).
          --progress-interval-seconds S
                                    Minimum time between progress events (TRANSCODE_PROGRESS_INTERVAL_SECONDS, 2).
          --concurrency N, --poll-seconds S, --rescue-seconds S, --shutdown-grace-seconds S
                                    Accepted for symmetry with `run`; not used here.

        Ctrl-C (SIGINT) or SIGTERM stops the job and gives the version back without burning an
        attempt.

        OUTPUT: what was claimed, one line per phase (downloading, parsing, layering, writing,
        preview, manifest, uploading_outputs, completing), then the outcome. With --json every
        line is an object: {"event":"claimed","attempt",…}, {"event":"phase","phase":…},
        {"event":"failure","reason","message","phase","retryable"},
        {"event":"outcome","outcome":"ready|retried|failed|released|lease_lost",…}.

        EXIT STATUS: 0 ready, 2 usage error or unknown version, 3 failed for an input reason
        (SOURCE_NOT_FOUND, FILE_TOO_LARGE, USDZ_PARSE_ERROR, ROOMPLAN_JSON_INVALID,
        LAYERING_FAILED, PREVIEW_FAILED), 4 anything else (retry scheduled, refused, internal).
        """

    var versionId = ""
    var json = false
    var config = WorkerConfig()

    init(_ args: [String]) throws {
        var it = args.makeIterator()
        while let a = it.next() {
            switch a {
            case "--json": json = true
            case "-h", "--help": throw UsageError.helpRequested
            default:
                if a.hasPrefix("--") {
                    var key = String(a.dropFirst(2))
                    var value: String?
                    if let eq = key.firstIndex(of: "=") {
                        value = String(key[key.index(after: eq)...])
                        key = String(key[..<eq])
                    }
                    guard WorkerConfig.isSetting(key) else { throw UsageError("unknown option \(a)") }
                    if value == nil {
                        guard let v = it.next() else { throw UsageError("--\(key) needs a value") }
                        value = v
                    }
                    try config.set(key, value!)
                } else if a.hasPrefix("-") {
                    throw UsageError("unknown option \(a)")
                } else {
                    guard versionId.isEmpty else { throw UsageError("process takes one VERSION_ID") }
                    versionId = a
                }
            }
        }
        if versionId.isEmpty { throw UsageError("process needs a VERSION_ID") }
        _ = try config.requireDatabaseURL()
        try config.validate()
    }

    func run() -> Int32 {
        let logLevel = ProcessInfo.processInfo.environment["TRANSCODE_LOG_LEVEL"].flatMap(JSONLogger.Level.init(rawValue:)) ?? .info
        let logger = JSONLogger(workerId: config.workerId, minimum: logLevel)
        // Non-dumpable before anything else; the job children's sandbox is probed and logged.
        if let status = ChildSandbox.prepareWorker(config, logger: logger) { return status }
        let storage: any ObjectStore, outputs: any ObjectStore
        do {
            (storage, outputs) = try config.openStores()
        } catch {
            return fail("storage: \(error)", status: ExitStatus.internalError)
        }
        let connection: PGConnection
        do {
            connection = try PGConnection(url: config.databaseURL!, applicationName: "transcode-worker process")
        } catch {
            return fail("database: \(error)", status: ExitStatus.internalError)
        }
        defer { connection.close() }
        let store = QueueStore(connection: connection)

        let claim: QueueStore.ProcessClaim
        do {
            claim = try store.claimForProcessing(versionId: versionId, workerId: config.workerId, leaseSeconds: config.leaseSeconds)
        } catch {
            return fail("database: \(error)", status: ExitStatus.internalError)
        }
        let job: ClaimedJob
        switch claim {
        case .notFound:
            return fail("no version \(versionId)", status: ExitStatus.usage)
        case .leased(let worker, let remaining, let status):
            return fail("version \(versionId) is \(status) and held by worker \(worker) (lease ends in "
                        + "\(Int(remaining.rounded(.up))) s); wait for it, or cancel it first", status: ExitStatus.internalError)
        case .claimed(let claimed, let previous, let tookOver):
            job = claimed
            let note = tookOver ? " (took over an expired lease)" : previous == "failed" ? " (failed version queued again)"
                : previous == "ready" ? " (reprocessing a ready version)" : ""
            say(human: "processing \(job.versionId) of room \(job.roomId), attempt \(job.attempt) of "
                    + "\(min(job.maxAttempts, config.maxAttempts))\(note)",
                json: ["event": .string("claimed"), "version_id": .string(job.versionId), "room_id": .string(job.roomId),
                       "attempt": .int(Int64(job.attempt)), "previous_status": .string(previous),
                       "took_over": .bool(tookOver), "reprocess": .bool(job.isReprocess)])
        }

        let json = self.json
        let runner = JobRunner(config: config, storage: storage, outputStorage: outputs, logger: logger, observer: { event in
            switch event {
            case .phase(let p):
                Self.say(json: json, human: "  \(p)", object: ["event": .string("phase"), "phase": .string(p)])
            case .failure(let f):
                Self.say(json: json, human: "  failed attempt: \(f.reason) (\(f.phase)): \(f.message)",
                         object: ["event": .string("failure"), "reason": .string(f.reason), "message": .string(f.message),
                                  "phase": .string(f.phase), "retryable": .bool(f.isRetryable)])
            case .outputsCollected(let o):
                Self.say(json: json, human: "  superseded outputs deleted: \(o.objects) objects, \(o.bytes) bytes",
                         object: ["event": .string("outputs_collected"), "objects": .int(Int64(o.objects)), "bytes": .int(Int64(o.bytes))])
            }
        })

        // Ctrl-C / SIGTERM: give the version back.
        let control = JobControl()
        let signals = [SIGINT, SIGTERM].map { sig -> (Int32, any DispatchSourceSignal) in
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler { control.requestStop(.shutdown) }
            source.resume()
            return (sig, source)
        }
        let outcome = runner.run(job, control: control)
        for (sig, source) in signals {
            source.cancel()
            signal(sig, SIG_DFL)
        }

        var lastFailure: String?
        if case .failed(let reason) = outcome { lastFailure = reason }
        switch outcome {
        case .ready(let prefix):
            say(human: "ready: outputs under \(prefix)",
                json: ["event": .string("outcome"), "outcome": .string(outcome.name), "output_prefix": .string(prefix)])
            return ExitStatus.ok
        case .retried(let code, let runAfter):
            say(human: "not done: \(code); queued again, runs after \(runAfter)",
                json: ["event": .string("outcome"), "outcome": .string(outcome.name), "reason": .string(code),
                       "retry_at": .string(runAfter)])
            return ExitStatus.internalError
        case .failed(let reason):
            say(human: "failed: \(reason)", json: ["event": .string("outcome"), "outcome": .string(outcome.name),
                                                  "reason": .string(reason)])
            return FailureReason.inputReasons.contains(lastFailure ?? "") ? ExitStatus.invalidInput : ExitStatus.internalError
        case .released:
            say(human: "stopped: the version was given back to the queue",
                json: ["event": .string("outcome"), "outcome": .string(outcome.name)])
            return ExitStatus.internalError
        case .leaseLost:
            say(human: "lease lost: another worker or the rescuer owns the version now; nothing was published",
                json: ["event": .string("outcome"), "outcome": .string(outcome.name)])
            return ExitStatus.internalError
        }
    }

    private func say(human: String, json object: [String: JSONValue]) {
        Self.say(json: json, human: human, object: object.merging(["version_id": .string(versionId)]) { a, _ in a })
    }

    private static func say(json: Bool, human: String, object: [String: JSONValue]) {
        // One unbuffered write per line, so each phase shows as it happens.
        RawOutput.write((json ? JSONValue.object(object).serialized() : human) + "\n", to: 1)
    }

    private func fail(_ message: String, status: Int32) -> Int32 {
        if json {
            Self.say(json: true, human: "", object: ["event": .string("error"), "version_id": .string(versionId),
                                                     "message": .string(message)])
        } else {
            printError("error: \(message)")
        }
        return status
    }
}
