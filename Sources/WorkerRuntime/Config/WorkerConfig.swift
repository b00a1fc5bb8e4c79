import Foundation
import WorkerHTTP
import WorkerCore

/// The worker's configuration: defaults, overridden by environment variables, overridden by
/// command-line flags. Every setting has one environment name (documented in
/// docs/configuration.md) and one flag (`--kebab-case`). Times are in seconds, sizes in bytes
/// unless the name says otherwise.
public struct WorkerConfig: Sendable {
    /// `DATABASE_URL` / `--database-url`: libpq URL of the Postgres holding `room_versions`. LISTEN
    /// needs a direct or session-mode connection.
    public var databaseURL: String?
    /// `TRANSCODE_STORAGE_URL` / `--storage-url`: `file:///abs/dir` (default `file://$PWD/transcode-storage`).
    public var storageURL: String
    /// `TRANSCODE_OUTPUT_STORAGE_URL` / `--output-storage-url`: where outputs are written, when
    /// not beside the sources (for example a public, CDN-served bucket beside a private upload
    /// bucket). Same forms as `storageURL`; nil: `storageURL`.
    public var outputStorageURL: String?
    /// `TRANSCODE_OUTPUT_CACHE_CONTROL` / `--output-cache-control`: the `Cache-Control` outputs are
    /// stored with, for the CDN in front of the output bucket. Every attempt writes under paths
    /// of its own and never rewrites an object, so the default is
    /// `public, max-age=31536000, immutable`; `none` stores none.
    public var outputCacheControl: String? = WorkerConfig.defaultOutputCacheControl
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
    /// `TRANSCODE_CHILD_FILE_MB`: largest file a job's child process may write, MiB (RLIMIT_FSIZE; 1024).
    public var childFileMB: Int = 1024
    /// `TRANSCODE_JOB_DISK_MB`: the most a job's child may hold in its work directory (`out/` and
    /// `tmp/`) while it runs, MiB (4096); past it the child is killed and the version fails.
    public var jobDiskMB: Int = 4096
    /// `TRANSCODE_CHILD_SANDBOX`: `auto` (namespaces when the kernel allows), `require`, `off` (require).
    public var childSandbox: ChildSandbox.Mode = .require
    /// `TRANSCODE_CHILD_UID` / `TRANSCODE_CHILD_GID`: as root, the ids a job's child runs as (unset: the worker's).
    public var childUID: Int?
    public var childGID: Int?
    /// The conversion's options as the job child gets them (`JobOptions`):
    /// `TRANSCODE_GLB_COMPRESSION` `meshopt` (default) or `none`, the geometry compression of the
    /// models this worker writes (`none` for a deployment whose clients have no meshopt decoder);
    /// `TRANSCODE_TEXTURE_FORMAT` `webp` (default) or `original`, how model textures are embedded;
    /// `TRANSCODE_ORBIT_SIZE` the eight orbit frames' size in pixels, `WxH` or `N`, 16…4096 a side
    /// (default `1320x990`, the widest LiDAR iPhone's screen at 1:1; smaller frames take less CPU
    /// per job, docs/benchmarks.md); `TRANSCODE_CARD_SIZE` the feed card's (and the hero's) size,
    /// likewise (default `1320x990`), the small card half of it; `TRANSCODE_PLAN_UNITS` `metric`
    /// (default) or `imperial` and `TRANSCODE_PLAN_LOCALE` `en` (default) or `zh-Hans`, the floor
    /// plan's labels for a version whose `plan_units` / `plan_locale` is NULL;
    /// `TRANSCODE_JOB_REPORT` `on` (default) or `off`, whether each job also stores the conversion
    /// report (`report.html`, the page `convert --report` writes) beside its outputs, for the
    /// operator console.
    public var job: JobOptions = {
        var o = JobOptions()
        o.report = true
        return o
    }()
    /// `TRANSCODE_INCREMENTAL_REPROCESS`: `on` (default) or `off`. On: a reprocess hands the
    /// previous revision's outputs to the job, which reuses every output group whose key is
    /// unchanged; the worker copies those files in storage instead of uploading them.
    public var incrementalReprocess: Bool = true
    /// `TRANSCODE_BATCH_SLOTS`: how many of the `concurrency` slots re-transcodes may hold at once
    /// (default: all but one, at least one), so that a fresh upload always finds a free slot while
    /// a batch runs. Nil: the default.
    public var batchSlots: Int?
    /// `TRANSCODE_BATCH_NICE`: the CPU niceness (0–19, default 19) of a re-transcode's job child,
    /// so that fresh uploads running beside a batch get the cores first.
    public var batchNice: Int = 19
    /// The batch slots in force.
    public var effectiveBatchSlots: Int { min(concurrency, batchSlots ?? max(1, concurrency - 1)) }
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
    /// `TRANSCODE_HTTP_PER_IP_CONNECTIONS` / `--http-per-ip-connections`: open connections one
    /// client address may hold on the HTTP server (16).
    public var httpPerIPConnections: Int = 16
    /// `TRANSCODE_SOURCE_PREFIX` / `--source-prefix`: where a version's source, JSON and
    /// redacted-texture keys must lie, with `{room_id}` and `{version_id}` replaced
    /// (`rooms/{room_id}/versions/{version_id}/`). A key elsewhere fails the version at once
    /// (`SOURCE_KEY_REFUSED`); redactions are listed only under `<prefix>redacted/`.
    public var sourcePrefixTemplate: String = StorageConfinement.defaultTemplate
    /// `TRANSCODE_MAX_REDACTIONS` / `TRANSCODE_MAX_REDACTION_BYTES`: how many replacement
    /// textures one version may have (64), and their total size in bytes (128 MiB).
    public var maxRedactions: Int = 64
    public var maxRedactionBytes: Int = 128 * 1024 * 1024
    /// `TRANSCODE_GC_INTERVAL_SECONDS`: how often `run` sweeps superseded and abandoned outputs
    /// from storage (3600; 0: never). `TRANSCODE_GC_GRACE_SECONDS`: how old an unreferenced
    /// attempt's outputs must be before the sweep deletes them (3600). `TRANSCODE_GC_LOOKBACK_SECONDS`:
    /// the sweep looks at versions changed within this time (172800, two days).
    public var gcIntervalSeconds: Double = 3600
    public var gcGraceSeconds: Double = 3600
    public var gcLookbackSeconds: Double = 172_800
    /// `TRANSCODE_UPLOAD_STALE_SECONDS` / `--upload-stale-seconds`: a version still `uploading`
    /// whose row has not changed (`updated_at`) for this long and whose source objects are in
    /// storage is queued by `run`'s upload sweep (600; 0: never).
    /// `TRANSCODE_UPLOAD_EXPIRE_SECONDS` / `--upload-expire-seconds`: one unchanged for this long
    /// whose sources are missing or refused fails with `UPLOAD_EXPIRED` (86400; 0: never). The
    /// expiry may not be shorter than the stale time when both are set.
    public var uploadStaleSeconds: Double = 600
    public var uploadExpireSeconds: Double = 86_400
    /// The deletion sweep, the orphan sweep and private rooms' `Cache-Control` (`DeletionSettings`).
    public var deletion = DeletionSettings()
    /// The HTTP server's request deadline and `/metrics` (`HTTPSettings`).
    public var http = HTTPSettings()
    /// What was wrong in the environment (unparsable values, unreadable secret files), one
    /// message per variable; `validate()` refuses to start with them.
    var environmentProblems: [String] = []

    public init(environment rawEnv: [String: String] = ProcessEnvironment.current) {
        let env: [String: String]
        do {
            env = try SecretEnvironment.resolve(rawEnv)
        } catch {
            environmentProblems.append("\(error)")
            env = rawEnv
        }
        databaseURL = env["DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }
        storageURL = env["TRANSCODE_STORAGE_URL"].flatMap { $0.isEmpty ? nil : $0 }
            ?? "file://" + FileManager.default.currentDirectoryPath + "/transcode-storage"
        concurrency = max(1, ProcessInfo.processInfo.activeProcessorCount)
        var host = [CChar](repeating: 0, count: 256)
        gethostname(&host, 255)
        workerId = "tw-\(String(cString: host))-\(getpid())"
        for (name, key) in Self.variables {
            guard let v = env[name], !v.isEmpty else { continue }
            do { try assign(key, v, name: name) } catch { environmentProblems.append("\(error)") }
        }
        environmentProblems += Self.otherVariableProblems(env)
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
        ("TRANSCODE_CHILD_FILE_MB", "child-file-mb"),
        ("TRANSCODE_JOB_DISK_MB", "job-disk-mb"),
        ("TRANSCODE_CHILD_SANDBOX", "child-sandbox"),
        ("TRANSCODE_CHILD_UID", "child-uid"),
        ("TRANSCODE_CHILD_GID", "child-gid"),
        ("TRANSCODE_GLB_COMPRESSION", "glb-compression"),
        ("TRANSCODE_TEXTURE_FORMAT", "texture-format"),
        ("TRANSCODE_ORBIT_SIZE", "orbit-size"), ("TRANSCODE_CARD_SIZE", "card-size"),
        ("TRANSCODE_JOB_REPORT", "job-report"),
        ("TRANSCODE_INCREMENTAL_REPROCESS", "incremental-reprocess"),
        ("TRANSCODE_BATCH_SLOTS", "batch-slots"),
        ("TRANSCODE_BATCH_NICE", "batch-nice"),
        ("TRANSCODE_PLAN_UNITS", "plan-units"),
        ("TRANSCODE_PLAN_LOCALE", "plan-locale"),
        ("TRANSCODE_MAX_SOURCE_BYTES", "max-source-bytes"),
        ("TRANSCODE_DONE_URL", "done-url"),
        ("TRANSCODE_DONE_SECRET", "done-secret"),
        ("TRANSCODE_WORKER_ID", "worker-id"),
        ("TRANSCODE_SHUTDOWN_GRACE_SECONDS", "shutdown-grace-seconds"),
        ("TRANSCODE_PROGRESS_INTERVAL_SECONDS", "progress-interval-seconds"),
        ("TRANSCODE_HTTP_ADDR", "http-addr"),
        ("TRANSCODE_HTTP_PER_IP_CONNECTIONS", "http-per-ip-connections"),
        ("TRANSCODE_API_TOKEN", "api-token"),
        ("TRANSCODE_SOURCE_PREFIX", "source-prefix"),
        ("TRANSCODE_MAX_REDACTIONS", "max-redactions"),
        ("TRANSCODE_MAX_REDACTION_BYTES", "max-redaction-bytes"),
        ("TRANSCODE_GC_INTERVAL_SECONDS", "gc-interval-seconds"),
        ("TRANSCODE_GC_GRACE_SECONDS", "gc-grace-seconds"),
        ("TRANSCODE_GC_LOOKBACK_SECONDS", "gc-lookback-seconds"),
        ("TRANSCODE_UPLOAD_STALE_SECONDS", "upload-stale-seconds"),
        ("TRANSCODE_UPLOAD_EXPIRE_SECONDS", "upload-expire-seconds"),
        ("TRANSCODE_OUTPUT_STORAGE_URL", "output-storage-url"),
        ("TRANSCODE_OUTPUT_CACHE_CONTROL", "output-cache-control"),
        ("SUPABASE_URL", "supabase-url"),
        ("SUPABASE_SERVICE_KEY", "supabase-service-key"),
    ] + DeletionSettings.variables + HTTPSettings.variables

    /// Flags every database command accepts, with their value's meaning (for `--help` texts).
    public static let commonFlagsHelp = """
          --database-url URL        Postgres URL (env DATABASE_URL).
          --storage-url URL         file:///abs/dir or s3://bucket/prefix (env TRANSCODE_STORAGE_URL).
          --output-storage-url URL  where outputs go when not beside the sources
                                    (env TRANSCODE_OUTPUT_STORAGE_URL).
        """

    /// Outputs never change once written (each attempt has its own paths).
    public static let defaultOutputCacheControl = "public, max-age=31536000, immutable"

    /// The longest accepted duration setting: 30 days.
    static let maxSeconds: Double = 30 * 24 * 3600

    /// Sets one setting from the command-line flag `--key` (`concurrency`, `lease-seconds`,
    /// `database-url`, …). Throws `UsageError` for an unknown key, a malformed value, a secret
    /// (secrets come from the environment only: `refuseSecretFlag`) and a database URL with a
    /// password.
    public mutating func set(_ key: String, _ value: String) throws {
        try Self.refuseSecretFlag(key, value)
        try assign(key, value, name: "--\(key)")
    }

    /// Sets one setting by its key; `name` (the flag or the variable) is what errors name.
    /// Throws `UsageError` for an unknown key or a malformed value (never a silent default).
    public mutating func assign(_ key: String, _ value: String, name: String) throws {
        // Upper bounds keep every derived nanosecond count and timeout far from overflow.
        func double(min: Double = 0) throws -> Double {
            guard let d = Double(value), d.isFinite, d >= min, d <= Self.maxSeconds else {
                throw UsageError("\(name) needs a number from \(min == 0 ? "0" : "\(min)") to \(Int(Self.maxSeconds)), got '\(Self.shown(value))'")
            }
            return d
        }
        func int(min: Int = 1, max: Int = 1 << 40) throws -> Int {
            guard let i = Int(value), i >= min, i <= max else {
                throw UsageError("\(name) needs an integer from \(min) to \(max), got '\(Self.shown(value))'")
            }
            return i
        }
        switch key {
        case "database-url": databaseURL = value
        case "storage-url": storageURL = value
        case "output-storage-url": outputStorageURL = value.isEmpty ? nil : value
        case "output-cache-control":
            guard value.count <= 200, value.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value < 0x7f }) else {
                throw UsageError("\(name) needs at most 200 printable ASCII characters, or none")
            }
            outputCacheControl = value.isEmpty || value == "none" ? nil : value
        case "concurrency": concurrency = try int(max: 1024)
        case "batch-slots": batchSlots = try int(max: 1024)
        case "batch-nice": batchNice = try int(min: 0, max: 19)
        case "lease-seconds": leaseSeconds = try double(min: 1)
        case "heartbeat-seconds": heartbeatSeconds = try double(min: 0.1)
        case "poll-seconds": pollSeconds = try double(min: 0.05)
        case "rescue-seconds": rescueSeconds = try double(min: 0.1)
        case "max-attempts": maxAttempts = try int(max: 32767)
        case "retry-base-seconds": retryBaseSeconds = try double()
        case "retry-max-seconds": retryMaxSeconds = try double()
        case "attempt-timeout-seconds": attemptTimeoutSeconds = try double(min: 1)
        case "child-memory-mb": childMemoryMB = try int(min: 64, max: 1 << 30)
        case "child-cpu-seconds": childCPUSeconds = try int(max: Int(Self.maxSeconds))
        case "child-file-mb": childFileMB = try int(max: 1 << 30)
        case "job-disk-mb": jobDiskMB = try int(min: 1, max: 1 << 30)
        case "child-sandbox":
            guard let mode = ChildSandbox.Mode(rawValue: value) else { throw UsageError("\(name) needs auto, require or off") }
            childSandbox = mode
        case "child-uid": childUID = try int(min: 1, max: Int(Int32.max))
        case "child-gid": childGID = try int(min: 1, max: Int(Int32.max))
        case "max-source-bytes": maxSourceBytes = try int()
        case "source-prefix":
            guard let problem = StorageConfinement.problem(template: value) else { sourcePrefixTemplate = value; break }
            throw UsageError("\(name): \(problem)")
        case "max-redactions": maxRedactions = try int(min: 0, max: 100_000)
        case "max-redaction-bytes": maxRedactionBytes = try int(min: 0)
        case "gc-interval-seconds": gcIntervalSeconds = try double()
        case "gc-grace-seconds": gcGraceSeconds = try double(min: 60)
        case "gc-lookback-seconds": gcLookbackSeconds = try double(min: 60)
        case "upload-stale-seconds": uploadStaleSeconds = try double()
        case "upload-expire-seconds": uploadExpireSeconds = try double()
        case "done-url":
            guard value.isEmpty || SupabaseEndpoints.origin(of: value) != nil else {
                throw UsageError("\(name) needs an absolute http(s) URL, got '\(Self.shown(value))'")
            }
            doneURL = value.isEmpty ? nil : value
        case "done-secret": doneSecret = value.isEmpty ? nil : value
        case "worker-id":
            guard !value.isEmpty, value.count <= 200, !value.contains(where: { $0.isNewline || $0.asciiValue.map { $0 < 0x20 } == true }) else {
                throw UsageError("\(name) needs 1 to 200 printable characters")
            }
            workerId = value
        case "shutdown-grace-seconds": shutdownGraceSeconds = try double()
        case "progress-interval-seconds": progressIntervalSeconds = try double()
        case "http-addr":
            guard value == "off" || HTTPServer.parse(address: value) != nil else {
                throw UsageError("\(name) needs HOST:PORT with an IPv4 host, or off, got '\(Self.shown(value))'")
            }
            httpAddr = value
        case "http-per-ip-connections": httpPerIPConnections = try int(max: HTTPServer.connectionLimit)
        case "api-token": apiToken = value.isEmpty ? nil : value
        case "supabase-url":
            guard value.isEmpty || SupabaseEndpoints.origin(of: value) != nil else {
                throw UsageError("\(name) needs an absolute http(s) URL such as https://<ref>.supabase.co")
            }
            supabaseURL = value.isEmpty ? nil : value
        case "supabase-service-key": supabaseServiceKey = value.isEmpty ? nil : value
        default:
            guard try assignOutputSetting(key, value, name: name) || deletion.assign(key, value, name: name)
                || http.assign(key, value, name: name)
            else {
                throw UsageError("unknown option --\(key)")
            }
        }
    }

    /// Sets one setting of the outputs (model compression, textures, preview sizes, the job
    /// report, incremental reprocessing, the plan's units and locale); false when `key` is none
    /// of them.
    private mutating func assignOutputSetting(_ key: String, _ value: String, name: String) throws -> Bool {
        if let option = JobOptions.Key(rawValue: key) {
            try job.set(option, to: value, givenAs: name)
            return true
        }
        guard key == "job-report" || key == "incremental-reprocess" else { return false }
        guard value == "on" || value == "off" else { throw JobOptions.problem(name, needs: "on or off", got: value) }
        if key == "job-report" { job.report = value == "on" } else { incrementalReprocess = value == "on" }
        return true
    }

    /// True when `--key` names a setting (so commands can accept every setting as a flag).
    /// Secret settings are recognised too, so that `set` can refuse them with a message saying
    /// where to put them.
    public static func isSetting(_ key: String) -> Bool {
        key == "database-url" || key == "storage-url" || variables.contains { $0.1 == key }
    }

    /// The database URL or a usage error naming both ways to give it.
    public func requireDatabaseURL() throws -> String {
        guard let u = databaseURL else { throw UsageError("no database: set DATABASE_URL or pass --database-url") }
        return u
    }
}
