import Foundation
import JSONCore
import ObjectStorage
import PGQueue
import WorkerCore

/// Reports a job's end to the backend's `transcode-done` endpoint (worker-contracts §3.1): builds
/// the `transcode-done/v1` bodies and POSTs them with the contract's headers, retrying what may
/// succeed later.
///
/// Headers: `Content-Type: application/json`, `Idempotency-Key: <version_id>:<lease_id>`,
/// `X-Worker-Id`, and the authentication headers the configuration gives
/// (`WorkerConfig.completionHeaders`: `apikey` and `Authorization: Bearer …`).
///
/// Retries: 5xx, 429, timeouts and connection failures are retried after 1 s, 2 s, 4 s … (at most
/// 30 s apart) while `shouldContinue` says so. The job runner's `shouldContinue` is false once the
/// lease is gone or expired, once a worker shutdown was requested, and once the report's overall
/// deadline (`JobRunner.reportDeadlineSeconds`) has passed, so a backend answering 5xx forever
/// cannot hold a job, its lease and its slot forever. 200–299 is accepted, 409 means the lease is
/// lost, any other status is a rejection.
///
/// Thread-safe (stateless apart from its configuration).
final class CompletionClient: Sendable {
    /// What the backend answered in the end.
    enum Answer: Sendable, Equatable {
        /// 2xx: recorded (or an idempotent replay).
        case accepted
        /// 409: a newer lease owns the version.
        case leaseLost
        /// Another 4xx (or 3xx): the report was refused; `body` is a short excerpt.
        case rejected(status: Int, body: String)
        /// No definite answer before `shouldContinue` said stop, or a permanent transport error.
        case gaveUp(lastError: String)
    }

    /// The outputs of a successful attempt, as the contract names them.
    struct Outputs: Sendable {
        /// The output store's bucket (`ObjectStore.bucket`); recorded as `room_versions.output_bucket`.
        var bucket: String?
        var glbPath: String
        var manifestPath: String
        var thumbnails: [(path: String, kind: String, width: Int, height: Int)]
        var glbBytes: Int
        var glbSHA256: String
        var manifestSchemaVersion: Int
        var layerCount: Int
        /// The manifest's `quality.grade` (`A` best); nil when the input was not graded.
        var qualityGrade: String? = nil

        /// `[{path, kind, width, height}]`.
        var thumbnailsJSON: JSONValue { CompletionClient.thumbnailsJSON(thumbnails) }
    }

    /// Thumbnails as the contract lists them: `[{path, kind, width, height}]`.
    static func thumbnailsJSON(_ list: [(path: String, kind: String, width: Int, height: Int)]) -> JSONValue {
        .array(list.map { t in
            .object(["path": .string(t.path), "kind": .string(t.kind), "width": .int(Int64(t.width)),
                     "height": .int(Int64(t.height))])
        })
    }

    static let schema = "transcode-done/v1"

    let url: String
    /// `apikey` / `Authorization` fields, sent as given.
    let authHeaders: [(String, String)]
    let workerId: String
    let http: HTTPClient
    let logger: JSONLogger
    /// Seconds one POST may take.
    let requestTimeout: Double

    init(url: String, authHeaders: [(String, String)], workerId: String, http: HTTPClient, logger: JSONLogger, requestTimeout: Double) {
        self.url = url
        self.authHeaders = authHeaders
        self.workerId = workerId
        self.http = http
        self.logger = logger
        self.requestTimeout = requestTimeout
    }

    /// The success body.
    func readyBody(_ job: ClaimedJob, outputs: Outputs, timings: [String: Double]) -> JSONValue {
        var out: [String: JSONValue] = [
            "glb_path": .string(outputs.glbPath),
            "manifest_path": .string(outputs.manifestPath),
            "thumbnails": outputs.thumbnailsJSON,
            "glb_bytes": .int(Int64(outputs.glbBytes)),
            "glb_sha256": .string(outputs.glbSHA256),
            "manifest_schema_version": .int(Int64(outputs.manifestSchemaVersion)),
            "layer_count": .int(Int64(outputs.layerCount)),
            "quality_grade": outputs.qualityGrade.map { .string($0) } ?? .null,
        ]
        if let bucket = outputs.bucket { out["bucket"] = .string(bucket) }
        return .object(envelope(job, status: "ready").merging([
            "outputs": .object(out),
            "timings_ms": .object(timings.mapValues { .int(Int64($0.rounded())) }),
        ]) { a, _ in a })
    }

    /// The failure body (final: the version fails, or a reprocess keeps its old outputs).
    func failedBody(_ job: ClaimedJob, failure: FailureReason, maxAttempts: Int) -> JSONValue {
        .object(envelope(job, status: "failed").merging([
            "error": .object([
                "code": .string("ROOM_TRANSCODE_FAILED"),
                "reason": .string(failure.reason),
                "message": .string(failure.message),
                "phase": .string(failure.phase),
                "retryable": .bool(failure.isRetryable),
                "attempt": .int(Int64(job.attempt)),
                "max_attempts": .int(Int64(maxAttempts)),
            ]),
        ]) { a, _ in a })
    }

    private func envelope(_ job: ClaimedJob, status: String) -> [String: JSONValue] {
        [
            "schema": .string(Self.schema),
            "version_id": .string(job.versionId),
            "room_id": .string(job.roomId),
            "status": .string(status),
            "lease": .object(["lease_id": .string(job.leaseId), "worker_id": .string(workerId),
                              "attempt": .int(Int64(job.attempt))]),
            "worker": .object(["version": .string(WorkerVersion.string)]),
        ]
    }

    /// POSTs `body`, retrying as described above. `shouldContinue` is asked before every retry
    /// and while waiting (at least every 200 ms); with `once` only one request is sent.
    func post(_ body: JSONValue, job: ClaimedJob, once: Bool = false, shouldContinue: () -> Bool) -> Answer {
        var headers: [(String, String)] = [
            ("Content-Type", "application/json"),
            ("Idempotency-Key", "\(job.versionId):\(job.leaseId)"),
            ("X-Worker-Id", workerId),
        ]
        headers += authHeaders
        let request = HTTPRequest(method: "POST", url: url, headers: headers, body: Array(body.serialized().utf8),
                                  timeout: requestTimeout)
        var delay = 1.0
        var attempt = 0
        while true {
            attempt += 1
            var lastError: String
            do {
                let response = try http.send(request)
                switch response.status {
                case 200..<300:
                    return .accepted
                case 409:
                    return .leaseLost
                case 429, 500...599:
                    lastError = "HTTP \(response.status)"
                default:
                    let excerpt = String(decoding: response.body.prefix(300), as: UTF8.self)
                    return .rejected(status: response.status, body: excerpt)
                }
            } catch {
                guard error.isRetryable else { return .gaveUp(lastError: error.description) }
                lastError = error.description
            }
            logger.warn("transcode-done not accepted yet", [
                "version_id": .string(job.versionId), "attempt": .int(Int64(attempt)), "error": .string(lastError),
                "retry_in_ms": .int(Int64(delay * 1000)),
            ])
            if once { return .gaveUp(lastError: lastError) }
            let until = Clock.now() + UInt64(delay * 1e9)
            while true {
                // One clock read per turn: `until` may pass between two reads.
                let now = Clock.now()
                guard now < until else { break }
                guard shouldContinue() else { return .gaveUp(lastError: lastError) }
                usleep(UInt32(min(0.2, Double(until - now) / 1e9) * 1e6) + 1)
            }
            guard shouldContinue() else { return .gaveUp(lastError: lastError) }
            delay = min(30, delay * 2)
        }
    }
}
