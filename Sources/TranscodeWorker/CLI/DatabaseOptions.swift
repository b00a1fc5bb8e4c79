import Foundation
import JSONCore
import ObjectStorage
import PGQueue
import WorkerRuntime

#if canImport(Glibc)
import Glibc
import WorkerCore
#endif

/// What the database commands (`migrate`, `enqueue`, `retry`, `reprocess`, `cancel`, `status`,
/// `show`, `submit`, `watch`) share: the flags every one of them accepts, the connection, the
/// output channel and the way a failure is reported.
///
/// Common flags: `--database-url URL`, `--storage-url URL`, `--json`, `--help`, and every
/// `WorkerConfig` setting as `--key value` (or `--key=value`). A command's own flags are offered
/// to it first, so a command may give a setting's name its own meaning (`submit --max-attempts`).
///
/// Failures: `fail` prints `error: CODE: message` on standard error and, with `--json`, one
/// `{"error": {"code", "message", …}}` object on standard output, and returns the exit status.
struct DatabaseOptions {
    /// Defaults, then the environment, then the flags.
    var config: WorkerConfig
    /// `--json`: print one JSON object (sorted keys) instead of text.
    var json = false
    /// Arguments that are not flags, in order.
    var positional: [String] = []
    /// Where results go: standard output, flushed line by line (tests replace it to capture them).
    var emit: (String) -> Void = DatabaseOptions.printLine

    /// The common flags' help lines, for each command's `--help`.
    static let helpLines = """
          --database-url URL        Postgres URL (default: env DATABASE_URL; required).
          --json                    Print one JSON object with sorted keys instead of text.
          --storage-url URL         file:///abs/dir (default: env TRANSCODE_STORAGE_URL, else
                                    file://$PWD/transcode-storage).
          --<setting> VALUE         Any worker setting (see `transcode-worker run --help`), e.g.
                                    --worker-id; read but unused by most operator commands.
          -h, --help                Show this help.
        """

    /// The exit statuses every database command documents.
    static let exitHelp = """
        EXIT STATUS: 0 success, 2 usage error, 3 not found or invalid state, 4 database or internal error.
        """

    /// Parses `args`.
    ///
    /// - Parameters:
    ///   - environment: where `DATABASE_URL` and the other settings come from.
    ///   - requireDatabase: fail with a usage error when no database URL was given.
    ///   - own: offered every flag first (with a function that takes the flag's value); returns
    ///     true when it handled the flag.
    /// - Throws: `UsageError` (`UsageError.helpRequested` for `--help`; a secret flag, a
    ///   `--database-url` with a password and any invalid setting: `WorkerConfig.validate`).
    init(_ args: [String], environment: [String: String] = ProcessEnvironment.current,
         requireDatabase: Bool = true,
         own: (_ flag: String, _ value: () throws -> String) throws -> Bool = { _, _ in false }) throws {
        config = WorkerConfig(environment: environment)
        var i = 0
        var flagsDone = false
        while i < args.count {
            let arg = args[i]
            i += 1
            if flagsDone || !arg.hasPrefix("-") || arg == "-" {
                positional.append(arg)
                continue
            }
            if arg == "--" { flagsDone = true; continue }
            if arg == "-h" || arg == "--help" { throw UsageError.helpRequested }
            var flag = arg
            var inline: String?
            if let eq = arg.firstIndex(of: "="), arg.hasPrefix("--") {
                flag = String(arg[..<eq])
                inline = String(arg[arg.index(after: eq)...])
            }
            var consumedInline = false
            let value = { () throws -> String in
                if let inline {
                    consumedInline = true
                    return inline
                }
                guard i < args.count else { throw UsageError("\(flag) needs a value") }
                i += 1
                return args[i - 1]
            }
            if try own(flag, value) {
                // handled by the command
            } else if flag == "--json" {
                json = true
            } else if flag.hasPrefix("--"), WorkerConfig.isSetting(String(flag.dropFirst(2))) {
                try config.set(String(flag.dropFirst(2)), try value())
            } else {
                throw UsageError("unknown option \(flag)")
            }
            if inline != nil && !consumedInline { throw UsageError("\(flag) takes no value") }
        }
        if requireDatabase { _ = try config.requireDatabaseURL() }
        try config.validate()
    }

    /// Exactly one positional argument, or none (`nil`); more is a usage error.
    func singlePositional(_ what: String) throws -> String? {
        guard positional.count <= 1 else { throw UsageError("expected one \(what), got: \(positional.joined(separator: " "))") }
        return positional.first
    }

    /// The one VERSION_ID argument of `command`, lowercased; a usage error when missing or not a UUID.
    func versionID(for command: String) throws -> String {
        guard let id = try singlePositional("VERSION_ID") else { throw UsageError("\(command) needs a VERSION_ID") }
        return try Self.uuid(id, "VERSION_ID")
    }

    // MARK: Connection and failures

    /// Opens a connection, runs `body` with it, closes it, and turns a thrown `DatabaseError` or
    /// `StorageError` into a report and exit status 4 (`UsageError` passes through).
    func withConnection(statementTimeoutSeconds: Int = 60, _ body: (PGConnection) throws -> Int32) throws -> Int32 {
        let url = try config.requireDatabaseURL()
        do {
            let connection = try PGConnection(url: url, applicationName: "transcode-worker operator",
                                              statementTimeoutSeconds: statementTimeoutSeconds)
            defer { connection.close() }
            return try body(connection)
        } catch let e as DatabaseError {
            var extra: [String: JSONValue] = ["retryable": .bool(e.isRetryable)]
            if let s = e.sqlState { extra["sql_state"] = .string(s) }
            return fail(code: e.code.rawValue, message: e.message, status: ExitStatus.internalError, extra: extra)
        } catch let e as StorageError {
            var extra: [String: JSONValue] = ["retryable": .bool(e.isRetryable)]
            if let k = e.key { extra["key"] = .string(k) }
            return fail(code: e.code.rawValue, message: e.message, status: ExitStatus.internalError, extra: extra)
        }
    }

    /// Reports a failure and returns `status`.
    func fail(code: String, message: String, status: Int32, extra: [String: JSONValue] = [:]) -> Int32 {
        printError("error: \(code): \(message)")
        if json {
            var err = extra
            err["code"] = .string(code)
            err["message"] = .string(message)
            emit(JSONValue.object(["error": .object(err)]).serialized())
        }
        return status
    }

    /// Prints one result object (with `--json`).
    func emitJSON(_ object: [String: JSONValue]) {
        emit(JSONValue.object(object).serialized())
    }

    /// Writes `object` as one JSON line with `--json`, else the human line `text`.
    func emit(json object: [String: JSONValue], text: @autoclosure () -> String) {
        if json { emitJSON(object) } else { emit(text()) }
    }

    /// Writes a line to standard output and flushes it, so a reader behind a pipe or a file sees
    /// each line when it happens.
    static func printLine(_ line: String) {
        print(line)
        fflush(nil)
    }

    // MARK: Values from the database

    /// Parses JSON text from a `jsonb` column or a notification (nil when it is not JSON or
    /// passes `JSONReader.Limits.smallDocument`): booleans stay booleans, whole numbers integers.
    static func parseJSON(_ text: String) -> JSONValue? {
        (try? JSONReader.parse(Array(text.utf8), limits: .smallDocument))?.jsonValue
    }

    /// A Postgres `timestamptz` in text form (`2026-05-01 10:00:00.123+00`) as RFC 3339
    /// (`2026-05-01T10:00:00.123Z`); other text is returned unchanged.
    static func timestamp(_ text: String) -> String {
        let u = Array(text.utf8)
        guard u.count >= 22, u[4] == UInt8(ascii: "-"), u[7] == UInt8(ascii: "-"), u[10] == UInt8(ascii: " "),
              u[13] == UInt8(ascii: ":"), u[16] == UInt8(ascii: ":") else { return text }
        var s = text
        s.replaceSubrange(s.index(s.startIndex, offsetBy: 10)...s.index(s.startIndex, offsetBy: 10), with: "T")
        // The zone is the last +HH, -HH, +HH:MM or -HH:MM.
        if let sign = s.lastIndex(where: { $0 == "+" || $0 == "-" }), s.distance(from: s.startIndex, to: sign) >= 19 {
            let zone = String(s[sign...])
            let full = zone.count == 3 ? zone + ":00" : zone
            s = String(s[..<sign]) + (full == "+00:00" || full == "-00:00" ? "Z" : full)
        }
        return s
    }

    /// A duration for people: `850 ms`, `42 s`, `7 min 05 s`, `3 h 20 min`, `2 d 4 h`.
    static func duration(_ seconds: Double) -> String {
        let negative = seconds < 0
        let t = abs(seconds)
        let text: String
        if t < 1 {
            text = "\(Int((t * 1000).rounded())) ms"
        } else if t < 60 {
            text = "\(Int(t)) s"
        } else if t < 3600 {
            text = "\(Int(t) / 60) min " + twoDigits(Int(t) % 60) + " s"
        } else if t < 86400 {
            text = "\(Int(t) / 3600) h " + twoDigits(Int(t) % 3600 / 60) + " min"
        } else {
            text = "\(Int(t) / 86400) d \(Int(t) % 86400 / 3600) h"
        }
        return negative ? "-" + text : text
    }

    private static func twoDigits(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }

    /// `text` padded with spaces to `width` characters (never cut).
    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }

    /// A lowercase canonical UUID, or a usage error naming `what`.
    static func uuid(_ text: String, _ what: String) throws -> String {
        guard QueueStore.isUUID(text) else { throw UsageError("\(what) must be a UUID, got '\(text)'") }
        return text.lowercased()
    }
}
