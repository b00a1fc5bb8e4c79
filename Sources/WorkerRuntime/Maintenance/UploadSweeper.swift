import Foundation
import JSONCore
import ObjectStorage
import PGQueue

/// The upload sweep of `run`: versions whose upload-complete call never arrived.
///
/// Every `TRANSCODE_RESCUE_SECONDS` (the rescuer's cadence), on a thread and a database
/// connection of its own, it looks at versions still `uploading` whose row has not changed
/// (`updated_at`, so a backend that touches the row while an upload progresses postpones both
/// steps) for `TRANSCODE_UPLOAD_STALE_SECONDS` or longer, oldest first, `passLimit` per pass:
///
/// - when every source key of the row (at least one of `source_usdz_path`, `source_json_path`)
///   lies below the version's source prefix and the object exists, the version is queued with the
///   statement of `enqueue` (fenced on `status = 'uploading'`, so a concurrent enqueue has no
///   second effect; the wake-up trigger announces it);
/// - when the row has not changed for `TRANSCODE_UPLOAD_EXPIRE_SECONDS` and a source is missing,
///   its key is refused, or it has no source key, the version fails with the permanent reason
///   `UPLOAD_EXPIRED` and its `failed` event (`transcode_expire_upload`, migration 7);
/// - otherwise (sources not there yet, or storage unreachable) it stays as it is.
///
/// Each version is looked at in a short transaction of its own that holds its row
/// (`FOR UPDATE SKIP LOCKED`), so replicas sweeping at once take different versions and an enqueue
/// of that version waits at most for its storage checks. Counts what it did in `Metrics`.
final class UploadSweeper: @unchecked Sendable {
    /// Versions looked at per pass, at most.
    static let passLimit = 100

    /// What one pass did.
    struct Outcome: Equatable, Sendable {
        /// Versions queued (sources found).
        var requeued = 0
        /// Versions failed with `UPLOAD_EXPIRED`.
        var expired = 0
        /// Versions left `uploading` (sources not there yet, expiry not reached).
        var waiting = 0
        /// Versions whose storage could not be checked (left for the next pass).
        var failures = 0
    }

    /// Where a version's sources stand.
    enum SourceState: Equatable {
        /// Every source key is confined and its object exists.
        case present
        /// A source is missing, refused or not recorded; `why` is for logs.
        case absent(why: String)
        /// Storage could not answer (retryable); `error` is for logs.
        case unknown(error: String)
    }

    private let config: WorkerConfig
    private let storage: any ObjectStore
    private let logger: JSONLogger
    private let metrics: Metrics
    private let periodic = PeriodicThread()
    private var connection: PGConnection?

    init(config: WorkerConfig, storage: any ObjectStore, logger: JSONLogger, metrics: Metrics) {
        self.config = config
        self.storage = storage
        self.logger = logger
        self.metrics = metrics
    }

    /// Why the upload settings cannot be used together, or nil: the expiry may not be shorter
    /// than the stale time when both are set (a version would fail before it could be queued).
    static func configProblem(_ config: WorkerConfig) -> String? {
        guard config.uploadStaleSeconds > 0, config.uploadExpireSeconds > 0,
              config.uploadExpireSeconds < config.uploadStaleSeconds else { return nil }
        return "TRANSCODE_UPLOAD_EXPIRE_SECONDS (\(config.uploadExpireSeconds)) must not be shorter than "
            + "TRANSCODE_UPLOAD_STALE_SECONDS (\(config.uploadStaleSeconds))"
    }

    /// Starts the thread, which sweeps at once and then every `rescueSeconds` (no-op when both
    /// upload settings are 0 or there is no database).
    func start() {
        guard config.uploadStaleSeconds > 0 || config.uploadExpireSeconds > 0, let url = config.databaseURL else { return }
        periodic.start(name: "upload-sweeper", interval: config.rescueSeconds, runAtStart: true,
                       body: { [self] in sweepOnce(url: url) }, finally: { [self] in connection?.close() })
    }

    /// Asks the thread to stop (it finishes the version it is on).
    func stop() { periodic.stop() }

    private var shouldStop: Bool { periodic.shouldStop }

    private func sweepOnce(url: String) {
        do {
            let c = try connection ?? PGConnection(url: url, applicationName: "transcode-worker uploads")
            connection = c
            let outcome = try Self.sweep(store: QueueStore(connection: c), storage: storage, config: config, logger: logger,
                                         shouldStop: { self.shouldStop })
            metrics.uploadsSwept(requeued: outcome.requeued, expired: outcome.expired)
            if outcome != Outcome() {
                logger.info("upload sweep finished", ["requeued": .int(Int64(outcome.requeued)), "expired": .int(Int64(outcome.expired)),
                                                      "waiting": .int(Int64(outcome.waiting)), "failures": .int(Int64(outcome.failures))])
            }
        } catch {
            logger.warn("upload sweep failed; retrying at the next interval", ["error": .string("\(error)")])
        }
    }

    /// One pass: at most `limit` stale `uploading` versions, oldest first, each in a transaction
    /// of its own on `store`'s connection (which must have none open). Throws `DatabaseError`
    /// (the version being looked at is left unchanged).
    static func sweep(store: QueueStore, storage: any ObjectStore, config: WorkerConfig, logger: JSONLogger?,
                      limit: Int = passLimit, shouldStop: () -> Bool = { false }) throws(DatabaseError) -> Outcome {
        let stale = config.uploadStaleSeconds, expire = config.uploadExpireSeconds
        guard let quiet = [stale, expire].filter({ $0 > 0 }).min() else { return Outcome() }
        var outcome = Outcome()
        var after: (updatedAt: String, versionId: String)?
        for _ in 0..<max(0, limit) where !shouldStop() {
            try store.connection.query("BEGIN")
            do {
                guard let version = try store.nextStaleUpload(quietSeconds: quiet, after: after) else {
                    try store.connection.query("COMMIT")
                    break
                }
                after = (version.updatedAt, version.versionId)
                let fields: [String: JSONValue] = ["version_id": .string(version.versionId), "room_id": .string(version.roomId),
                                                   "quiet_seconds": .double(version.quietSeconds.rounded())]
                switch sourceState(version, storage: storage, template: config.sourcePrefixTemplate) {
                case .present where stale > 0 && version.quietSeconds >= stale:
                    if try store.requeueUpload(versionId: version.versionId) {
                        outcome.requeued += 1
                        logger?.warn("upload-complete never came: sources are in storage, queued", fields)
                    }
                case .absent(let why) where expire > 0 && version.quietSeconds >= expire:
                    if try store.expireUpload(versionId: version.versionId) {
                        outcome.expired += 1
                        logger?.warn("upload expired: failed with UPLOAD_EXPIRED", fields.merging(["why": .string(why)]) { a, _ in a })
                    }
                case .unknown(let error):
                    outcome.failures += 1
                    logger?.warn("upload sweep: cannot check a version's sources", fields.merging(["error": .string(error)]) { a, _ in a })
                default:
                    outcome.waiting += 1
                }
                try store.connection.query("COMMIT")
            } catch {
                _ = try? store.connection.query("ROLLBACK")
                throw error
            }
        }
        return outcome
    }

    /// Checks the version's source keys: each must lie below its source prefix, and the row's
    /// `source_bucket` (when set) must be the store's (`StorageConfinement.check`), before storage
    /// is asked whether the object exists.
    static func sourceState(_ version: QueueStore.StaleUpload, storage: any ObjectStore, template: String) -> SourceState {
        // A home's rooms (`source_rooms`) replace the single source when they are named.
        let keys = version.roomKeys.isEmpty
            ? [("source", version.sourceUSDZPath), ("JSON", version.sourceJSONPath)].compactMap { what, key in key.map { (what, $0) } }
            : version.roomKeys.map { ("room source", $0) }
        guard !keys.isEmpty else { return .absent(why: "no source key recorded") }
        let prefix = StorageConfinement.prefix(template, roomId: version.roomId, versionId: version.versionId)
        for (what, key) in keys {
            do { try StorageConfinement.check(key, under: prefix, what: what) } catch { return .absent(why: "the \(what) key is refused") }
        }
        do { try StorageConfinement.check(bucket: version.sourceBucket, store: storage) } catch {
            return .absent(why: "the source bucket is refused")
        }
        for (what, key) in keys {
            do {
                guard try storage.size(key) != nil else { return .absent(why: "the \(what) object is missing") }
            } catch {
                if error.code == .invalidKey { return .absent(why: "the \(what) key is refused") }
                return .unknown(error: "\(error.code): \(error.message)")
            }
        }
        return .present
    }
}
