import JSONCore
import PGQueue
import WorkerCore

/// What an attempt's log lines carry, built once when the job is claimed: its identity (version,
/// room, attempt number) on every line, and the one line that ends it.
struct AttemptLog {
    let logger: JSONLogger
    /// Version, room and attempt number.
    let ids: [String: JSONValue]
    /// When the attempt began (monotonic nanoseconds).
    let started = Clock.now()

    init(job: ClaimedJob, logger: JSONLogger) {
        self.logger = logger
        ids = ["version_id": .string(job.versionId), "room_id": .string(job.roomId), "attempt": .int(Int64(job.attempt))]
    }

    /// The identity with `extra` fields (which never replace it).
    func fields(_ extra: [String: JSONValue]) -> [String: JSONValue] {
        ids.merging(extra) { a, _ in a }
    }

    /// The attempt's last line: the outcome and its reason, each step's milliseconds (`timings`,
    /// which holds `total`), the outputs copied from the previous revision, and the failure it was
    /// about. `info` for `ready`, `warn` otherwise.
    func finished(_ outcome: JobOutcome, failure: FailureReason?, timings: [String: Double], copied: Int) {
        var fields = ids
        for (k, v) in timings { fields["\(k)_ms"] = .int(Int64(v.rounded())) }
        if copied > 0 { fields["copied_outputs"] = .int(Int64(copied)) }
        fields["outcome"] = .string(outcome.name)
        if let reason = outcome.reason { fields["reason"] = .string(reason) }
        switch outcome {
        case .ready(let prefix): fields["output_prefix"] = .string(prefix)
        case .retried(_, let runAfter): fields["retry_at"] = .string(runAfter)
        case .failed, .released, .leaseLost: break
        }
        if let failure {
            fields["message"] = .string(failure.message)
            fields["failed_phase"] = .string(failure.phase)
            fields["retryable"] = .bool(failure.isRetryable)
        }
        if case .ready = outcome { logger.info("job finished", fields) } else { logger.warn("job finished", fields) }
    }

    /// An attempt that ended before its session opened: the same last line, with only `total`.
    func finishedEarly(_ outcome: JobOutcome) -> JobOutcome {
        finished(outcome, failure: nil, timings: ["total": Clock.ms(started, Clock.now())], copied: 0)
        return outcome
    }
}
