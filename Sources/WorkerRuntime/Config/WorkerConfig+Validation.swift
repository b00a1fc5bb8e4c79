import Foundation
import WorkerCore

/// Start-up checks of the configuration: secrets never on the command line, secrets strong
/// enough, every value parsed (no silent default), and unknown `TRANSCODE_*` names reported.
extension WorkerConfig {
    /// Secret settings: flag key → the environment variable to use instead.
    static let secretFlags: [String: String] = [
        "api-token": "TRANSCODE_API_TOKEN",
        "done-secret": "TRANSCODE_DONE_SECRET",
        "supabase-service-key": "SUPABASE_SERVICE_KEY",
        "metrics-token": "TRANSCODE_METRICS_TOKEN",
    ]

    /// Shared secrets this short or shorter are refused, bytes.
    static let minimumSecretBytes = 32

    /// Values used as placeholders in the shipped examples (docs/operations.md, deploy/, supabase/), compared
    /// case-insensitively; a secret equal to one, or containing a "change me" marker, is refused.
    static let placeholderSecrets: Set<String> = [
        "change-me", "changeme", "change_me", "changeit", "replace-me", "replaceme", "secret", "password",
        "token", "…", "...", "<random>", "<secret>", "<token>", "<random secret>", "<secret key>",
        "<the same worker_callback_secret>", "$(openssl rand -hex 32)",
    ]

    /// Substrings that mark an example value (`CHANGE-ME-…`), compared case-insensitively.
    static let placeholderMarkers = ["change-me", "changeme", "change_me", "replace-me", "replaceme"]

    /// `TRANSCODE_*` variables read by the worker, its tests or its scripts besides `variables`.
    static let otherKnownVariables: Set<String> = [
        "TRANSCODE_STORAGE_URL", "TRANSCODE_LOG_LEVEL", "TRANSCODE_WORKER_BINARY", "TRANSCODE_DIFF_DIR", "TRANSCODE_DENO",
    ]

    /// Prefixes of `TRANSCODE_*` variables used by the test suites.
    static let knownVariablePrefixes = ["TRANSCODE_TEST_", "TRANSCODE_REQUIRE_"]

    /// Throws the `UsageError` that tells where a secret flag's value belongs; a `--database-url`
    /// carrying a password is refused the same way. Other keys pass.
    static func refuseSecretFlag(_ key: String, _ value: String) throws {
        if let variable = secretFlags[key] {
            throw UsageError("--\(key) is not accepted on the command line (visible in /proc/*/cmdline); "
                             + "set \(variable) or \(variable)_FILE")
        }
        if key == "database-url", hasPassword(databaseURL: value) {
            throw UsageError("--database-url with a password is not accepted on the command line (visible in "
                             + "/proc/*/cmdline); set DATABASE_URL or DATABASE_URL_FILE, or keep the password in PGPASSFILE")
        }
    }

    /// True when a libpq connection string carries a password: URL user information `user:pw@`,
    /// a `password=` query parameter, or a `password=` keyword of the `key=value` form.
    static func hasPassword(databaseURL url: String) -> Bool {
        let lower = url.lowercased()
        if lower.hasPrefix("postgres://") || lower.hasPrefix("postgresql://") {
            let rest = url[url.range(of: "://")!.upperBound...]
            let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
            if let at = authority.lastIndex(of: "@"), authority[..<at].contains(":") { return true }
            guard let q = rest.firstIndex(of: "?") else { return false }
            return rest[rest.index(after: q)...].split(separator: "&").contains {
                $0.prefix { $0 != "=" }.lowercased() == "password"
            }
        }
        // Keyword form: `host=h user=u password=p` (spaces allowed around `=`).
        var i = lower.startIndex
        while let r = lower.range(of: "password", range: i..<lower.endIndex) {
            let before = r.lowerBound == lower.startIndex ? " " : lower[lower.index(before: r.lowerBound)]
            let after = lower[r.upperBound...].drop { $0 == " " || $0 == "\t" }
            if before.isWhitespace && after.hasPrefix("=") { return true }
            i = r.upperBound
        }
        return false
    }

    /// Throws a `UsageError` naming `variable` when `value` is set and shorter than
    /// `minimumSecretBytes` or an example placeholder.
    static func checkSharedSecret(_ value: String?, variable: String) throws {
        guard let value else { return }
        let lower = value.lowercased()
        if placeholderSecrets.contains(lower) || placeholderMarkers.contains(where: { lower.contains($0) }) {
            throw UsageError("\(variable) is an example placeholder; generate a secret, e.g. with: openssl rand -hex 32")
        }
        guard value.utf8.count >= minimumSecretBytes else {
            throw UsageError("\(variable) is \(value.utf8.count) bytes; use at least \(minimumSecretBytes) random bytes "
                             + "(e.g. openssl rand -hex 32)")
        }
    }

    /// Problems of variables that are not settings (`TRANSCODE_LOG_LEVEL`).
    static func otherVariableProblems(_ env: [String: String]) -> [String] {
        var out: [String] = []
        if let level = env["TRANSCODE_LOG_LEVEL"], !level.isEmpty, JSONLogger.Level(rawValue: level) == nil {
            out.append("TRANSCODE_LOG_LEVEL needs debug, info, warn or error, got '\(shown(level))'")
        }
        return out
    }

    /// `TRANSCODE_*` names in `env` that nothing reads (typos), sorted.
    public static func unknownVariables(_ env: [String: String]) -> [String] {
        let known = Set(variables.map(\.0)).union(otherKnownVariables)
            .union(SecretEnvironment.names.map { $0 + "_FILE" })
        return env.keys.filter { name in
            name.hasPrefix("TRANSCODE_") && !known.contains(name)
                && !knownVariablePrefixes.contains(where: { name.hasPrefix($0) })
        }.sorted()
    }

    /// Checks the whole configuration before a command starts. Throws the `UsageError` (exit
    /// status 2) naming the variable or flag: an environment value that did not parse, a secret
    /// file that could not be read, a short or placeholder `TRANSCODE_API_TOKEN` /
    /// `TRANSCODE_DONE_SECRET` / `TRANSCODE_METRICS_TOKEN`, a heartbeat not shorter than the lease, or an incomplete Supabase
    /// mode.
    public func validate() throws {
        if !environmentProblems.isEmpty { throw UsageError(environmentProblems.joined(separator: "; ")) }
        try Self.checkSharedSecret(apiToken, variable: "TRANSCODE_API_TOKEN")
        try Self.checkSharedSecret(doneSecret, variable: "TRANSCODE_DONE_SECRET")
        try Self.checkSharedSecret(http.metricsToken, variable: "TRANSCODE_METRICS_TOKEN")
        guard heartbeatSeconds < leaseSeconds else {
            throw UsageError("TRANSCODE_HEARTBEAT_SECONDS (\(heartbeatSeconds)) must be shorter than "
                             + "TRANSCODE_LEASE_SECONDS (\(leaseSeconds)), or every lease expires between heartbeats")
        }
        if let problem = UploadSweeper.configProblem(self) { throw UsageError(problem) }
        _ = try supabaseEndpoints()
    }

    /// A value as shown in an error: at most 40 characters, control characters replaced.
    static func shown(_ value: String) -> String { JobOptions.shown(value) }
}
