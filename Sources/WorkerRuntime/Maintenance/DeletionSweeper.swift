import Foundation
import JSONCore
import ObjectStorage
import PGQueue

/// The deletion sweep of `run`: the stored objects of deleted rooms and versions.
///
/// Deleting a row of `rooms` or `transcode_private.room_versions` (account deletion, a cascade,
/// the backend) writes a row of `transcode_private.deletions` in the same transaction (migration
/// 19). Every `TRANSCODE_DELETION_INTERVAL_SECONDS`, on a thread and a database connection of its
/// own, this sweep takes the due rows one at a time, each in a short transaction that holds it
/// (`FOR UPDATE SKIP LOCKED`, so replicas share the work and a worker that dies mid-way leaves the
/// row to the next), and deletes, in the source store and in the output store:
///
/// - for a version: every object under `rooms/<room>/versions/<version>/` (sources, redacted
///   textures, every output revision with its thumbnails and report), every object under the
///   version's source prefix when `TRANSCODE_SOURCE_PREFIX` names `{version_id}`, and the keys
///   the row named that lie under its source prefix;
/// - for a room: every object under `rooms/<room>/`.
///
/// A file store's directories that end up empty there go too. Keys the row named elsewhere are
/// never deleted (a row's keys are the backend's and could name
/// another room's objects): they are logged. When everything is gone the row is deleted; when
/// storage fails the row stays with `attempts + 1`, `last_error` and a later `next_at`
/// (`DeletionSettings.retryDelay`). A row whose room or version exists again (a restore) is
/// dropped without deleting anything. Counts what it did in `Metrics`.
final class DeletionSweeper: @unchecked Sendable {
    /// Deletions handled per pass, at most.
    static let passLimit = 100

    /// What one pass did.
    struct Outcome: Equatable, Sendable {
        /// Deletions finished (their rows removed).
        var finished = 0
        /// Objects deleted.
        var objects = 0
        /// Deletions postponed after a storage failure.
        var failures = 0
        /// Deletions dropped because their row exists again.
        var skipped = 0
        /// Named keys left because they lie outside the deleted row's prefixes.
        var refusedKeys = 0
    }

    private let config: WorkerConfig
    private let sources: any ObjectStore
    private let outputs: any ObjectStore
    private let logger: JSONLogger
    private let metrics: Metrics
    private let periodic = PeriodicThread()
    private var connection: PGConnection?

    init(config: WorkerConfig, sources: any ObjectStore, outputs: any ObjectStore, logger: JSONLogger, metrics: Metrics) {
        self.config = config
        self.sources = sources
        self.outputs = outputs
        self.logger = logger
        self.metrics = metrics
    }

    /// Starts the thread, which sweeps at once and then every interval (no-op when the interval
    /// is 0 or there is no database).
    func start() {
        guard config.deletion.intervalSeconds > 0, let url = config.databaseURL else { return }
        periodic.start(name: "deletion-sweeper", interval: config.deletion.intervalSeconds, runAtStart: true,
                       body: { [self] in sweepOnce(url: url) }, finally: { [self] in connection?.close() })
    }

    /// Asks the thread to stop (it finishes the deletion it is on).
    func stop() { periodic.stop() }

    private func sweepOnce(url: String) {
        do {
            let c = try connection ?? PGConnection(url: url, applicationName: "transcode-worker deletions")
            connection = c
            let store = QueueStore(connection: c)
            let outcome = try Self.sweep(store: store, sources: sources, outputs: outputs, config: config, logger: logger,
                                         shouldStop: { self.periodic.shouldStop })
            let pending = try store.pendingDeletions()
            metrics.deletionsSwept(finished: outcome.finished, objects: outcome.objects, failures: outcome.failures,
                                   skipped: outcome.skipped, pending: pending.count, oldestSeconds: pending.oldestSeconds)
        } catch {
            connection?.close()
            connection = nil
            logger.warn("deletion sweep failed; retrying at the next interval", ["error": .string("\(error)")])
        }
    }

    /// One pass: at most `limit` due deletions, each in a transaction of its own on `store`'s
    /// connection (which must have none open). Throws `DatabaseError` (the deletion being
    /// handled stays queued).
    static func sweep(store: QueueStore, sources: any ObjectStore, outputs: any ObjectStore, config: WorkerConfig,
                      logger: JSONLogger?, limit: Int = passLimit, shouldStop: () -> Bool = { false }) throws(DatabaseError) -> Outcome {
        var outcome = Outcome()
        for _ in 0..<max(0, limit) where !shouldStop() {
            try store.connection.query("BEGIN")
            do {
                guard let target = try store.nextDeletion() else {
                    try store.connection.query("COMMIT")
                    break
                }
                var fields: [String: JSONValue] = ["room_id": .string(target.roomId), "reason": .string(target.reason),
                                                   "attempts": .int(Int64(target.attempts)), "age_s": .double(target.ageSeconds.rounded())]
                if let v = target.versionId { fields["version_id"] = .string(v) }
                if target.rowExists {
                    try store.finishDeletion(id: target.id)
                    outcome.skipped += 1
                    logger?.warn("deletion dropped: the row exists again, nothing deleted", fields)
                } else {
                    try handle(target, store: store, sources: sources, outputs: outputs, config: config, logger: logger,
                               fields: fields, outcome: &outcome)
                }
                try store.connection.query("COMMIT")
            } catch {
                _ = try? store.connection.query("ROLLBACK")
                throw error
            }
        }
        return outcome
    }

    /// Deletes the objects of a locked deletion, then its row; on a storage failure, postpones it.
    private static func handle(_ target: DeletionTarget, store: QueueStore, sources: any ObjectStore, outputs: any ObjectStore,
                               config: WorkerConfig, logger: JSONLogger?, fields: [String: JSONValue],
                               outcome: inout Outcome) throws(DatabaseError) {
        var fields = fields
        let result: Result<(objects: Int, refused: [String]), StorageError>
        do { result = .success(try remove(target, sources: sources, outputs: outputs, template: config.sourcePrefixTemplate)) } catch {
            result = .failure(error)
        }
        switch result {
        case .success(let done):
            try store.finishDeletion(id: target.id)
            outcome.finished += 1
            outcome.objects += done.objects
            outcome.refusedKeys += done.refused.count
            fields["objects"] = .int(Int64(done.objects))
            logger?.info("stored objects of a deleted \(target.versionId == nil ? "room" : "version") deleted", fields)
            if !done.refused.isEmpty {
                logger?.warn("deletion: keys outside the deleted row's prefixes left in place",
                             fields.merging(["keys": .array(done.refused.prefix(20).map { .string(String($0.prefix(300))) })]) { a, _ in a })
            }
            let elsewhere = target.buckets.filter { $0 != sources.bucket && $0 != outputs.bucket }
            if !elsewhere.isEmpty {
                logger?.warn("deletion: the row recorded buckets this worker does not serve; their objects are left",
                             fields.merging(["buckets": .array(elsewhere.map { .string($0) })]) { a, _ in a })
            }
        case .failure(let error):
            let delay = config.deletion.retryDelay(afterAttempts: target.attempts)
            try store.postponeDeletion(id: target.id, retryInSeconds: delay, error: error.description)
            outcome.failures += 1
            logger?.warn("deletion failed; retrying later", fields.merging(["error": .string(error.description),
                                                                            "retry_in_s": .double(delay)]) { a, _ in a })
        }
    }

    /// Where a deletion's objects are: (store, prefix) pairs, and the source prefix its named keys
    /// must lie under.
    static func plan(_ target: DeletionTarget, sources: any ObjectStore, outputs: any ObjectStore,
                     template: String) -> (prefixes: [(store: any ObjectStore, prefix: String)], namedKeysUnder: String) {
        let stores = distinct([sources, outputs])
        guard let version = target.versionId else {
            let room = "rooms/\(target.roomId)/"
            return (stores.map { ($0, room) }, room)
        }
        let root = StorageConfinement.outputRoot(roomId: target.roomId, versionId: version)
        var prefixes: [(store: any ObjectStore, prefix: String)] = stores.map { ($0, root) }
        let sourcePrefix = StorageConfinement.prefix(template, roomId: target.roomId, versionId: version)
        if template.contains("{version_id}") && !sourcePrefix.hasPrefix(root) {
            prefixes.append((sources, sourcePrefix))
        }
        return (prefixes, sourcePrefix)
    }

    /// Deletes every object of `target` (see the type's notes). Returns how many objects were
    /// deleted and the named keys left because they lie elsewhere. Throws the first
    /// `StorageError` of a listing or a delete (nothing is retried here).
    static func remove(_ target: DeletionTarget, sources: any ObjectStore, outputs: any ObjectStore,
                       template: String) throws(StorageError) -> (objects: Int, refused: [String]) {
        guard QueueStore.isUUID(target.roomId), target.versionId.map(QueueStore.isUUID) ?? true else {
            throw StorageError(code: .invalidKey, message: "the deletion names an id that is not a uuid")
        }
        let (prefixes, namedUnder) = plan(target, sources: sources, outputs: outputs, template: template)
        var objects = 0
        for (store, prefix) in prefixes {
            let keys = try store.list(prefix: prefix)
            if let failed = store.delete(all: keys).sorted(by: { $0.key < $1.key }).first { throw failed.value }
            objects += keys.count
            (store as? FileObjectStore)?.removeEmptyDirectories(under: prefix)
        }
        var refused: [String] = []
        var named: [String] = []
        for key in Set(target.keys).sorted() {
            if prefixes.contains(where: { key.hasPrefix($0.prefix) }) { continue }
            if key.hasPrefix(namedUnder), (try? ObjectKey.validate(key)) != nil { named.append(key) } else { refused.append(key) }
        }
        if let failed = sources.delete(all: named).sorted(by: { $0.key < $1.key }).first { throw failed.value }
        return (objects, refused)
    }

    /// `stores` without repeats (the same store for sources and outputs counts once).
    static func distinct(_ stores: [any ObjectStore]) -> [any ObjectStore] {
        var seen: Set<String> = []
        return stores.filter { seen.insert($0.location + "\u{0}" + $0.bucket + "\u{0}" + $0.keyPrefix).inserted }
    }
}
