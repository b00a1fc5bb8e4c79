import ObjectStorage
import PGQueue

/// Deletes output revisions nothing refers to, so that a superseded model, manifest and
/// thumbnails (for example the unblurred revision of a room re-transcoded after a face-blur
/// redaction) never stay online.
///
/// Every attempt writes below `rooms/{room}/versions/{version}/r{revision}-{lease8}/`
/// (`ClaimedJob.outputPrefix`). Only directories of exactly that form are ever deleted; sources,
/// redacted textures and anything else below the version are left alone. The directory the
/// version's `glb_path` names is kept, and so is any directory of the version's live lease (an
/// attempt in flight).
///
/// Two modes:
/// - `superseded`: right after a `ready` committed for revision N, every other revision
///   directory numbered N or lower is deleted at once (older revisions, and attempts of N that
///   lost their lease). Newer numbers belong to attempts that started after the finalize.
/// - `sweep`: every other revision directory whose newest object is at least `graceSeconds` old
///   (outputs of attempts whose finalize never got an answer, of failed versions, of crashed
///   workers). The grace period must outlast an attempt and its report.
public struct OutputCollector: Sendable {
    public enum Mode: Sendable {
        case superseded
        case sweep(graceSeconds: Double, now: Double)
    }

    /// The version as the database has it now (`QueueStore.collectorTarget`).
    public typealias Target = CollectorTarget

    /// What one pass deleted (or, dry, would delete).
    public struct Outcome: Sendable, Equatable {
        public var objects = 0
        public var bytes = 0
        /// Objects whose delete failed (left for the next pass).
        public var failures = 0
        /// The revision directories removed, as key prefixes.
        public var directories: [String] = []

        public init() {}

        public mutating func add(_ other: Outcome) {
            objects += other.objects
            bytes += other.bytes
            failures += other.failures
            directories += other.directories
        }
    }

    public let storage: any ObjectStore

    public init(storage: any ObjectStore) {
        self.storage = storage
    }

    /// `r12-0a1b2c3d` → (12, "0a1b2c3d"); nil for any other name.
    static func revision(of name: Substring) -> (number: Int, lease8: Substring)? {
        guard name.first == "r", let dash = name.firstIndex(of: "-") else { return nil }
        let digits = name[name.index(after: name.startIndex)..<dash], lease = name[name.index(after: dash)...]
        guard !digits.isEmpty, digits.count <= 9, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let n = Int(digits),
              lease.count == 8, lease.allSatisfy({ $0.isHexDigit && !$0.isUppercase }) else { return nil }
        return (n, lease)
    }

    /// Deletes (unless `dryRun`) what `mode` selects for `target`. Throws `StorageError` when the
    /// version's objects cannot be listed; a failed delete is counted in `failures` instead.
    public func collect(_ target: Target, mode: Mode, dryRun: Bool = false) throws(StorageError) -> Outcome {
        let root = StorageConfinement.outputRoot(roomId: target.roomId, versionId: target.versionId)
        var directories: [Substring: [StoredObject]] = [:]
        for object in try storage.listObjects(prefix: root) {
            let rest = object.key.dropFirst(root.count)
            guard let slash = rest.firstIndex(of: "/") else { continue }
            let name = rest[..<slash]
            guard Self.revision(of: name) != nil else { continue }
            directories[name, default: []].append(object)
        }
        var keep: Substring?
        if let glb = target.glbPath, glb.hasPrefix(root) {
            let rest = glb.dropFirst(root.count)
            keep = rest.firstIndex(of: "/").map { rest[..<$0] }
        }
        let keptNumber = keep.flatMap { Self.revision(of: $0)?.number }
        let live = target.leaseId.map { $0.prefix(8) }
        var outcome = Outcome()
        for name in directories.keys.sorted() {
            guard name != keep, let (number, lease8) = Self.revision(of: name), lease8 != live else { continue }
            let objects = directories[name]!
            switch mode {
            case .superseded:
                guard let keptNumber, number <= keptNumber else { continue }
            case .sweep(let grace, let now):
                guard let newest = objects.map(\.modified).max(), now - newest >= grace else { continue }
            }
            outcome.directories.append(root + name + "/")
            // The manifest first: a reader that finds no manifest treats the rest as incomplete.
            let ordered = objects.sorted { ($0.key.hasSuffix("/layer_manifest.json") ? 0 : 1, $0.key) < ($1.key.hasSuffix("/layer_manifest.json") ? 0 : 1, $1.key) }
            var failed: [String: StorageError] = [:]
            if !dryRun {
                let manifests = ordered.prefix { $0.key.hasSuffix("/layer_manifest.json") }
                failed = storage.delete(all: manifests.map(\.key))
                failed.merge(storage.delete(all: ordered.dropFirst(manifests.count).map(\.key))) { a, _ in a }
            }
            for object in ordered {
                if failed[object.key] != nil {
                    outcome.failures += 1
                    continue
                }
                outcome.objects += 1
                outcome.bytes += object.bytes
            }
        }
        return outcome
    }
}
