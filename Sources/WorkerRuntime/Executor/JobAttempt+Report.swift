import Foundation
import JSONCore
import ObjectStorage
import PGQueue
#if canImport(Glibc)
import Glibc
import WorkerCore
#endif

/// Step 4 of an attempt: the end reported through `transcode-done` or the SQL finalize, with the
/// retry policy of `QueueStore.retryLater`.
extension JobAttempt {
    func complete(_ report: ChildReport) -> JobOutcome {
        beginReporting()
        // The terminal event comes from the finalize: no progress after it.
        progress.close()
        enter(.completing)
        let glbPath = job.outputPrefix + OutputName.model
        let manifestPath = job.outputPrefix + OutputName.manifest
        let glb = report.files.first { $0.path == OutputName.model }!
        if let url = config.completionURL {
            let client = completionClient(url)
            let outputs = CompletionClient.Outputs(
                bucket: outputStore.bucket, glbPath: glbPath, manifestPath: manifestPath, thumbnails: report.thumbnails,
                glbBytes: glb.bytes, glbSHA256: glb.sha256, manifestSchemaVersion: report.manifestSchemaVersion,
                layerCount: report.layerCount, qualityGrade: report.qualityGrade)
            timings["total"] = Clock.ms(started, Clock.now())
            let body = client.readyBody(job, outputs: outputs, timings: timings)
            completionSent = true
            var answer = client.post(body, job: job, shouldContinue: keepReporting)
            if case .gaveUp = answer, heartbeat.leaseLostSeen || !heartbeat.leaseAlive {
                // The lease may be gone because an earlier, unanswered request was recorded: one
                // more request tells (an idempotent replay answers 200).
                answer = client.post(body, job: job, once: true, shouldContinue: { false })
            }
            switch answer {
            case .accepted:
                collectSuperseded(runner: runner, job: job)
                return .ready(outputPrefix: job.outputPrefix)
            case .leaseLost:
                deleteOutputs(force: true)
                return .leaseLost
            case .rejected(let status, let excerpt):
                logger.error("transcode-done rejected the result", logFields([
                    "status": .int(Int64(status)), "body": .string(excerpt)]))
                deleteOutputs(force: true)
                let f = FailureReason(reason: FailureReason.completionRejected,
                                      message: "COMPLETION_REJECTED: transcode-done answered HTTP \(status)",
                                      phase: .completing, isRetryable: true)
                observer(.failure(f))
                return retryOrFail(f, failInSQL: true)
            case .gaveUp(let lastError):
                if control.shutdownRequested && !heartbeat.leaseLostSeen && heartbeat.leaseAlive {
                    return handleStop(.shutdown)
                }
                if reportDeadlinePassed {
                    // Stop renewing: the lease expires and the rescuer puts the version back. The
                    // outputs stay (the report may have been recorded without its answer reaching
                    // us); a newer attempt writes under a prefix of its own.
                    heartbeat.stop()
                    logger.error("transcode-done not accepted before the report deadline; outputs left in place, the lease will expire",
                                 logFields(["error": .string(lastError),
                                              "deadline_s": .double(runner.reportDeadlineSeconds)]))
                    return .leaseLost
                }
                logger.error("transcode-done unreachable while the lease lived; outputs left in place",
                             logFields(["error": .string(lastError)]))
                return .leaseLost
            }
        }
        var outputs: [String: JSONValue] = [
            "bucket": .string(outputStore.bucket), "glb_path": .string(glbPath), "manifest_path": .string(manifestPath),
            "thumbnails": CompletionClient.thumbnailsJSON(report.thumbnails),
            "manifest_schema_version": .int(Int64(report.manifestSchemaVersion)),
        ]
        let hero = report.thumbnails.first { $0.kind == "hero" } ?? report.thumbnails.first { $0.kind == "card" }
        outputs["thumbnail_path"] = hero.map { .string($0.path) } ?? .null
        outputs["quality_grade"] = report.qualityGrade.map { .string($0) } ?? .null
        completionSent = true
        switch database("finalize ready", { (s) throws(DatabaseError) in
            try s.finalize(versionId: job.versionId, leaseId: job.leaseId, status: "ready", outputs: .object(outputs))
        }) {
        case .success(let r) where r.ok:
            collectSuperseded(runner: runner, job: job)
            return .ready(outputPrefix: job.outputPrefix)
        case .success(let r):
            // LEASE_LOST is only answered when the version does not point at these outputs.
            logger.warn("finalize refused", logFields(["error": .string(r.error ?? "unknown")]))
            deleteOutputs(force: true)
            return .leaseLost
        case .failure(let e):
            logger.error("finalize failed; outputs left in place", logFields(["error": .string(e.description)]))
            return .leaseLost
        }
    }

    /// A failed attempt: delete its outputs, then retry later or fail for good.
    func handleFailure(_ f: FailureReason) -> JobOutcome {
        beginReporting()
        observer(.failure(f))
        deleteOutputs()
        return f.isRetryable ? retryOrFail(f, failInSQL: false) : finalizeFailed(f, sqlOnly: false)
    }

    /// Puts the version back with backoff, or, with the attempts used up, fails it for good
    /// (`failInSQL`: with `transcode_finalize` even in callback mode, after the backend rejected
    /// this attempt's report).
    func retryOrFail(_ f: FailureReason, failInSQL: Bool) -> JobOutcome {
        let result = database("retry later", { (s) throws(DatabaseError) in
            try s.retryLater(job, code: f.reason, message: f.message, baseDelaySeconds: config.retryBaseSeconds,
                             maxDelaySeconds: config.retryMaxSeconds, maxAttempts: config.maxAttempts)
        })
        switch result {
        case .success(let runAfter?):
            let at: String
            switch database("format time", { (s) throws(DatabaseError) in try s.utcTimestamp(runAfter) }) {
            case .success(let t): at = t
            case .failure: at = runAfter
            }
            progress.queued(retryAt: at)
            return .retried(code: f.reason, runAfter: at)
        case .success(nil):
            // The attempts are used up, or the lease is gone (a rescuer may have given the version
            // to another worker): tell them apart before reporting a final failure. Finalize is
            // fenced by the lease anyway and then answers LEASE_LOST; nothing is deleted here.
            var sentAt = Clock.now()
            let check = database("check lease", { (s) throws(DatabaseError) in
                sentAt = Clock.now()
                return try s.heartbeat(job, leaseSeconds: config.leaseSeconds, phase: nil)
            })
            switch check {
            case .success(.leaseLost):
                logger.warn("lease lost before the failure was reported", ids)
                return .leaseLost
            case .success(.alive):
                heartbeat.renewed(sentAt: sentAt)
            case .failure:
                break
            }
            return finalizeFailed(f, sqlOnly: failInSQL)
        case .failure(let e):
            logger.error("cannot put the job back; the lease will expire", logFields(["error": .string(e.description)]))
            return .leaseLost
        }
    }

    /// Fails the version for good: `transcode_finalize` (direct mode), or the failure body to
    /// `transcode-done` (callback mode; when the backend rejects it, or `sqlOnly`, in SQL).
    func finalizeFailed(_ f: FailureReason, sqlOnly: Bool) -> JobOutcome {
        progress.close()
        if let url = config.completionURL, !sqlOnly {
            let client = completionClient(url)
            let body = client.failedBody(job, failure: f, maxAttempts: maxAttempts)
            var answer = client.post(body, job: job, shouldContinue: keepReporting)
            if case .gaveUp = answer, heartbeat.leaseLostSeen || !heartbeat.leaseAlive {
                answer = client.post(body, job: job, once: true, shouldContinue: { false })
            }
            switch answer {
            case .accepted:
                return .failed(reason: f.reason)
            case .leaseLost:
                return .leaseLost
            case .rejected(let status, let excerpt):
                logger.error("transcode-done rejected the failure; recording it in SQL", logFields([
                    "status": .int(Int64(status)), "body": .string(excerpt)]))
            case .gaveUp(let lastError):
                if heartbeat.leaseLostSeen || !heartbeat.leaseAlive {
                    logger.error("transcode-done unreachable while the lease lived", logFields(["error": .string(lastError)]))
                    return .leaseLost
                }
                // The report deadline passed, a shutdown was requested, or the request cannot be
                // sent at all: record the failure in SQL (fenced by the lease) instead.
                logger.error("transcode-done not accepted; recording the failure in SQL", logFields([
                    "error": .string(lastError), "shutdown": .bool(control.shutdownRequested),
                    "deadline_passed": .bool(reportDeadlinePassed)]))
            }
        }
        switch database("finalize failed", { (s) throws(DatabaseError) in
            try s.finalize(versionId: job.versionId, leaseId: job.leaseId, status: "failed", error: f.json)
        }) {
        case .success(let r) where r.ok:
            return .failed(reason: f.reason)
        case .success(let r):
            logger.warn("finalize refused", logFields(["error": .string(r.error ?? "unknown")]))
            return .leaseLost
        case .failure(let e):
            logger.error("cannot record the failure; the lease will expire", logFields(["error": .string(e.description)]))
            return .leaseLost
        }
    }

    func handleStop(_ reason: JobControl.StopReason) -> JobOutcome {
        beginReporting()
        logger.info("job stopping", logFields(["stop_reason": .string(reason.rawValue),
                                                 "phase": .string(control.phase)]))
        switch reason {
        case .shutdown:
            switch database("release", { (s) throws(DatabaseError) in try s.release(job) }) {
            case .success(true):
                deleteOutputs(force: true)
                return .released
            case .success(false):
                deleteOutputs()
                return .leaseLost
            case .failure(let e):
                logger.error("cannot release the job; the lease will expire", logFields(["error": .string(e.description)]))
                deleteOutputs()
                return .leaseLost
            }
        case .cancelled:
            let f = FailureReason(reason: FailureReason.cancelled, message: "CANCELLED: cancelled by an operator",
                                  phase: currentStep, isRetryable: false)
            observer(.failure(f))
            deleteOutputs()
            return finalizeFailed(f, sqlOnly: false)
        case .leaseLost:
            deleteOutputs()
            return .leaseLost
        }
    }
}
