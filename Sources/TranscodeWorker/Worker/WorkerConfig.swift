import Foundation

/// The worker's configuration: defaults, overridden by environment variables, overridden by
/// command-line flags. Every setting has one environment name (documented in the README) and one
/// flag (`--kebab-case`). Times are in seconds, sizes in bytes unless the name says otherwise.
public struct WorkerConfig: Sendable {
    /// `DATABASE_URL` / `--database-url`: libpq URL of the Postgres holding `room_versions`. LISTEN
    /// needs a direct or session-mode connection.
    public var databaseURL: String?
    /// `TRANSCODE_STORAGE_URL` / `--storage-url`: `file:///abs/dir` (default `file://$PWD/transcode-storage`).
    public var storageURL: String
    /// `TRANSCODE_CONCURRENCY` / `--concurrency`: jobs run at once (default: the number of cores).
    public var concurrency: Int
    /// `TRANSCODE_LEASE_SECONDS`: how long a claim lives without a heartbeat (90).
    public var leaseSeconds: Double = 90
    /// `TRANSCODE_HEARTBEAT_SECONDS`: lease renewal and cancel check interval (15).
    public var heartbeatSeconds: Double = 15
    /// `TRANSCODE_POLL_SECONDS`: fallback poll when no NOTIFY arrives (5).
    public var pollSeconds: Double = 5
    /// `TRANSCODE_RESCUE_SECONDS`: how often expired leases are swept (30).
    public var rescueSeconds: Double = 30
    /// `TRANSCODE_MAX_ATTEMPTS`: attempts before a version fails for good; also capped by the row's
    /// `max_attempts` (5).
    public var maxAttempts: Int = 5
    /// `TRANSCODE_RETRY_BASE_SECONDS` / `TRANSCODE_RETRY_MAX_SECONDS`: backoff
    /// `min(max, base·3^(attempt−1))` × U(0.9, 1.1) (10 / 600).
    public var retryBaseSeconds: Double = 10
    public var retryMaxSeconds: Double = 600
    /// `TRANSCODE_ATTEMPT_TIMEOUT_SECONDS`: wall-clock limit of one attempt's child process (900).
    public var attemptTimeoutSeconds: Double = 900
    /// `TRANSCODE_CHILD_MEMORY_MB`: address-space limit of a job's child process (4096).
    public var childMemoryMB: Int = 4096
    /// `TRANSCODE_CHILD_CPU_SECONDS`: CPU-time limit of a job's child process (1800).
    public var childCPUSeconds: Int = 1800
    /// `TRANSCODE_MAX_SOURCE_BYTES`: largest accepted source file (50 MiB, the app's FILE_TOO_LARGE).
    public var maxSourceBytes: Int = 50 * 1024 * 1024
    /// `TRANSCODE_DONE_URL` / `TRANSCODE_DONE_SECRET`: the backend's `transcode-done` endpoint and
    /// its shared secret. Without a URL the worker finalizes in SQL and sends events with pg_notify.
    public var doneURL: String?
    public var doneSecret: String?
    /// `TRANSCODE_WORKER_ID`: recorded in `locked_by` (default `tw-<hostname>-<pid>`).
    public var workerId: String
    /// `TRANSCODE_SHUTDOWN_GRACE_SECONDS`: after SIGTERM, how long running jobs may finish before
    /// they are stopped and given back (60).
    public var shutdownGraceSeconds: Double = 60
    /// `TRANSCODE_PROGRESS_INTERVAL_SECONDS`: minimum time between progress events of one job (2).
    public var progressIntervalSeconds: Double = 2
    /// `TRANSCODE_HTTP_ADDR` / `--http-addr`: `HOST:PORT` of the probe, metrics and API server
    /// (default `0.0.0.0:8080`; port 0 picks a free port; `off` runs no server).
    public var httpAddr: String = "0.0.0.0:8080"
    /// `TRANSCODE_API_TOKEN` / `--api-token`: the bearer token of the `/v1` API (unset: `/v1`
    /// answers 503 `API_DISABLED`).
    public var apiToken: String?
    /// `SUPABASE_URL` / `--supabase-url` and `SUPABASE_SERVICE_KEY` (environment only): Supabase
    /// mode. Progress goes to Realtime's REST broadcast endpoint instead of pg_notify, and versions
    /// are finalized through the `transcode-done` Edge Function of that project unless
    /// `TRANSCODE_DONE_URL` names another endpoint.
    public var supabaseURL: String?
    public var supabaseServiceKey: String?

    public init(environment env: [String: String] = ProcessInfo.processInfo.environment) {
        databaseURL = env["DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }
        storageURL = env["TRANSCODE_STORAGE_URL"].flatMap { $0.isEmpty ? nil : $0 }
            ?? "file://" + FileManager.default.currentDirectoryPath + "/transcode-storage"
        concurrency = max(1, ProcessInfo.processInfo.activeProcessorCount)
        var host = [CChar](repeating: 0, count: 256)
        gethostname(&host, 255)
        workerId = "tw-\(String(cString: host))-\(getpid())"
        for (name, key) in Self.variables {
            if let v = env[name], !v.isEmpty { try? set(key, v) }
        }
    }

    /// Environment variable → setting key (the flag is `--<key>`).
    public static let variables: [(String, String)] = [
        ("TRANSCODE_CONCURRENCY", "concurrency"),
        ("TRANSCODE_LEASE_SECONDS", "lease-seconds"),
        ("TRANSCODE_HEARTBEAT_SECONDS", "heartbeat-seconds"),
        ("TRANSCODE_POLL_SECONDS", "poll-seconds"),
        ("TRANSCODE_RESCUE_SECONDS", "rescue-seconds"),
        ("TRANSCODE_MAX_ATTEMPTS", "max-attempts"),
        ("TRANSCODE_RETRY_BASE_SECONDS", "retry-base-seconds"),
        ("TRANSCODE_RETRY_MAX_SECONDS", "retry-max-seconds"),
        ("TRANSCODE_ATTEMPT_TIMEOUT_SECONDS", "attempt-timeout-seconds"),
        ("TRANSCODE_CHILD_MEMORY_MB", "child-memory-mb"),
        ("TRANSCODE_CHILD_CPU_SECONDS", "child-cpu-seconds"),
        ("TRANSCODE_MAX_SOURCE_BYTES", "max-source-bytes"),
        ("TRANSCODE_DONE_URL", "done-url"),
        ("TRANSCODE_DONE_SECRET", "done-secret"),
        ("TRANSCODE_WORKER_ID", "worker-id"),
        ("TRANSCODE_SHUTDOWN_GRACE_SECONDS", "shutdown-grace-seconds"),
        ("TRANSCODE_PROGRESS_INTERVAL_SECONDS", "progress-interval-seconds"),
        ("TRANSCODE_HTTP_ADDR", "http-addr"),
        ("TRANSCODE_API_TOKEN", "api-token"),
        ("SUPABASE_URL", "supabase-url"),
        ("SUPABASE_SERVICE_KEY", "supabase-service-key"),
    ]

    /// Flags every database command accepts, with their value's meaning (for `--help` texts).
    public static let commonFlagsHelp = """
          --database-url URL        Postgres URL (env DATABASE_URL).
          --storage-url URL         file:///abs/dir (env TRANSCODE_STORAGE_URL).
        """

    /// The longest accepted duration setting: 30 days.
    static let maxSeconds: Double = 30 * 24 * 3600

    /// Sets one setting by its key (`concurrency`, `lease-seconds`, `database-url`, …).
    /// Throws `UsageError` for an unknown key or a malformed value.
    mutating func set(_ key: String, _ value: String) throws {
        // Upper bounds keep every derived nanosecond count and timeout far from overflow.
        func double() throws -> Double {
            guard let d = Double(value), d.isFinite, d >= 0, d <= Self.maxSeconds else {
                throw UsageError("--\(key) needs a number from 0 to \(Int(Self.maxSeconds))")
            }
            return d
        }
        func int(min: Int = 1, max: Int = 1 << 40) throws -> Int {
            guard let i = Int(value), i >= min, i <= max else { throw UsageError("--\(key) needs an integer from \(min) to \(max)") }
            return i
        }
        switch key {
        case "database-url": databaseURL = value
        case "storage-url": storageURL = value
        case "concurrency": concurrency = try int(max: 1024)
        case "lease-seconds": leaseSeconds = max(1, try double())
        case "heartbeat-seconds": heartbeatSeconds = max(0.1, try double())
        case "poll-seconds": pollSeconds = max(0.05, try double())
        case "rescue-seconds": rescueSeconds = max(0.1, try double())
        case "max-attempts": maxAttempts = try int(max: 32767)
        case "retry-base-seconds": retryBaseSeconds = try double()
        case "retry-max-seconds": retryMaxSeconds = try double()
        case "attempt-timeout-seconds": attemptTimeoutSeconds = max(1, try double())
        case "child-memory-mb": childMemoryMB = try int(min: 64, max: 1 << 30)
        case "child-cpu-seconds": childCPUSeconds = try int(max: Int(Self.maxSeconds))
        case "max-source-bytes": maxSourceBytes = try int()
        case "done-url": doneURL = value.isEmpty ? nil : value
        case "done-secret": doneSecret = value.isEmpty ? nil : value
        case "worker-id": workerId = value
        case "shutdown-grace-seconds": shutdownGraceSeconds = try double()
        case "progress-interval-seconds": progressIntervalSeconds = try double()
        case "http-addr":
            guard value == "off" || HTTPServer.parse(address: value) != nil else {
                throw UsageError("--http-addr needs HOST:PORT with an IPv4 host, or off")
            }
            httpAddr = value
        case "api-token": apiToken = value.isEmpty ? nil : value
        case "supabase-url": supabaseURL = value.isEmpty ? nil : value
        case "supabase-service-key": supabaseServiceKey = value.isEmpty ? nil : value
        default: throw UsageError("unknown option --\(key)")
        }
    }

    /// True when `--key` names a setting (so commands can accept every setting as a flag).
    static func isSetting(_ key: String) -> Bool {
        // The service key is read from the environment only: a flag would show it in `ps`.
        key == "database-url" || key == "storage-url"
            || (key != "supabase-service-key" && variables.contains { $0.1 == key })
    }

    /// The Supabase project in Supabase mode (nil otherwise). Throws `UsageError` when only one of
    /// `SUPABASE_URL` and `SUPABASE_SERVICE_KEY` is set or the URL is not an http(s) URL.
    func supabaseEndpoints() throws -> SupabaseEndpoints? {
        switch (supabaseURL, supabaseServiceKey) {
        case (nil, nil): return nil
        case (nil, _): throw UsageError("SUPABASE_SERVICE_KEY is set but SUPABASE_URL is not")
        case (_, nil): throw UsageError("SUPABASE_URL is set but SUPABASE_SERVICE_KEY is not")
        case (let url?, let key?):
            guard let endpoints = SupabaseEndpoints(url: url, serviceKey: key) else {
                throw UsageError("SUPABASE_URL needs an absolute http(s) URL such as https://<ref>.supabase.co")
            }
            return endpoints
        }
    }

    /// Where versions are finalized: `TRANSCODE_DONE_URL`, else the Supabase project's
    /// `transcode-done`, else nil (in SQL).
    var completionURL: String? {
        doneURL ?? (try? supabaseEndpoints())??.transcodeDoneURL
    }

    /// The authentication headers of `transcode-done` calls. In Supabase mode: `apikey` with the
    /// service key and `Authorization: Bearer` with `TRANSCODE_DONE_SECRET` (or the service key
    /// when it is a legacy JWT). Otherwise both carry `TRANSCODE_DONE_SECRET` when set.
    var completionHeaders: [(String, String)] {
        if let endpoints = try? supabaseEndpoints() {
            return endpoints.authHeaders(bearer: doneSecret)
        }
        guard let doneSecret else { return [] }
        return [("Authorization", "Bearer \(doneSecret)"), ("apikey", doneSecret)]
    }

    /// The database URL or a usage error naming both ways to give it.
    func requireDatabaseURL() throws -> String {
        guard let u = databaseURL else { throw UsageError("no database: set DATABASE_URL or pass --database-url") }
        return u
    }
}
