import Foundation
import JSONCore
import ObjectStorage
import PGQueue

/// The orphan sweep of `run`: objects under `rooms/` that no row refers to, which the deletion
/// queue cannot know of (rows removed by `TRUNCATE` or before migration 19, restores, objects an
/// attempt wrote after its version's deletion).
///
/// Every `TRANSCODE_ORPHAN_INTERVAL_SECONDS`, one replica at a time (a session advisory lock), it
/// lists `rooms/` in the source store and in the output store and groups the objects by prefix:
/// `rooms/<room>/` when the room has no row, else `rooms/<room>/versions/<version>/` when the
/// version has none. A prefix is an orphan when every object under it is older than
/// `TRANSCODE_ORPHAN_GRACE_SECONDS` and the deletion queue holds nothing of that room or version
/// (the deletion sweep owns those). Each orphan prefix gets a log line (store, prefix, objects,
/// bytes); with `TRANSCODE_ORPHAN_SWEEP=dry-run` (the default) nothing is deleted, with `on` its
/// objects are. Keys whose room or version segment is not a uuid are never touched. Counts what
/// it found or deleted in `Metrics`.
final class OrphanSweeper: @unchecked Sendable {
    /// What one pass found.
    struct Outcome: Equatable, Sendable {
        /// Orphan prefixes found.
        var prefixes: [String] = []
        /// Objects under them, found (dry run) or deleted.
        var objects = 0
        var bytes = 0
        /// Listings or deletes that failed (retried by the next pass).
        var failures = 0
    }

    /// Ids checked against the database per query.
    static let idsPerQuery = 500

    private let config: WorkerConfig
    private let stores: [any ObjectStore]
    private let logger: JSONLogger
    private let metrics: Metrics
    private let periodic = PeriodicThread()

    init(config: WorkerConfig, sources: any ObjectStore, outputs: any ObjectStore, logger: JSONLogger, metrics: Metrics) {
        self.config = config
        self.stores = DeletionSweeper.distinct([sources, outputs])
        self.logger = logger
        self.metrics = metrics
    }

    /// Starts the thread: the first pass after one interval (no-op when the sweep is off or there
    /// is no database).
    func start() {
        let settings = config.deletion
        guard settings.orphanMode != .off, settings.orphanIntervalSeconds > 0, let url = config.databaseURL else { return }
        periodic.start(name: "orphan-sweeper", interval: settings.orphanIntervalSeconds, runAtStart: false) { [self] in
            sweepOnce(url: url)
        }
    }

    /// Asks the thread to stop.
    func stop() { periodic.stop() }

    private func sweepOnce(url: String) {
        do {
            let connection = try PGConnection(url: url, applicationName: "transcode-worker orphans")
            defer { connection.close() }
            let store = QueueStore(connection: connection)
            guard try store.tryLockOrphanSweep() else { return }
            defer { _ = try? store.unlockOrphanSweep() }
            let dryRun = config.deletion.orphanMode != .on
            let outcome = try Self.sweep(store: store, stores: stores, graceSeconds: config.deletion.orphanGraceSeconds,
                                         dryRun: dryRun, logger: logger, shouldStop: { self.periodic.shouldStop })
            metrics.orphansSwept(mode: dryRun ? "dry-run" : "on", objects: outcome.objects, bytes: outcome.bytes)
            logger.info("orphan sweep finished", ["dry_run": .bool(dryRun), "prefixes": .int(Int64(outcome.prefixes.count)),
                                                  "objects": .int(Int64(outcome.objects)), "bytes": .int(Int64(outcome.bytes)),
                                                  "failures": .int(Int64(outcome.failures))])
        } catch {
            logger.warn("orphan sweep failed; retrying at the next interval", ["error": .string("\(error)")])
        }
    }

    /// One pass over `stores` (see the type's notes); `now` is seconds since 1970. Throws
    /// `DatabaseError`; a store that cannot be listed is logged and counted in `failures`.
    static func sweep(store: QueueStore, stores: [any ObjectStore], graceSeconds: Double, dryRun: Bool, logger: JSONLogger?,
                      now: Double = Date().timeIntervalSince1970, shouldStop: () -> Bool = { false }) throws(DatabaseError) -> Outcome {
        var outcome = Outcome()
        for objectStore in stores where !shouldStop() {
            let objects: [StoredObject]
            do { objects = try objectStore.listObjects(prefix: "rooms/") } catch {
                outcome.failures += 1
                logger?.warn("orphan sweep: cannot list rooms/", ["storage": .string(objectStore.location), "error": .string(error.description)])
                continue
            }
            let groups = try orphanGroups(objects, store: store)
            for (prefix, members) in groups.sorted(by: { $0.key < $1.key }) where !shouldStop() {
                guard members.allSatisfy({ now - $0.modified >= graceSeconds }) else { continue }
                let bytes = members.reduce(0) { $0 + $1.bytes }
                outcome.prefixes.append(prefix)
                logger?.warn(dryRun ? "orphan sweep (dry run): would delete a prefix with no row" : "orphan sweep: deleting a prefix with no row",
                             ["storage": .string(objectStore.location), "bucket": .string(objectStore.bucket), "prefix": .string(prefix),
                              "objects": .int(Int64(members.count)), "bytes": .int(Int64(bytes)), "dry_run": .bool(dryRun)])
                if dryRun {
                    outcome.objects += members.count
                    outcome.bytes += bytes
                    continue
                }
                let failed = objectStore.delete(all: members.map(\.key))
                (objectStore as? FileObjectStore)?.removeEmptyDirectories(under: prefix)
                outcome.failures += failed.count
                outcome.objects += members.count - failed.count
                outcome.bytes += members.filter { failed[$0.key] == nil }.reduce(0) { $0 + $1.bytes }
            }
        }
        return outcome
    }

    /// The objects of `objects` (all under `rooms/`) that lie under a prefix with no row, by that
    /// prefix; rooms and versions the deletion queue still holds are left out. Throws
    /// `DatabaseError`.
    static func orphanGroups(_ objects: [StoredObject], store: QueueStore) throws(DatabaseError) -> [String: [StoredObject]] {
        var byRoom: [String: [(object: StoredObject, version: String?)]] = [:]
        for object in objects {
            let parts = object.key.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
            guard parts.count >= 3, parts[0] == "rooms", QueueStore.isUUID(parts[1]), parts[1] == parts[1].lowercased() else { continue }
            var version: String?
            if parts.count >= 5, parts[2] == "versions" {
                guard QueueStore.isUUID(parts[3]), parts[3] == parts[3].lowercased() else { continue }
                version = parts[3]
            }
            byRoom[parts[1], default: []].append((object, version))
        }
        let rooms = Array(byRoom.keys)
        let versions = Array(Set(byRoom.values.flatMap { $0.compactMap(\.version) }))
        var liveRooms: Set<String> = [], liveVersions: Set<String> = [], queued: Set<String> = []
        for chunk in chunks(rooms) {
            liveRooms.formUnion(try store.existing(chunk, versions: false))
            queued.formUnion(try store.queuedForDeletion(chunk))
        }
        for chunk in chunks(versions) {
            liveVersions.formUnion(try store.existing(chunk, versions: true))
            queued.formUnion(try store.queuedForDeletion(chunk))
        }
        var groups: [String: [StoredObject]] = [:]
        for (room, members) in byRoom where !queued.contains(room) {
            if !liveRooms.contains(room) {
                groups["rooms/\(room)/"] = members.map(\.object)
                continue
            }
            for member in members {
                guard let version = member.version, !liveVersions.contains(version), !queued.contains(version) else { continue }
                groups["rooms/\(room)/versions/\(version)/", default: []].append(member.object)
            }
        }
        return groups
    }

    private static func chunks(_ ids: [String]) -> [[String]] {
        stride(from: 0, to: ids.count, by: idsPerQuery).map { Array(ids[$0..<min($0 + idsPerQuery, ids.count)]) }
    }
}
