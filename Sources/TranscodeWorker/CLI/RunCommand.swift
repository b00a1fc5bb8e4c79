import Dispatch
import Foundation
import ObjectStorage
import WorkerHTTP
import WorkerRuntime
#if canImport(Glibc)
import Glibc
import WorkerCore
#endif

/// `transcode-worker run`: the queue daemon.
struct RunCommand {
    /// The manifest schema the job child writes, `ManifestBuilder.schemaVersion` (the daemon links
    /// no feature module; `DaemonLinkTests` keeps the two equal): the console's batch default.
    static let manifestSchemaVersion = 10

    static let help = """
        USAGE: transcode-worker run [--exit-when-idle] [--database-url URL] [--storage-url URL]
                                    [--concurrency N] [--<setting> VALUE …]

        Runs the queue worker: claims queued room versions from Postgres (FOR UPDATE SKIP LOCKED,
        never more than free slots), wakes on NOTIFY transcode_queued and polls as a fallback, runs
        each job in a child process (transcode-job, beside this binary) with memory, CPU and
        wall-time limits, renews its lease by heartbeat, uploads the outputs under a per-attempt
        prefix and finalizes the version (through TRANSCODE_DONE_URL, or the Supabase project's
        transcode-done in Supabase mode, otherwise in SQL with a pg_notify event).
        Expired leases of crashed workers are re-queued by a rescuer in every worker. Logs are JSON
        lines on standard error.

        SIGTERM or SIGINT: stop claiming, let running jobs finish for the grace period, then stop
        them and give their versions back without burning an attempt. A second signal stops at once.

        OPTIONS (each also an environment variable; flags win):
          --exit-when-idle                  Exit 0 once nothing is queued or in flight.
          --database-url URL                DATABASE_URL (required; a URL with a password only in the
                                            environment or DATABASE_URL_FILE).
          --storage-url URL                 TRANSCODE_STORAGE_URL (default file://$PWD/transcode-storage):
                                            file:///abs/dir or s3://bucket/prefix?endpoint=…&region=….
          --output-storage-url URL          TRANSCODE_OUTPUT_STORAGE_URL: outputs go here instead of
                                            beside the sources (e.g. a public, CDN-served bucket).
          --output-cache-control VALUE      TRANSCODE_OUTPUT_CACHE_CONTROL (public, max-age=31536000,
                                            immutable; none: no Cache-Control).
          --concurrency N                   TRANSCODE_CONCURRENCY (default: number of cores).
          --batch-slots N                   TRANSCODE_BATCH_SLOTS (concurrency − 1, at least 1): slots
                                            re-transcodes may hold, so fresh uploads find one free.
          --batch-nice N                    TRANSCODE_BATCH_NICE (19): CPU niceness of re-transcode jobs.
          --lease-seconds S                 TRANSCODE_LEASE_SECONDS (90).
          --heartbeat-seconds S             TRANSCODE_HEARTBEAT_SECONDS (15).
          --poll-seconds S                  TRANSCODE_POLL_SECONDS (5).
          --rescue-seconds S                TRANSCODE_RESCUE_SECONDS (30).
          --max-attempts N                  TRANSCODE_MAX_ATTEMPTS (5).
          --retry-base-seconds S            TRANSCODE_RETRY_BASE_SECONDS (10).
          --retry-max-seconds S             TRANSCODE_RETRY_MAX_SECONDS (600).
          --attempt-timeout-seconds S       TRANSCODE_ATTEMPT_TIMEOUT_SECONDS (900).
          --child-memory-mb N               TRANSCODE_CHILD_MEMORY_MB (4096).
          --child-cpu-seconds N             TRANSCODE_CHILD_CPU_SECONDS (1800).
          --glb-compression meshopt|none    TRANSCODE_GLB_COMPRESSION (meshopt): the models' geometry compression.
          --texture-format webp|original    TRANSCODE_TEXTURE_FORMAT (webp): how model textures are embedded.
          --orbit-size WxH                  TRANSCODE_ORBIT_SIZE (1320x990): the orbit frames' size.
          --card-size WxH                   TRANSCODE_CARD_SIZE (1320x990): the card's and the hero's
                                            size; the small card is half of it.
          --plan-units metric|imperial      TRANSCODE_PLAN_UNITS (metric): the plan's labels when the
                                            version's plan_units is NULL.
          --plan-locale en|zh-Hans          TRANSCODE_PLAN_LOCALE (en): the plan's words when the
                                            version's plan_locale is NULL.
          --max-source-bytes N              TRANSCODE_MAX_SOURCE_BYTES (52428800).
          --done-url URL                    TRANSCODE_DONE_URL (unset: finalize in SQL).
          (secret)                          TRANSCODE_DONE_SECRET or TRANSCODE_DONE_SECRET_FILE: the shared
                                            secret of transcode-done (32+ bytes; never a flag).
          --worker-id ID                    TRANSCODE_WORKER_ID (default tw-<host>-<pid>).
          --shutdown-grace-seconds S        TRANSCODE_SHUTDOWN_GRACE_SECONDS (60).
          --progress-interval-seconds S     TRANSCODE_PROGRESS_INTERVAL_SECONDS (2).
          --http-addr HOST:PORT|off         TRANSCODE_HTTP_ADDR (0.0.0.0:8080): /livez, /readyz, /metrics,
                                            the /v1 API and the operator console /console; port 0 picks
                                            a free port; off: no server.
          --http-per-ip-connections N       TRANSCODE_HTTP_PER_IP_CONNECTIONS (16): open connections one
                                            client address may hold.
          --http-request-deadline-seconds S TRANSCODE_HTTP_REQUEST_DEADLINE_SECONDS (30): the most one
                                            request may take, however the client paces it.
          --metrics-interval-seconds S      TRANSCODE_METRICS_INTERVAL_SECONDS (5): how long one queue
                                            sample serves every /metrics scrape.
          (secret)                          TRANSCODE_METRICS_TOKEN or TRANSCODE_METRICS_TOKEN_FILE: when
                                            set, /metrics asks for Authorization: Bearer (32+ bytes).
          (secret)                          TRANSCODE_API_TOKEN or TRANSCODE_API_TOKEN_FILE: bearer token
                                            of /v1 and the console's sign-in (32+ bytes; unset: /v1
                                            answers 503 API_DISABLED and the console is off).
          --supabase-url URL                SUPABASE_URL: Supabase mode (with SUPABASE_SERVICE_KEY or
                                            SUPABASE_SERVICE_KEY_FILE): progress is broadcast through
                                            URL/realtime/v1/api/broadcast and versions are finalized by
                                            URL/functions/v1/transcode-done (unless --done-url is set).
          --private-output-cache-control V  TRANSCODE_PRIVATE_OUTPUT_CACHE_CONTROL (unset: as public rooms):
                                            the Cache-Control of outputs of rooms that are not public.
          --source-retention-days D         TRANSCODE_SOURCE_RETENTION_DAYS (0: kept): delete a ready version's
                                            uploaded sources D days after it became ready.
          --redaction-retention-days D      TRANSCODE_REDACTION_RETENTION_DAYS (0: kept): delete its redaction
                                            rows and privacy crops D days after it became ready.
          --deletion-interval-seconds S     TRANSCODE_DELETION_INTERVAL_SECONDS (5): how often the stored
                                            objects of deleted rooms and versions are deleted; 0: never.
          --deletion-retry-max-seconds S    TRANSCODE_DELETION_RETRY_MAX_SECONDS (300).
          --orphan-sweep dry-run|on|off     TRANSCODE_ORPHAN_SWEEP (dry-run): objects under rooms/ with
                                            no row, logged (dry-run) or deleted (on).
          --orphan-interval-seconds S       TRANSCODE_ORPHAN_INTERVAL_SECONDS (3600).
          --orphan-grace-seconds S          TRANSCODE_ORPHAN_GRACE_SECONDS (86400, at least 600).

        Secrets (DATABASE_URL with a password, TRANSCODE_API_TOKEN, TRANSCODE_DONE_SECRET,
        SUPABASE_SERVICE_KEY, AWS_*) come from the environment or from NAME_FILE (a file holding the
        value, e.g. a Kubernetes secret mount), never from flags.

        EXIT STATUS: 0 after a clean stop, 2 usage error (including an invalid setting or a refused
        secret), 4 database unreachable at start or HTTP address not available.
        """

    var config = WorkerConfig()
    var exitWhenIdle = false

    init(_ args: [String]) throws {
        var it = args.makeIterator()
        while let a = it.next() {
            switch a {
            case "--exit-when-idle": exitWhenIdle = true
            case "-h", "--help": throw UsageError.helpRequested
            default:
                guard a.hasPrefix("--"), WorkerConfig.isSetting(String(a.dropFirst(2))) else {
                    throw UsageError("unknown option \(a)")
                }
                guard let v = it.next() else { throw UsageError("\(a) needs a value") }
                try config.set(String(a.dropFirst(2)), v)
            }
        }
        _ = try config.requireDatabaseURL()
        try config.validate()
    }

    func run() -> Int32 {
        // `validate()` refused an unknown level; unset means info.
        let environment = ProcessEnvironment.current
        let level = JSONLogger.Level(rawValue: environment["TRANSCODE_LOG_LEVEL"] ?? "") ?? .info
        let logger = JSONLogger(workerId: config.workerId, minimum: level)
        // Non-dumpable before anything else; the job children's sandbox is probed and logged.
        if let status = ChildSandbox.prepareWorker(config, logger: logger) { return status }
        let unknown = WorkerConfig.unknownVariables(environment)
        if !unknown.isEmpty {
            logger.warn("unknown TRANSCODE_ variables ignored (misspelt?)", ["names": .array(unknown.map { .string($0) })])
        }
        let storage: any ObjectStore, outputs: any ObjectStore
        do {
            (storage, outputs) = try config.openStores()
        } catch {
            logger.error("cannot open storage", ["error": .string("\(error)")])
            return ExitStatus.usage
        }
        if !outputs.keyPrefix.isEmpty {
            logger.warn("outputs are stored under a key prefix: the rows' paths are relative to it, not to the bucket",
                        ["bucket": .string(outputs.bucket), "key_prefix": .string(outputs.keyPrefix)])
        }
        let daemon = WorkerDaemon(config: config, storage: storage, outputStorage: outputs, logger: logger, exitWhenIdle: exitWhenIdle)
        signal(SIGPIPE, SIG_IGN)
        var server: HTTPServer?
        var api: WorkerAPI?
        if config.httpAddr != "off" {
            let routes = WorkerAPI(databaseURL: config.databaseURL, apiToken: config.apiToken, metrics: daemon.metrics,
                                   logger: logger, outputStore: outputs, manifestSchemaVersion: Self.manifestSchemaVersion,
                                   metricsToken: config.http.metricsToken,
                                   metricsIntervalSeconds: config.http.metricsIntervalSeconds,
                                   isDraining: { daemon.isDraining })
            do {
                server = try HTTPServer(address: config.httpAddr, perIPConnectionLimit: config.httpPerIPConnections,
                                        requestDeadlineSeconds: config.http.requestDeadlineSeconds,
                                        probePaths: WorkerAPI.probePaths, handler: routes.handle)
                api = routes
                logger.info("http server listening", ["address": .string("\(server!.host):\(server!.port)"),
                                                      "api": .bool(config.apiToken != nil)])
            } catch {
                logger.error("cannot start the http server", ["error": .string("\(error)"), "error_code": .string(error.code.rawValue)])
                return ExitStatus.internalError
            }
        }
        let signals = Self.installSignalHandlers(daemon: daemon, logger: logger)
        let status = daemon.run()
        for s in signals { s.cancel() }
        server?.stop()
        api?.close()
        return status
    }

    /// First SIGTERM/SIGINT: drain; second: stop now.
    static func installSignalHandlers(daemon: WorkerDaemon, logger: JSONLogger) -> [any DispatchSourceSignal] {
        let counter = SignalCounter()
        return [SIGTERM, SIGINT].map { sig in
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler {
                if counter.increment() == 1 {
                    logger.info("signal received: draining", ["signal": .int(Int64(sig))])
                    daemon.beginShutdown()
                } else {
                    logger.info("second signal: stopping now", ["signal": .int(Int64(sig))])
                    daemon.stopNow()
                }
            }
            source.resume()
            return source
        }
    }
}

/// Counts signals across handlers.
final class SignalCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var n = 0
    func increment() -> Int {
        lock.lock()
        defer { lock.unlock() }
        n += 1
        return n
    }
}
