import JSONCore
import PGQueue
import WorkerCore

extension JobRunner {
    /// Fails a version the rescuer took over after its last attempt's worker stopped heartbeating:
    /// through `transcode-done` in callback mode (falling back to SQL when the backend refuses the
    /// report or cannot be reached within 20 s), otherwise with `transcode_finalize`. Returns true
    /// when the failure was recorded; false leaves the takeover lease to expire, and the next sweep
    /// tries again.
    @discardableResult
    func failTakenOver(_ job: ClaimedJob, reason: String, message: String) -> Bool {
        let failure = FailureReason(reason: reason, message: "\(reason): \(message)", phase: .rescue, isRetryable: false)
        let ids: [String: JSONValue] = ["version_id": .string(job.versionId), "room_id": .string(job.roomId)]
        if let url = config.completionURL {
            let client = CompletionClient(url: url, authHeaders: config.completionHeaders, workerId: config.workerId, http: http,
                                          logger: logger, requestTimeout: 10)
            let deadline = Clock.seconds() + 20
            switch client.post(client.failedBody(job, failure: failure, maxAttempts: job.maxAttempts), job: job,
                               shouldContinue: { Clock.seconds() < deadline }) {
            case .accepted: return true
            case .leaseLost: return false
            case .gaveUp(let e):
                logger.error("transcode-done unreachable for a rescued version; recording the failure in SQL",
                             ids.merging(["error": .string(e)]) { a, _ in a })
            case .rejected(let status, _):
                logger.error("transcode-done rejected a rescued failure; recording it in SQL",
                             ids.merging(["status": .int(Int64(status))]) { a, _ in a })
            }
        }
        guard let url = config.databaseURL else { return false }
        do {
            let conn = try PGConnection(url: url)
            defer { conn.close() }
            let r = try QueueStore(connection: conn).finalize(versionId: job.versionId, leaseId: job.leaseId,
                                                               status: "failed", error: failure.json)
            return r.ok
        } catch {
            logger.error("cannot record a rescued failure", ids.merging(["error": .string("\(error)")]) { a, _ in a })
            return false
        }
    }
}
