import Foundation
import Testing
@testable import TranscodeWorker
@testable import PGQueue

/// A fresh, migrated database per test on the Postgres the test script started
/// (`TRANSCODE_TEST_DATABASE_URL`). Tests that need one are skipped when no server is configured,
/// unless `TRANSCODE_REQUIRE_POSTGRES=1` (set by scripts/test.sh), which turns that into a failure.
final class TestDatabase: @unchecked Sendable {
    let url: String
    let name: String
    private let adminURL: String

    static var serverURL: String? { ProcessInfo.processInfo.environment["TRANSCODE_TEST_DATABASE_URL"] }
    static var available: Bool { serverURL != nil }
    static var required: Bool { ProcessInfo.processInfo.environment["TRANSCODE_REQUIRE_POSTGRES"] == "1" }

    /// Creates `transcode_test_<random>` and applies the migrations (unless `migrate` is false).
    init(migrate: Bool = true) throws {
        guard let server = Self.serverURL else {
            throw TestDatabaseUnavailable()
        }
        adminURL = server
        name = "transcode_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16)
        let admin = try PGConnection(url: server)
        try admin.query("CREATE DATABASE \(name)")
        admin.close()
        url = Self.replacingDatabase(in: server, with: name)
        if migrate {
            let c = try connect()
            try Migrator.migrate(c)
            c.close()
        }
    }

    func connect() throws -> PGConnection { try PGConnection(url: url) }

    /// Drops the database (terminating leftover sessions, e.g. of killed workers).
    func drop() {
        guard let admin = try? PGConnection(url: adminURL) else { return }
        _ = try? admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()", [name])
        _ = try? admin.query("DROP DATABASE IF EXISTS \(name)")
        admin.close()
    }

    static func replacingDatabase(in url: String, with db: String) -> String {
        guard var c = URLComponents(string: url) else { return url }
        c.path = "/" + db
        return c.string ?? url
    }
}

/// The database of a test world: a new Supabase project's (`supabase`) or a plain migrated one,
/// with a connection to it. The project, when there is one, owns the database and the connection.
func worldDatabase(supabase: Bool) throws -> (db: TestDatabase, project: SupabaseProject?, connection: PGConnection) {
    if supabase {
        let p = try SupabaseProject()
        return (p.db, p, p.connection)
    }
    let db = try TestDatabase()
    return (db, nil, try db.connect())
}

struct TestDatabaseUnavailable: Error, CustomStringConvertible {
    var description: String { "TRANSCODE_TEST_DATABASE_URL is not set (scripts/test.sh starts a Postgres and sets it)" }
}

/// Use as `.enabled(if: postgresConfigured)` on suites that need Postgres.
let postgresConfigured = TestDatabase.available || TestDatabase.required
