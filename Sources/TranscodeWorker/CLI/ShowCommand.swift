import JSONCore
import PGQueue
import WorkerRuntime
import WorkerCore

/// `transcode-worker show VERSION_ID`: one version's row and its error history.
struct ShowCommand {
    /// Columns shown as numbers in JSON.
    static let integerColumns: Set<String> = ["attempt", "max_attempts", "priority", "output_revision", "manifest_schema_version"]
    /// Columns holding JSON text.
    static let jsonColumns: Set<String> = ["errors", "thumbnail_paths"]

    static let help = """
        USAGE: transcode-worker show VERSION_ID [options]

        Prints every column of the version's room_versions row (status, sources, outputs, queue
        and lease columns, last error, output revision, manifest schema version, times in RFC 3339
        UTC) and its error history: one entry per failed attempt (time, attempt, code, message,
        phase, worker; "final" marks the one that failed the version).

        OPTIONS:
        \(DatabaseOptions.helpLines)

        JSON (--json): the row as one object, column name → value (null for NULL), with `errors`
          and `thumbnail_paths` as parsed JSON arrays and the counters as numbers.

        \(DatabaseOptions.exitHelp)
        """

    var options: DatabaseOptions
    var versionId: String

    init(_ args: [String]) throws {
        options = try DatabaseOptions(args)
        versionId = try options.versionID(for: "show")
    }

    func run() throws -> Int32 {
        try options.withConnection { connection in
            guard let row = try QueueStore(connection: connection).show(versionId: versionId) else {
                return options.fail(code: "VERSION_NOT_FOUND", message: "no version \(versionId)",
                                    status: ExitStatus.invalidInput, extra: ["version_id": .string(versionId)])
            }
            let object = Self.json(row)
            if options.json {
                options.emitJSON(object)
                return ExitStatus.ok
            }
            for (name, value) in zip(row.columns, row.values) where !Self.jsonColumns.contains(name) {
                options.emit(DatabaseOptions.pad(name, 25) + (value.map(DatabaseOptions.timestamp) ?? "-"))
            }
            if case .array(let thumbs)? = object["thumbnail_paths"] {
                options.emit("thumbnail_paths (\(thumbs.count))")
                for t in thumbs { options.emit("  " + Self.describeThumbnail(t)) }
            }
            guard case .array(let errors)? = object["errors"] else { return ExitStatus.ok }
            options.emit("errors (\(errors.count))" + (errors.isEmpty ? ": none" : ""))
            for (i, e) in errors.enumerated() { options.emit("  \(i + 1). " + Self.describeError(e)) }
            return ExitStatus.ok
        }
    }

    /// The row as JSON: counters as numbers, JSON columns parsed, times as RFC 3339.
    static func json(_ row: PGRow) -> [String: JSONValue] {
        var out: [String: JSONValue] = [:]
        for (name, value) in zip(row.columns, row.values) {
            guard let value else { out[name] = .null; continue }
            if integerColumns.contains(name), let n = Int64(value) {
                out[name] = .int(n)
            } else if jsonColumns.contains(name) {
                out[name] = DatabaseOptions.parseJSON(value) ?? .string(value)
            } else {
                out[name] = .string(DatabaseOptions.timestamp(value))
            }
        }
        return out
    }

    /// `2026-05-01T10:00:00Z  attempt 2  USDZ_PARSE_ERROR  message  (phase parsing, worker w1, final)`
    static func describeError(_ entry: JSONValue) -> String {
        guard case .object(let o) = entry else { return entry.serialized() }
        func text(_ k: String) -> String? {
            switch o[k] {
            case .string(let s)?: return s
            case .int(let i)?: return String(i)
            case .double(let d)?: return String(d)
            case .bool(let b)?: return String(b)
            default: return nil
            }
        }
        var line = DatabaseOptions.timestamp(text("at") ?? "?")
        if let a = text("attempt") { line += "  attempt \(a)" }
        line += "  " + (text("code") ?? "UNKNOWN")
        if let m = text("message"), !m.isEmpty { line += "  " + m }
        var notes: [String] = []
        if let p = text("phase") { notes.append("phase \(p)") }
        if let w = text("worker") { notes.append("worker \(w)") }
        if text("final") == "true" { notes.append("final") }
        if !notes.isEmpty { line += "  (" + notes.joined(separator: ", ") + ")" }
        return line
    }

    /// A thumbnail entry: a path, or `{"path", "kind", "width", "height"}`.
    static func describeThumbnail(_ entry: JSONValue) -> String {
        switch entry {
        case .string(let s): return s
        case .object(let o):
            var line = ""
            if case .string(let p)? = o["path"] { line = p }
            if case .string(let k)? = o["kind"] { line += "  (\(k)" + Self.size(o) + ")" }
            return line.isEmpty ? entry.serialized() : line
        default: return entry.serialized()
        }
    }

    private static func size(_ o: [String: JSONValue]) -> String {
        guard case .int(let w)? = o["width"], case .int(let h)? = o["height"] else { return "" }
        return " \(w)×\(h)"
    }
}
