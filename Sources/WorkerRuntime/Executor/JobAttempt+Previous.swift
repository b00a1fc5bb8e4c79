import Foundation
import JSONCore
import ObjectStorage
import PGQueue
import WorkerCore

/// Incremental reprocess: the published revision's outputs, handed to the job so that it reuses
/// every output group whose key is unchanged (see `TRANSCODE_INCREMENTAL_REPROCESS`).
extension JobAttempt {
    /// The previous revision as downloaded: its pack in the workspace (`PreviousPack`, given to
    /// the child as `--previous`; nil when nothing could be read), its prefix in the output store,
    /// and the SHA-256 and size of each file fetched.
    struct Previous {
        var pack: String?
        var prefix: String
        var sha256: [String: String]
        var bytes: [String: Int] = [:]
    }

    /// The pack's name in the workspace's `in/`.
    static let previousPackName = "previous.pack"

    /// The largest previous manifest read, bytes.
    static let maxPreviousManifestBytes = 16 << 20

    /// For a reprocess that is not forced (`reprocess_full`), with the setting on: downloads the
    /// published revision's `layer_manifest.json` and the model, thumbnail and plan files it names from
    /// the output store, hashes each, and writes the manifest and the thumbnail and plan files into
    /// one pack, `in/previous.pack` (the model is only hashed: the child compares the model it makes
    /// with the manifest's hash and never reads the old one). The revision must lie below the
    /// version's own output root and in this worker's output bucket. Never fails the attempt:
    /// whatever cannot be fetched is left out (the job then makes its group again) and logged; nil
    /// when nothing can be reused.
    func downloadPrevious(_ ws: JobWorkspace) -> Previous? {
        guard job.isReprocess, !job.reprocessFull, config.incrementalReprocess, let manifestKey = job.previousManifestPath,
              let slash = manifestKey.lastIndex(of: "/") else { return nil }
        let prefix = String(manifestKey[...slash])
        let root = StorageConfinement.outputRoot(roomId: job.roomId, versionId: job.versionId)
        guard (try? ObjectKey.validate(manifestKey)) != nil, prefix.hasPrefix(root), prefix.count > root.count,
              manifestKey == prefix + OutputName.manifest, job.previousOutputBucket.map({ $0 == outputStore.bucket }) ?? true
        else {
            logger.warn("reprocess: the published outputs are not this version's; making everything again",
                        logFields(["manifest_path": .string(String(manifestKey.prefix(200)))]))
            return nil
        }
        let t0 = Clock.now()
        defer { timings["previous"] = Clock.ms(t0, Clock.now()) }
        let limits = ChildOutputs.limits(config)
        var previous = Previous(pack: nil, prefix: prefix, sha256: [:])
        var entries: [(name: String, bytes: [UInt8])] = []
        do {
            let manifest = try outputStore.get(manifestKey, maxBytes: Self.maxPreviousManifestBytes)
            entries.append((OutputName.manifest, manifest))
            var total = 0
            for name in Self.reusableNames(manifest) {
                let bytes = try outputStore.get(prefix + name, maxBytes: limits.file)
                total += bytes.count
                guard total <= limits.total else { break }
                // A plan file that would not pass the checks of a new one is not offered for reuse.
                if let problem = ChildOutputs.contentProblem(name, bytes) {
                    logger.warn("reprocess: a published plan file is not a plain drawing; making the plan again",
                                logFields(["path": .string(name), "problem": .string(problem)]))
                    continue
                }
                previous.sha256[name] = Digest.hex(Digest.sha256(bytes))
                previous.bytes[name] = bytes.count
                if name != OutputName.model { entries.append((name, bytes)) }
            }
        } catch {
            logger.warn("reprocess: the published outputs could not all be read; making the rest again",
                        logFields(["error": .string("\(error)")]))
        }
        if !entries.isEmpty, let pack = PreviousPack.encode(entries) {
            do {
                previous.pack = try ws.write(pack, to: Self.previousPackName, in: ws.inputDirectory)
            } catch {
                logger.warn("reprocess: the published outputs could not be handed to the job; making everything again",
                            logFields(["error": .string(error.message)]))
                previous.sha256 = [:]
                previous.bytes = [:]
            }
        }
        return previous
    }

    /// The model, thumbnail and plan files a manifest names, by the pipeline's own names only, once
    /// each. The worker copies only files it fetched and hashed itself: the manifest's own hashes
    /// were written by a child and are not taken on trust.
    static func reusableNames(_ manifest: [UInt8]) -> [String] {
        guard let m = PreviousManifest(manifest) else { return [] }
        let names = m.fileNames.filter { path in
            ChildOutputs.isAllowedName(path) && path != OutputName.manifest && path != OutputName.report
        }
        return Array(names.prefix(ChildOutputs.maxFiles))
    }
}
