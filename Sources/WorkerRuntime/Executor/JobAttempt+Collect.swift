import WorkerCore
import JSONCore
import PGQueue

extension JobAttempt {
    /// Once this attempt's `ready` committed: deletes the version's older revisions and the
    /// outputs of attempts that lost their lease at this revision (`OutputCollector`,
    /// `superseded` mode). Best effort: what fails here is left to the periodic sweep.
    func collectSuperseded(runner: JobRunner, job: ClaimedJob) {
        let target = OutputCollector.Target(versionId: job.versionId, roomId: job.roomId,
                                            glbPath: job.outputPrefix + OutputName.model, leaseId: nil)
        do {
            let outcome = try OutputCollector(storage: runner.outputStorage).collect(target, mode: .superseded)
            guard outcome.objects > 0 || outcome.failures > 0 else { return }
            runner.logger.info("superseded outputs deleted", logFields([
                "objects": .int(Int64(outcome.objects)), "bytes": .int(Int64(outcome.bytes)),
                "failures": .int(Int64(outcome.failures)),
                "directories": .array(outcome.directories.map { .string($0) }),
            ]))
            observer(.outputsCollected(outcome))
        } catch {
            runner.logger.warn("superseded outputs not deleted; the storage sweep will", logFields([
                "error": .string(error.description)]))
        }
    }
}

extension JobAttempt {
    /// The thumbnails the app shows for a ready version: the feed's card and the room page's hero.
    static let requiredPreviewKinds = ["card", "hero"]

    /// A version becomes `ready` only when the app can show it: nil when `kinds` holds every
    /// required thumbnail, else a permanent `PREVIEW_FAILED` (`PREVIEW_MISSING`; the same scan
    /// renders the same way on every attempt, e.g. one with nothing to draw).
    static func missingPreview(kinds: [String]) -> FailureReason? {
        let missing = requiredPreviewKinds.filter { !kinds.contains($0) }
        guard !missing.isEmpty else { return nil }
        return FailureReason(reason: FailureReason.previewFailed,
                             message: "PREVIEW_MISSING: no \(missing.joined(separator: " or ")) image (the scan has nothing to draw)",
                             phase: .preview, isRetryable: false)
    }
}
