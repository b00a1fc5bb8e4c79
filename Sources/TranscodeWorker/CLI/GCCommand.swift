import Foundation
import PGQueue
import WorkerRuntime
import WorkerCore

/// `transcode-worker gc`: deletes output revisions that no version refers to.
struct GCCommand {
    static let help = """
        USAGE: transcode-worker gc [--dry-run] [--all | --version VERSION_ID] [--grace-seconds S] [options]

        Deletes, from the output storage (TRANSCODE_OUTPUT_STORAGE_URL / --output-storage-url when
        set, else the storage), the output revisions (rooms/<room>/versions/<version>/r<N>-<lease8>/)
        that no version refers to: revisions superseded by a newer ready one, and the outputs of
        attempts that never finished (a lost transcode-done answer, a failed version, a crashed
        worker). The revision a version's glb_path names and the revision of a running attempt are
        always kept; sources and redacted textures are never touched. `run` does the same every
        TRANSCODE_GC_INTERVAL_SECONDS, and deletes a version's superseded revisions as soon as a
        newer one is ready.

        OPTIONS:
          --dry-run                 List what would be deleted; delete nothing.
          --all                     Every version (default: versions changed within
                                    TRANSCODE_GC_LOOKBACK_SECONDS, two days).
          --version VERSION_ID      Only this version.
          --grace-seconds S         Keep unreferenced revisions younger than S seconds (default
                                    TRANSCODE_GC_GRACE_SECONDS, 3600; at least 60: an attempt
                                    still reporting must not lose its outputs).
        \(DatabaseOptions.helpLines)

        JSON (--json): {"dry_run", "objects", "bytes", "failures", "directories": [prefix…]}

        \(DatabaseOptions.exitHelp)
        """

    var options: DatabaseOptions
    var dryRun = false
    var all = false
    var versionId: String?

    init(_ args: [String]) throws {
        var dryRun = false, all = false, version: String?, grace: String?
        options = try DatabaseOptions(args) { flag, next in
            switch flag {
            case "--dry-run": dryRun = true
            case "--all": all = true
            case "--version": version = try next()
            case "--grace-seconds": grace = try next()
            default: return false
            }
            return true
        }
        if !options.positional.isEmpty { throw UsageError("gc takes no arguments") }
        if all && version != nil { throw UsageError("--all and --version cannot be combined") }
        if let grace { try options.config.assign("gc-grace-seconds", grace, name: "--grace-seconds") }
        self.dryRun = dryRun
        self.all = all
        versionId = try version.map { try DatabaseOptions.uuid($0, "--version") }
    }

    func run() throws -> Int32 {
        let storage = try options.openOutputStorage()
        let config = options.config
        return try options.withConnection { connection in
            let store = QueueStore(connection: connection)
            let collector = OutputCollector(storage: storage)
            var outcome = OutputCollector.Outcome()
            if let versionId {
                guard let target = try store.collectorTarget(versionId: versionId) else {
                    return options.fail(code: "VERSION_NOT_FOUND", message: "no version \(versionId)", status: ExitStatus.invalidInput,
                                        extra: ["version_id": .string(versionId)])
                }
                outcome = try collector.collect(target, mode: .sweep(graceSeconds: config.gcGraceSeconds, now: Date().timeIntervalSince1970),
                                                dryRun: dryRun)
            } else {
                outcome = try OutputSweeper.sweep(store: store, collector: collector, lookbackSeconds: all ? nil : config.gcLookbackSeconds,
                                                  graceSeconds: config.gcGraceSeconds, dryRun: dryRun, logger: nil)
            }
            if options.json {
                options.emitJSON(["dry_run": .bool(dryRun), "objects": .int(Int64(outcome.objects)), "bytes": .int(Int64(outcome.bytes)),
                                  "failures": .int(Int64(outcome.failures)), "directories": .array(outcome.directories.map { .string($0) })])
            } else {
                for d in outcome.directories { options.emit((dryRun ? "would delete " : "deleted ") + d) }
                options.emit("\(dryRun ? "would delete" : "deleted") \(outcome.objects) objects, \(outcome.bytes) bytes"
                             + " in \(outcome.directories.count) revisions" + (outcome.failures > 0 ? "; \(outcome.failures) failures" : ""))
            }
            return outcome.failures > 0 ? ExitStatus.internalError : ExitStatus.ok
        }
    }
}
