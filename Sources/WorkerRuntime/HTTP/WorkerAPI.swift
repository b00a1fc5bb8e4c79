import Foundation
import JSONCore
import ObjectStorage
import PGQueue
import WorkerHTTP
import WorkerCore

/// The worker's HTTP routes: probes (`/livez`, `/readyz`), `/metrics`, the bearer-protected
/// `/v1` queue API (see docs/integration.md, "HTTP API") and the operator console `/console`
/// (docs/console.md). Database work runs on a connection of its own,
/// opened on first use, reopened after a failure, and used by one request at a time. The
/// readiness check and the metrics' queue sample each have a connection of their own too.
public final class WorkerAPI: @unchecked Sendable {
    /// How often scrapes may refresh the queue gauges from the database, seconds
    /// (`TRANSCODE_METRICS_INTERVAL_SECONDS` default).
    public static let queueSampleSeconds = 5.0
    /// The paths answered while every ordinary HTTP connection is held (`HTTPServer.probePaths`).
    public static let probePaths: Set<String> = ["/livez", "/readyz"]

    let databaseURL: String?
    let apiToken: String?
    public let metrics: Metrics
    let isDraining: @Sendable () -> Bool
    let logger: JSONLogger
    /// The store the console reads outputs from (nil: the console shows paths only).
    let outputStore: (any ObjectStore)?
    /// The manifest schema this worker writes: the console's default batch target.
    let manifestSchemaVersion: Int?
    /// Signs the console's session cookies (nil when there is no API token: console off).
    let consoleSession: ConsoleSession?
    /// The cached database check of `/readyz`.
    let readinessProbe: ReadinessProbe
    private let readinessCheck: DatabaseReadinessCheck?
    /// The bearer token `/metrics` asks for (nil: none).
    let metricsToken: String?
    /// The queue gauges of `/metrics`, sampled at most once per interval for all scrapes.
    let queueGauges: SharedRefresh<Bool>
    private let metricsConnection: DedicatedConnection?

    private let dbLock = NSLock()
    private var connection: PGConnection?

    /// - Parameters:
    ///   - databaseURL: the queue's database (nil: `/readyz` answers `db_unavailable`).
    ///   - apiToken: the bearer token of `/v1` (nil or empty: `/v1` answers 503 `API_DISABLED`).
    ///   - isDraining: true once the worker stopped claiming (shutdown); asked by `/readyz` only.
    ///   - readinessCheck: the database check of `/readyz` (default: `SELECT 1` on a connection
    ///     of its own); run at most about once per second however many probes arrive.
    ///   - readinessClock: the monotonic clock, seconds, that ages the cached answer (tests pass
    ///     their own).
    ///   - outputStore: where the console reads a version's outputs (thumbnails, model, manifest).
    ///   - manifestSchemaVersion: the schema this worker writes (the console's batch default).
    ///   - metricsToken: the bearer token `/metrics` asks for (nil or empty: none).
    ///   - metricsIntervalSeconds: how long one sample of the queue gauges serves every scrape.
    ///   - queueSample: takes the queue sample (default: `QueueStore.status()` on a connection of
    ///     its own with a statement timeout of `metricsStatementTimeoutSeconds`); nil on failure.
    public init(databaseURL: String?, apiToken: String?, metrics: Metrics, logger: JSONLogger,
                readinessCheck: (@Sendable () -> Bool)? = nil,
                readinessClock: @escaping @Sendable () -> Double = Clock.seconds,
                outputStore: (any ObjectStore)? = nil,
                manifestSchemaVersion: Int? = nil, metricsToken: String? = nil,
                metricsIntervalSeconds: Double = WorkerAPI.queueSampleSeconds,
                queueSample: (@Sendable () -> QueueStatus?)? = nil,
                isDraining: @escaping @Sendable () -> Bool) {
        let sample: @Sendable () -> QueueStatus?
        if let queueSample {
            metricsConnection = nil
            sample = queueSample
        } else {
            let connection = DedicatedConnection(databaseURL: databaseURL, applicationName: "transcode-worker-metrics",
                                                 statementTimeoutSeconds: Self.metricsStatementTimeoutSeconds)
            metricsConnection = connection
            sample = { Self.sampleQueue(connection, logger: logger) }
        }
        queueGauges = SharedRefresh(intervalSeconds: metricsIntervalSeconds, waitSeconds: Self.metricsWaitSeconds) {
            guard let status = sample() else { return false }
            metrics.recordQueue(status, now: Clock.seconds())
            return true
        }
        self.metricsToken = metricsToken.flatMap { $0.isEmpty ? nil : $0 }
        if let readinessCheck {
            self.readinessCheck = nil
            readinessProbe = ReadinessProbe(now: readinessClock, check: readinessCheck)
        } else {
            let check = DatabaseReadinessCheck(databaseURL: databaseURL)
            self.readinessCheck = check
            readinessProbe = ReadinessProbe(now: readinessClock) { check() }
        }
        self.databaseURL = databaseURL
        self.apiToken = apiToken.flatMap { $0.isEmpty ? nil : $0 }
        consoleSession = self.apiToken.map { ConsoleSession(apiToken: $0) }
        self.outputStore = outputStore
        self.manifestSchemaVersion = manifestSchemaVersion
        self.metrics = metrics
        self.logger = logger
        self.isDraining = isDraining
    }

    /// Closes the database connection.
    public func close() {
        readinessCheck?.close()
        metricsConnection?.close()
        dbLock.lock()
        connection?.close()
        connection = nil
        dbLock.unlock()
    }

    // MARK: - Routing

    /// Answers one request (called on the server's threads).
    public func handle(_ request: HTTPServerRequest) -> HTTPServerResponse {
        let path = request.path
        if path.hasPrefix("/v1/") { return v1(request) }
        if path == "/console" || path.hasPrefix("/console/") { return console(request) }
        switch path {
        case "/livez":
            // The process answers: no database, no lock shared with the job threads.
            guard request.method == "GET" else { return Self.methodNotAllowed("GET") }
            return .json(200, .object(["status": .string("ok")]))
        case "/readyz":
            guard request.method == "GET" else { return Self.methodNotAllowed("GET") }
            return readiness()
        case "/metrics":
            guard request.method == "GET" else { return Self.methodNotAllowed("GET") }
            return metricsPage(request)
        default:
            return Self.error(404, "NOT_FOUND")
        }
    }

    private func readiness() -> HTTPServerResponse {
        if isDraining() { return .json(503, .object(["status": .string("draining")])) }
        guard readinessProbe.isReady() else { return .json(503, .object(["status": .string("db_unavailable")])) }
        return .json(200, .object(["status": .string("ready")]))
    }

    /// `/v1/*`: bearer check, then the route.
    private func v1(_ request: HTTPServerRequest) -> HTTPServerResponse {
        guard let token = apiToken else { return Self.error(503, "API_DISABLED") }
        guard let auth = request.headers["authorization"], auth.hasPrefix("Bearer "),
              Self.constantTimeEqual(Array(auth.dropFirst(7).utf8), Array(token.utf8))
        else { return Self.error(401, "UNAUTHORIZED") }

        let parts = request.path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        switch parts.count {
        case 2 where parts[1] == "enqueue":
            guard request.method == "POST" else { return Self.methodNotAllowed("POST") }
            return enqueue(request)
        case 2 where parts[1] == "reprocess":
            guard request.method == "POST" else { return Self.methodNotAllowed("POST") }
            return reprocessBatch(request)
        case 3 where parts[1] == "versions":
            guard request.method == "GET" else { return Self.methodNotAllowed("GET") }
            return show(parts[2])
        case 4 where parts[1] == "versions" && ["retry", "cancel", "reprocess"].contains(parts[3]):
            guard request.method == "POST" else { return Self.methodNotAllowed("POST") }
            return versionAction(parts[3], id: parts[2])
        default:
            return Self.error(404, "NOT_FOUND")
        }
    }

    // MARK: - /v1 handlers

    private func enqueue(_ request: HTTPServerRequest) -> HTTPServerResponse {
        guard let body = Self.jsonObject(request.body) else { return Self.error(400, "MALFORMED_JSON") }
        guard let id = body.member("version_id")?.stringValue, !id.isEmpty else { return Self.error(400, "VERSION_ID_REQUIRED") }
        if isDraining() { return Self.error(503, "DRAINING", headers: [("Retry-After", "5")]) }
        return database { (store) throws(DatabaseError) in
            switch try store.enqueue(versionId: id) {
            case .queued(let attempt):
                logger.info("enqueued over HTTP", ["version_id": .string(id)])
                return .json(202, .object(["version_id": .string(id), "status": .string("queued"),
                                           "attempt": .int(Int64(attempt)), "deduplicated": .bool(false)]))
            case .deduplicated(let status):
                return .json(200, .object(["version_id": .string(id), "status": .string(status), "deduplicated": .bool(true)]))
            case .notFound:
                return Self.error(404, "VERSION_NOT_FOUND")
            case .invalidState(let status):
                // The app re-sends upload-complete (after WORKER_UNAVAILABLE): a version that is
                // already ready or failed has been handled; say so instead of refusing.
                return .json(200, .object(["version_id": .string(id), "status": .string(status), "deduplicated": .bool(true)]))
            }
        }
    }

    private func versionAction(_ action: String, id: String) -> HTTPServerResponse {
        database { (store) throws(DatabaseError) in
            switch action {
            case "cancel":
                let outcome = try store.cancel(versionId: id)
                if outcome.ok {
                    logger.info("cancel requested over HTTP", ["version_id": .string(id)])
                    var obj: [String: JSONValue] = ["version_id": .string(id), "running": .bool(outcome.running)]
                    if let s = outcome.status { obj["status"] = .string(s) }
                    return .json(202, .object(obj))
                }
                return try refusal(store, id: id)
            case "retry":
                guard try store.retryFailed(versionId: id) else { return try refusal(store, id: id) }
                logger.info("retry requested over HTTP", ["version_id": .string(id)])
                return .json(202, .object(["version_id": .string(id), "status": .string("queued")]))
            default:
                guard try store.markReprocess(versionId: id) else { return try refusal(store, id: id) }
                logger.info("reprocess requested over HTTP", ["version_id": .string(id)])
                return .json(202, .object(["version_id": .string(id), "reprocess": .bool(true)]))
            }
        }
    }

    /// 404 when the version is unknown, else 409 with its status.
    private func refusal(_ store: QueueStore, id: String) throws(DatabaseError) -> HTTPServerResponse {
        guard let row = try store.show(versionId: id) else { return Self.error(404, "VERSION_NOT_FOUND") }
        return .json(409, .object(["error": .string("INVALID_STATE"), "status": .string(row["status"] ?? "unknown")]))
    }

    private func reprocessBatch(_ request: HTTPServerRequest) -> HTTPServerResponse {
        guard let body = Self.jsonObject(request.body) else { return Self.error(400, "MALFORMED_JSON") }
        guard let below = body.member("below_manifest_schema_version")?.intValue, below >= 1, below <= 32767,
              let limit = body.member("limit")?.intValue, limit >= 1, limit <= 10_000
        else { return Self.error(400, "INVALID_ARGUMENTS") }
        return database { (store) throws(DatabaseError) in
            let marked = try store.markReprocess(belowSchema: below, limit: limit, force: body.member("force")?.boolValue == true)
            logger.info("reprocess batch marked over HTTP", ["marked": .int(Int64(marked.count))])
            return .json(202, .object(["marked": .int(Int64(marked.count))]))
        }
    }

    /// Columns shown as numbers, and as embedded JSON.
    static let integerColumns: Set<String> = ["attempt", "max_attempts", "priority", "output_revision", "manifest_schema_version"]
    static let jsonColumns: Set<String> = ["errors", "thumbnail_paths"]

    private func show(_ id: String) -> HTTPServerResponse {
        database { (store) throws(DatabaseError) in
            guard let row = try store.show(versionId: id) else { return Self.error(404, "VERSION_NOT_FOUND") }
            var obj: [String: JSONValue] = [:]
            for (name, value) in zip(row.columns, row.values) {
                guard let value else { obj[name] = .null; continue }
                if Self.integerColumns.contains(name), let i = Int64(value) {
                    obj[name] = .int(i)
                } else if Self.jsonColumns.contains(name),
                          let parsed = try? JSONReader.parse(Array(value.utf8), limits: .smallDocument) {
                    obj[name] = parsed.jsonValue
                } else {
                    obj[name] = .string(value)
                }
            }
            return .json(200, .object(obj))
        }
    }

    // MARK: - Helpers

    /// Runs `body` on the API's connection (opened on demand); a database failure becomes 503.
    func database(_ body: (QueueStore) throws(DatabaseError) -> HTTPServerResponse) -> HTTPServerResponse {
        do {
            return try withDatabase { (c) throws(DatabaseError) in try body(QueueStore(connection: c)) }
        } catch {
            logger.warn("API database call failed", ["error": .string("\(error)"), "error_code": .string(error.code.rawValue)])
            return Self.error(503, "DB_UNAVAILABLE")
        }
    }

    func withDatabase<T>(_ body: (PGConnection) throws(DatabaseError) -> T) throws(DatabaseError) -> T {
        dbLock.lock()
        defer { dbLock.unlock() }
        guard let url = databaseURL else { throw DatabaseError(code: .connectFailed, message: "no database configured") }
        if connection == nil {
            connection = try PGConnection(url: url, applicationName: "transcode-worker-http", statementTimeoutSeconds: 5,
                                          connectTimeoutSeconds: 2)
        }
        do {
            return try body(connection!)
        } catch {
            if error.isRetryable {
                connection?.close()
                connection = nil
            }
            throw error
        }
    }

    /// Compares without an early exit, so the time does not reveal a matching prefix.
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var diff = UInt8(a.count == b.count ? 0 : 1)
        for i in 0..<max(a.count, b.count) {
            diff |= (i < a.count ? a[i] : 0) ^ (i < b.count ? b[i] : 0)
        }
        return diff == 0
    }

    /// A request body that is a JSON object (parsed under `JSONReader.Limits.smallDocument`).
    static func jsonObject(_ body: [UInt8]) -> ParsedJSON? {
        guard let parsed = try? JSONReader.parse(body, limits: .smallDocument), case .object = parsed else { return nil }
        return parsed
    }

    static func error(_ status: Int, _ code: String, headers: [(String, String)] = []) -> HTTPServerResponse {
        .json(status, .object(["error": .string(code)]), headers: headers)
    }

    static func methodNotAllowed(_ allow: String) -> HTTPServerResponse {
        error(405, "METHOD_NOT_ALLOWED", headers: [("Allow", allow)])
    }
}
