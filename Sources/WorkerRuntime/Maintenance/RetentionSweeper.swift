import Foundation
import JSONCore
import ObjectStorage
import PGQueue

/// Retention (off unless set): `TRANSCODE_SOURCE_RETENTION_DAYS` and
/// `TRANSCODE_REDACTION_RETENTION_DAYS` after a version became ready, its uploaded sources, or its
/// redaction rows and their privacy crops, are deleted, and the version records it (migration 21).
///
/// What it costs: a re-transcode needs the sources and the areas. A version whose sources were
/// deleted fails a later re-transcode at once with `SOURCE_NOT_FOUND` (`SOURCE_EXPIRED` in the
/// detail), and one whose redactions were deleted with `REDACTION_INVALID` (`REDACTIONS_ERASED`):
/// as reprocesses, both stay `ready` on the outputs they have, which were made with the blur.
///
/// Every `passSeconds`, on a thread and a connection of its own; each version in a short
/// transaction that holds its row (`SKIP LOCKED`, so replicas take different versions). Only keys
/// below the version's source prefix are deleted; any other key is logged and left.
final class RetentionSweeper: @unchecked Sendable {
    /// Seconds between passes.
    static let passSeconds = 600.0
    /// Versions handled per pass, at most.
    static let passLimit = 200

    private let config: WorkerConfig
    private let storage: any ObjectStore
    private let logger: JSONLogger
    private let periodic = PeriodicThread()
    private var connection: PGConnection?

    init(config: WorkerConfig, storage: any ObjectStore, logger: JSONLogger) {
        self.config = config
        self.storage = storage
        self.logger = logger
    }

    /// Starts the thread (no-op when neither setting is on or there is no database).
    func start() {
        let d = config.deletion
        guard d.sourceRetentionDays > 0 || d.redactionRetentionDays > 0, let url = config.databaseURL else { return }
        periodic.start(name: "retention", interval: Self.passSeconds, runAtStart: true,
                       body: { [self] in passOnce(url: url) }, finally: { [self] in connection?.close() })
    }

    func stop() { periodic.stop() }

    private func passOnce(url: String) {
        do {
            let c = try connection ?? PGConnection(url: url, applicationName: "transcode-worker retention")
            connection = c
            let n = try Self.sweep(store: QueueStore(connection: c), storage: storage, config: config, logger: logger)
            if n.sources + n.redactions > 0 {
                logger.info("retention pass finished", ["sources_erased": .int(Int64(n.sources)), "redactions_erased": .int(Int64(n.redactions))])
            }
        } catch {
            connection?.close()
            connection = nil
            logger.warn("retention pass failed; retrying at the next interval", ["error": .string("\(error)")])
        }
    }

    /// One pass: versions whose redactions, then whose sources, are due. Returns how many of each
    /// were erased. Throws `DatabaseError`; a storage failure leaves that version for the next pass.
    static func sweep(store: QueueStore, storage: any ObjectStore, config: WorkerConfig,
                      logger: JSONLogger?) throws(DatabaseError) -> (sources: Int, redactions: Int) {
        let d = config.deletion
        var done = (sources: 0, redactions: 0)
        if d.redactionRetentionDays > 0 {
            try store.connection.query("BEGIN")
            do {
                let erased = try store.eraseRedactions(olderThanSeconds: d.redactionRetentionDays * 86_400, limit: passLimit)
                try store.connection.query("COMMIT")
                for v in erased {
                    delete(v.crops, version: v.versionId, room: v.roomId, storage: storage, config: config, logger: logger)
                }
                done.redactions = erased.count
            } catch {
                _ = try? store.connection.query("ROLLBACK")
                throw error
            }
        }
        guard d.sourceRetentionDays > 0 else { return done }
        for _ in 0..<passLimit {
            try store.connection.query("BEGIN")
            do {
                guard let v = try store.nextSourcesToErase(olderThanSeconds: d.sourceRetentionDays * 86_400) else {
                    try store.connection.query("COMMIT")
                    break
                }
                let prefix = StorageConfinement.prefix(config.sourcePrefixTemplate, roomId: v.roomId, versionId: v.versionId)
                let listed = (try? storage.list(prefix: prefix + "redacted/")) ?? []
                if delete(v.keys + listed, version: v.versionId, room: v.roomId, storage: storage, config: config, logger: logger) {
                    try store.markSourcesErased(versionId: v.versionId)
                    done.sources += 1
                }
                try store.connection.query("COMMIT")
            } catch {
                _ = try? store.connection.query("ROLLBACK")
                throw error
            }
        }
        return done
    }

    /// Deletes `keys` that lie below the version's source prefix; true when none failed.
    @discardableResult
    static func delete(_ keys: [String], version: String, room: String, storage: any ObjectStore,
                       config: WorkerConfig, logger: JSONLogger?) -> Bool {
        let prefix = StorageConfinement.prefix(config.sourcePrefixTemplate, roomId: room, versionId: version)
        var ok = true
        for key in Set(keys).sorted() {
            guard (try? StorageConfinement.check(key, under: prefix, what: "retained object")) != nil else {
                logger?.warn("retention: a key outside the version's prefix is left", ["version_id": .string(version), "key": .string(key)])
                continue
            }
            do { try storage.delete(key) } catch {
                if error.code == .notFound { continue }
                ok = false
                logger?.warn("retention: cannot delete an object", ["key": .string(key), "error": .string(error.description)])
            }
        }
        return ok
    }
}
