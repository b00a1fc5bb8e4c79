/// Applies `SchemaCatalog.migrations` that a database has not seen yet, each in its own
/// transaction, under a session advisory lock so that replicas starting together apply each
/// migration exactly once (the others wait, then find nothing to do).
public enum Migrator {
    /// The advisory lock key (an arbitrary constant: "transcode" in ASCII, truncated).
    static let lockKey = "7310582754083516773"

    static let createLedgerSQL = """
        CREATE TABLE IF NOT EXISTS transcode_schema_migrations (
          version    integer PRIMARY KEY,
          name       text NOT NULL,
          applied_at timestamptz NOT NULL DEFAULT now()
        )
        """
    static let appliedSQL = "SELECT version FROM transcode_schema_migrations ORDER BY version"
    static let recordSQL = "INSERT INTO transcode_schema_migrations (version, name) VALUES ($1::integer, $2)"
    static let lockSQL = "SELECT pg_advisory_lock($1::bigint)"
    static let unlockSQL = "SELECT pg_advisory_unlock($1::bigint)"

    /// What `migrate` did.
    public struct Outcome: Sendable {
        /// Versions applied by this call, in order.
        public var applied: [Migration]
        /// The schema version after the call.
        public var current: Int
    }

    /// Brings the schema up to date.
    ///
    /// - Parameter connection: a session connection (advisory locks do not survive transaction
    ///   pooling); its statement timeout should allow for index builds on large tables.
    /// - Throws: `DatabaseError`; a failed migration is rolled back and nothing after it runs.
    @discardableResult
    public static func migrate(_ connection: PGConnection) throws(DatabaseError) -> Outcome {
        try connection.query(lockSQL, [lockKey])
        defer { _ = try? connection.query(unlockSQL, [lockKey]) }
        try connection.query(createLedgerSQL)
        let done = Set(try connection.query(appliedSQL).compactMap { $0.int("version") })
        var applied: [Migration] = []
        for m in SchemaCatalog.migrations where !done.contains(m.version) {
            try connection.query("BEGIN")
            do {
                try connection.execute(script: m.sql)
                try connection.query(recordSQL, [String(m.version), m.name])
                try connection.query("COMMIT")
            } catch {
                _ = try? connection.query("ROLLBACK")
                throw DatabaseError(code: error.code, message: "migration \(m.version) (\(m.name)) failed: \(error.message)",
                                    sqlState: error.sqlState)
            }
            applied.append(m)
        }
        return Outcome(applied: applied, current: SchemaCatalog.migrations.map(\.version).max() ?? 0)
    }

    /// The versions recorded in the database (empty before the first `migrate`).
    public static func appliedVersions(_ connection: PGConnection) throws(DatabaseError) -> [Int] {
        let exists = try connection.query("SELECT to_regclass('transcode_schema_migrations') IS NOT NULL AS present")
        guard exists.first?.bool("present") == true else { return [] }
        return try connection.query(appliedSQL).compactMap { $0.int("version") }
    }
}
