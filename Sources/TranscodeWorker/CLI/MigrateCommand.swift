import PGQueue
import WorkerRuntime
import WorkerCore

/// `transcode-worker migrate [--status]`: brings the database schema up to date, or shows which
/// migrations are applied.
struct MigrateCommand {
    static let help = """
        USAGE: transcode-worker migrate [--status] [options]
               transcode-worker migrate --print-sql [--from N] [--through N]

        Applies the worker's schema migrations that the database has not seen yet (tables rooms,
        room_versions and redactions when absent, the queue columns, indexes and wake-up trigger,
        the transcode_finalize and transcode_cancel functions), each in its own transaction, under
        an advisory lock so that replicas starting together apply each one exactly once. Running it
        again changes nothing. Prints the versions applied and the schema version. Then checks
        that the rooms columns the worker writes (current_version_id uuid, thumbnail_path and
        quality_grade text) exist with those types, and fails naming every one that does not
        (code DB_SCHEMA_MISMATCH); --status lists the same problems.

        OPTIONS:
          --status                  List the known migrations and whether each is applied; apply
                                    nothing.
          --print-sql               Print the migrations as one idempotent SQL script (with their
                                    ledger rows) for deploying them with another tool, e.g. as a
                                    Supabase migration (supabase/migrations/); needs no database.
          --from N                  With --print-sql: start at migration N (default 1).
          --through N               With --print-sql: end at migration N (default the last).
        \(DatabaseOptions.helpLines)

        JSON (--json): {"applied": [{"version", "name"}], "current_version": N, "known": N}
          with --status: {"applied": [N…], "current_version": N, "migrations": [{"version",
          "name", "applied"}], "pending": [N…], "room_column_problems": ["…"]}

        \(DatabaseOptions.exitHelp)
        """

    var options: DatabaseOptions
    var statusOnly = false
    /// `--print-sql`: the first migration to print.
    var printFrom: Int?
    /// `--print-sql`: the last migration to print.
    var printThrough: Int?

    init(_ args: [String]) throws {
        var statusOnly = false, printSQL = false
        var from: String?, through: String?
        options = try DatabaseOptions(args, requireDatabase: !args.contains("--print-sql")) { flag, next in
            switch flag {
            case "--status": statusOnly = true
            case "--print-sql": printSQL = true
            case "--from":
                from = try next()
            case "--through":
                through = try next()
            default: return false
            }
            return true
        }
        self.statusOnly = statusOnly
        if !options.positional.isEmpty { throw UsageError("migrate takes no arguments") }
        if let from, !printSQL { throw UsageError("--from \(from) needs --print-sql") }
        if let through, !printSQL { throw UsageError("--through \(through) needs --print-sql") }
        if printSQL {
            if statusOnly { throw UsageError("--print-sql and --status cannot be combined") }
            let last = SchemaCatalog.migrations.map(\.version).max() ?? 1
            guard let n = Int(from ?? "1"), n >= 1, n <= last else {
                throw UsageError("--from needs a migration number from 1 to \(last)")
            }
            printFrom = n
            guard let t = Int(through ?? String(last)), t >= n, t <= last else {
                throw UsageError("--through needs a migration number from \(n) to \(last)")
            }
            printThrough = t
        }
    }

    func run() throws -> Int32 {
        if let printFrom {
            RawOutput.write(Migrator.script(from: printFrom, through: printThrough), to: 1)
            return ExitStatus.ok
        }
        // Index builds on a large room_versions may take a while: no statement timeout.
        return try options.withConnection(statementTimeoutSeconds: 0) { connection in
            let known = SchemaCatalog.migrations
            if statusOnly {
                let applied = Set(try Migrator.appliedVersions(connection))
                let current = applied.max() ?? 0
                let pending = known.map(\.version).filter { !applied.contains($0) }
                let roomProblems = applied.contains(8) ? try Migrator.roomColumnProblems(connection) : []
                if options.json {
                    options.emitJSON([
                        "applied": .array(applied.sorted().map { .int(Int64($0)) }),
                        "current_version": .int(Int64(current)),
                        "migrations": .array(known.map {
                            .object(["version": .int(Int64($0.version)), "name": .string($0.name),
                                     "applied": .bool(applied.contains($0.version))])
                        }),
                        "pending": .array(pending.map { .int(Int64($0)) }),
                        "room_column_problems": .array(roomProblems.map { .string($0) }),
                    ])
                } else {
                    for m in known {
                        options.emit("  \(applied.contains(m.version) ? "applied" : "pending")  \(m.version)  \(m.name)")
                    }
                    let unknown = applied.subtracting(known.map(\.version)).sorted()
                    if !unknown.isEmpty {
                        options.emit("  the database also records versions this build does not know: "
                                     + unknown.map(String.init).joined(separator: ", "))
                    }
                    for p in roomProblems { options.emit("  rooms table: \(p)") }
                    options.emit(pending.isEmpty
                        ? "schema version \(current): up to date"
                        : "schema version \(current): \(pending.count) pending (run transcode-worker migrate)")
                }
                return ExitStatus.ok
            }
            let outcome = try Migrator.migrate(connection)
            // The finalize writes these rooms columns: a backend table they do not fit fails here.
            try Migrator.checkRoomColumns(connection)
            if options.json {
                options.emitJSON([
                    "applied": .array(outcome.applied.map {
                        .object(["version": .int(Int64($0.version)), "name": .string($0.name)])
                    }),
                    "current_version": .int(Int64(outcome.current)),
                    "known": .int(Int64(known.count)),
                ])
            } else {
                for m in outcome.applied { options.emit("applied migration \(m.version): \(m.name)") }
                options.emit(outcome.applied.isEmpty
                    ? "schema version \(outcome.current): up to date, nothing applied"
                    : "schema version \(outcome.current): applied \(outcome.applied.count) migration(s)")
            }
            return ExitStatus.ok
        }
    }
}
