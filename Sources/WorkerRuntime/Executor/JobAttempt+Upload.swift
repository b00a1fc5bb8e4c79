import Foundation
import JSONCore
import ObjectStorage
import PGQueue
#if canImport(Glibc)
import Glibc
import WorkerCore
#endif

/// Step 3 of an attempt: the checked outputs, to the output store (and deleted again when they
/// must not stay).
extension JobAttempt {
    /// Files the child reused from `previous` (and whose bytes are those the worker downloaded
    /// from there) are copied in the output store instead of uploaded; a failed copy falls back to
    /// reading the previous object again and uploading it when its hash is still the reported one
    /// (the child wrote no copy of it).
    func upload(_ ws: JobWorkspace, report: ChildReport, previous: Previous? = nil) throws(Interruption) {
        try checkStop()
        enter(.uploadingOutputs)
        // Renew the lease (and look for a cancel) before anything becomes visible.
        var sentAt = Clock.now()
        switch database("heartbeat", { (s) throws(DatabaseError) in
            sentAt = Clock.now()
            return try s.heartbeat(job, leaseSeconds: config.leaseSeconds, phase: JobStep.uploadingOutputs.rawValue)
        }) {
        case .success(.leaseLost), .failure:
            control.requestStop(.leaseLost)
            throw .stopped(.leaseLost)
        case .success(.alive(let cancelRequested)):
            heartbeat.renewed(sentAt: sentAt)
            if cancelRequested {
                control.requestStop(.cancelled)
                throw .stopped(.cancelled)
            }
        }
        let t0 = Clock.now()
        defer { timings["upload"] = Clock.ms(t0, Clock.now()) }
        // Privacy crops go to the private source store (`storePrivacyDetail`), never to the outputs.
        let published = report.files.filter { !$0.path.hasPrefix(OutputName.privacyFolder) }
        let ordered = published.filter { $0.path != OutputName.manifest } + published.filter { $0.path == OutputName.manifest }
        let limits = ChildOutputs.limits(config)
        // Reused files first, copied together; a failed copy is uploaded from the previous object.
        var copies: [ObjectCopy] = []
        var rest: [ChildMessage.File] = []
        for file in ordered {
            if let previous, report.copied.contains(file.path) {
                copies.append(ObjectCopy(source: previous.prefix + file.path, destination: job.outputPrefix + file.path,
                                         contentType: Self.contentType(file.path)))
            } else {
                rest.append(file)
            }
        }
        var refetch: Set<String> = []
        if !copies.isEmpty {
            try checkStop()
            let failed = outputStore.copy(all: copies, cacheControl: config.outputCacheControl(visibility: job.roomVisibility))
            for c in copies where failed[c.destination] == nil {
                copied += 1
                uploaded.append(c.destination)
            }
            if let (key, error) = failed.min(by: { $0.key < $1.key }) {
                logger.warn("reprocess: copy failed, uploading instead", logFields([
                    "error": .string("\(error)"), "key": .string(key), "failed_copies": .int(Int64(failed.count)),
                ]))
                let again = ordered.filter { failed[job.outputPrefix + $0.path] != nil }
                refetch = Set(again.map(\.path))
                rest = again + rest
            }
        }
        for file in rest {
            try checkStop()
            let key = job.outputPrefix + file.path
            let cacheControl = config.outputCacheControl(visibility: job.roomVisibility)
            if let previous, refetch.contains(file.path) {
                // The child wrote no copy: the previous object again, checked against its hash.
                let bytes: [UInt8]
                do { bytes = try outputStore.get(previous.prefix + file.path, maxBytes: limits.file) } catch {
                    throw .failed(.upload(error))
                }
                guard bytes.count == file.bytes, Digest.hex(Digest.sha256(bytes)) == file.sha256 else {
                    // Retryable: the next attempt reads the previous revision again.
                    throw .failed(.internalFault("PREVIOUS_CHANGED: the previous revision's \(file.path) changed while it was reused",
                                                 phase: .uploadingOutputs))
                }
                do { try outputStore.put(key, bytes: bytes, contentType: Self.contentType(file.path), cacheControl: cacheControl) } catch {
                    throw .failed(.upload(error))
                }
            } else {
                // Exactly the bytes that were checked: the daemon's own copy, never `out/` again.
                guard let source = report.intake.source(file.path), source.bytes == file.bytes, source.sha256 == file.sha256 else {
                    throw .failed(.internalFault("CHILD_PROTOCOL: the output \(file.path) was not checked before its upload",
                                                 phase: .uploadingOutputs))
                }
                do { try outputStore.put(key, source: source, contentType: Self.contentType(file.path), cacheControl: cacheControl) } catch {
                    throw .failed(.upload(error))
                }
            }
            uploaded.append(key)
        }
    }

    /// Deletes this attempt's outputs (best effort). Once a `ready` report was sent, only with
    /// `force` or when called after an answer proving they are not referenced.
    func deleteOutputs(force: Bool = false) {
        guard !uploaded.isEmpty else { return }
        if completionSent && !force {
            // A report may have been recorded without its answer reaching us: the outputs may be
            // the version's current ones. They sit under this attempt's own prefix, so leaving
            // them harms nothing.
            logger.warn("outputs left in place: the completion state is unknown",
                        logFields(["prefix": .string(job.outputPrefix)]))
            return
        }
        for key in uploaded.reversed() {
            do { try outputStore.delete(key) } catch {
                logger.warn("cannot delete an output", logFields(["key": .string(key), "error": .string(error.description)]))
            }
        }
        logger.info("outputs deleted", logFields(["count": .int(Int64(uploaded.count)), "prefix": .string(job.outputPrefix)]))
        uploaded = []
    }
}
