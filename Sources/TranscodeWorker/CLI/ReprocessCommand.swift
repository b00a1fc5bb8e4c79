import JSONCore
import PGQueue
import WorkerRuntime
import WorkerCore

/// `transcode-worker reprocess --below-schema N [--limit K] [--dry-run]` or `reprocess VERSION_ID`:
/// marks ready versions for re-transcoding without taking them offline.
struct ReprocessCommand {
    static let defaultLimit = 500

    static let help = """
        USAGE: transcode-worker reprocess --below-schema N [--limit K] [--force] [--dry-run] [options]
               transcode-worker reprocess VERSION_ID [--force] [--dry-run] [options]

        Marks `ready` versions to be transcoded again, e.g. after a change of the manifest schema.
        The rooms stay `ready` and keep serving their old outputs until the new ones are in: a
        worker writes the new files under a new output revision and only then swaps the paths
        (a reprocess that fails records the error and leaves the old outputs in place). Reprocess
        runs at priority 20, after fresh uploads (0) and operator retries (10), so a batch never
        starves new scans. Prints the versions marked.

        A re-transcode redoes only what changed: every output group (model, thumbnails, plan) whose
        key in the published manifest's `artifacts` equals the new one (same inputs, options and
        stage versions) is taken from the published revision and copied in storage instead of
        being made and uploaded again (TRANSCODE_INCREMENTAL_REPROCESS=off turns this off).

        OPTIONS:
          --below-schema N          Mark ready versions whose outputs were made with manifest
                                    schema version < N (or with none recorded).
          --limit K                 Mark at most K versions per call (default \(defaultLimit)). When the
                                    limit is reached, run the same command again until it marks 0.
          VERSION_ID                Mark this one ready version (exit 3 when it is not ready, is
                                    running, or is already marked).
          --force                   Redo every output of the marked versions, reusing nothing.
          --dry-run                 List what would be marked; change nothing.
        \(DatabaseOptions.helpLines)

        JSON (--json): {"dry_run", "count", "version_ids": […], "below_schema", "limit",
          "limit_reached", "priority": 20}

        \(DatabaseOptions.exitHelp)
        """

    var options: DatabaseOptions
    var versionId: String?
    var belowSchema: Int?
    var limit = ReprocessCommand.defaultLimit
    var dryRun = false
    var force = false

    init(_ args: [String]) throws {
        var below: Int?, limit: Int?, dryRun = false, force = false
        options = try DatabaseOptions(args) { flag, value in
            switch flag {
            case "--below-schema":
                let v = try value()
                guard let n = Int(v), n >= 1 else { throw UsageError("--below-schema needs an integer ≥ 1, got '\(v)'") }
                below = n
            case "--limit":
                let v = try value()
                guard let n = Int(v), n >= 1 else { throw UsageError("--limit needs an integer ≥ 1, got '\(v)'") }
                limit = n
            case "--dry-run": dryRun = true
            case "--force": force = true
            default: return false
            }
            return true
        }
        self.dryRun = dryRun
        self.force = force
        belowSchema = below
        if let id = try options.singlePositional("VERSION_ID") {
            guard below == nil, limit == nil else { throw UsageError("give either VERSION_ID or --below-schema, not both") }
            versionId = try DatabaseOptions.uuid(id, "VERSION_ID")
        } else if below == nil {
            throw UsageError("reprocess needs --below-schema N or a VERSION_ID")
        }
        if let limit { self.limit = limit }
    }

    func run() throws -> Int32 {
        try options.withConnection { connection in
            let store = QueueStore(connection: connection)
            let ids: [String]
            if let versionId {
                guard let row = try store.show(versionId: versionId) else {
                    return options.fail(code: "VERSION_NOT_FOUND", message: "no version \(versionId)",
                                        status: ExitStatus.invalidInput, extra: ["version_id": .string(versionId)])
                }
                let markable = row["status"] == "ready" && row["lease_id"] == nil && row["reprocess_requested_at"] == nil
                let done = dryRun ? markable : try store.markReprocess(versionId: versionId, force: force)
                guard done else {
                    let now = dryRun ? row : (try store.show(versionId: versionId) ?? row)
                    let status = now["status"] ?? "unknown"
                    let why = status != "ready" ? "it is \(status); only ready versions can be reprocessed"
                        + (status == "failed" ? " (use `transcode-worker retry \(versionId)`)" : "")
                        : now["lease_id"] != nil ? "a worker is transcoding it right now"
                        : "it is already marked for reprocessing"
                    return options.fail(code: "INVALID_STATE", message: "cannot reprocess \(versionId): \(why)",
                                        status: ExitStatus.invalidInput,
                                        extra: ["version_id": .string(versionId), "status": .string(status)])
                }
                ids = [versionId]
            } else {
                ids = try store.markReprocess(belowSchema: belowSchema ?? 1, limit: limit, dryRun: dryRun, force: force)
            }
            let limitReached = versionId == nil && ids.count >= limit
            if options.json {
                options.emitJSON([
                    "dry_run": .bool(dryRun), "count": .int(Int64(ids.count)),
                    "version_ids": .array(ids.map(JSONValue.string)),
                    "below_schema": belowSchema.map { .int(Int64($0)) } ?? .null,
                    "limit": versionId == nil ? .int(Int64(limit)) : .null,
                    "limit_reached": .bool(limitReached), "priority": .int(20),
                ])
                return ExitStatus.ok
            }
            let noun = ids.count == 1 ? "version" : "versions"
            if ids.isEmpty {
                options.emit("marked 0 versions: no idle ready version has manifest schema below \(belowSchema ?? 1)"
                             + (dryRun ? " (dry run)" : ""))
                return ExitStatus.ok
            }
            options.emit(dryRun
                ? "would mark \(ids.count) ready \(noun) for reprocessing (dry run, nothing changed):"
                : "marked \(ids.count) ready \(noun) for reprocessing at priority 20; they stay ready on their old outputs until the new ones are in:")
            for id in ids { options.emit("  \(id)") }
            if limitReached {
                options.emit(dryRun ? "the limit of \(limit) was reached: more versions may match"
                                    : "the limit of \(limit) was reached: run the same command again until it marks 0")
            }
            return ExitStatus.ok
        }
    }
}
