import Foundation
import ObjectStorage
import PGQueue

/// The periodic storage sweep of `run`: every `TRANSCODE_GC_INTERVAL_SECONDS`, on a thread and a
/// database connection of its own, one replica at a time (a session advisory lock), deletes the
/// revision directories that no version refers to and that are older than
/// `TRANSCODE_GC_GRACE_SECONDS` (`OutputCollector`, sweep mode), for versions changed within
/// `TRANSCODE_GC_LOOKBACK_SECONDS`. Counts what it removed in `Metrics`.
public final class OutputSweeper: @unchecked Sendable {
    private let config: WorkerConfig
    private let storage: any ObjectStore
    private let logger: JSONLogger
    private let metrics: Metrics
    private let periodic = PeriodicThread()

    init(config: WorkerConfig, storage: any ObjectStore, logger: JSONLogger, metrics: Metrics) {
        self.config = config
        self.storage = storage
        self.logger = logger
        self.metrics = metrics
    }

    /// Starts the thread (no-op when the interval is 0 or there is no database).
    func start() {
        guard config.gcIntervalSeconds > 0, let url = config.databaseURL else { return }
        periodic.start(name: "output-sweeper", interval: config.gcIntervalSeconds, runAtStart: false) { [self] in
            sweepOnce(url: url)
        }
    }

    /// Asks the thread to stop (it finishes the version it is on).
    func stop() { periodic.stop() }

    private var shouldStop: Bool { periodic.shouldStop }

    private func sweepOnce(url: String) {
        do {
            let connection = try PGConnection(url: url, applicationName: "transcode-worker gc")
            defer { connection.close() }
            let store = QueueStore(connection: connection)
            guard try store.tryLockCollector() else {
                logger.info("storage sweep skipped: another worker is sweeping")
                return
            }
            defer { _ = try? store.unlockCollector() }
            let outcome = try Self.sweep(store: store, collector: OutputCollector(storage: storage), lookbackSeconds: config.gcLookbackSeconds,
                                         graceSeconds: config.gcGraceSeconds, dryRun: false, logger: logger, shouldStop: { self.shouldStop })
            metrics.outputsCollected(objects: outcome.objects, bytes: outcome.bytes, failures: outcome.failures)
            logger.info("storage sweep finished", ["objects": .int(Int64(outcome.objects)), "bytes": .int(Int64(outcome.bytes)),
                                                   "failures": .int(Int64(outcome.failures)),
                                                   "directories": .int(Int64(outcome.directories.count))])
        } catch {
            logger.warn("storage sweep failed; retrying at the next interval", ["error": .string("\(error)")])
        }
    }

    /// Sweeps every version changed within `lookbackSeconds` (nil: all), 200 per page. A
    /// version whose objects cannot be listed is logged and skipped. Throws `DatabaseError`.
    public static func sweep(store: QueueStore, collector: OutputCollector, lookbackSeconds: Double?, graceSeconds: Double,
                      dryRun: Bool, logger: JSONLogger?, shouldStop: () -> Bool = { false }) throws(DatabaseError) -> OutputCollector.Outcome {
        var total = OutputCollector.Outcome()
        var after: String?
        while !shouldStop() {
            let page = try store.collectorTargets(lookbackSeconds: lookbackSeconds, after: after, limit: 200)
            for target in page {
                do {
                    total.add(try collector.collect(target, mode: .sweep(graceSeconds: graceSeconds, now: Date().timeIntervalSince1970),
                                                    dryRun: dryRun))
                } catch {
                    total.failures += 1
                    logger?.warn("storage sweep: cannot list a version's objects", ["version_id": .string(target.versionId),
                                                                                   "error": .string(error.description)])
                }
            }
            guard page.count == 200, let last = page.last else { break }
            after = last.versionId
        }
        return total
    }
}
