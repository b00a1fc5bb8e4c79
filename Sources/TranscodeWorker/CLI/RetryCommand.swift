import Foundation
import JSONCore
import PGQueue
import WorkerRuntime
import WorkerCore

/// `transcode-worker retry VERSION_ID | --failed [--since T] [--room ID] [--dry-run]`: queues
/// failed versions again with a fresh set of attempts.
struct RetryCommand {
    static let help = """
        USAGE: transcode-worker retry VERSION_ID [--dry-run] [options]
               transcode-worker retry --failed [--since T] [--room ROOM_ID] [--dry-run] [options]

        Queues failed versions again: status `queued`, attempts reset to 0, run at once, priority 10
        (after fresh uploads at 0, before batch reprocessing at 20). The error history is kept.
        Prints the version ids.

        OPTIONS:
          VERSION_ID                Retry this one failed version (exit 3 when it is not failed).
          --failed                  Retry every failed version (matching the filters below).
          --since T                 Only versions that failed at or after T: an ISO 8601 time
                                    (2026-05-01T10:00:00Z, 2026-05-01T12:00:00+02:00, 2026-05-01)
                                    or an age: 30m, 24h, 7d (also s and w). Default: any time.
          --room ROOM_ID            Only versions of this room. Default: every room.
          --dry-run                 List what would be retried; change nothing.
        \(DatabaseOptions.helpLines)

        JSON (--json): {"dry_run", "count", "version_ids": […], "priority": 10, "since", "room_id"}

        \(DatabaseOptions.exitHelp)
        """

    var options: DatabaseOptions
    var versionId: String?
    var failed = false
    var since: String?
    var roomId: String?
    var dryRun = false

    init(_ args: [String]) throws {
        var failed = false, dryRun = false
        var sinceText: String?, room: String?
        options = try DatabaseOptions(args) { flag, value in
            switch flag {
            case "--failed": failed = true
            case "--dry-run": dryRun = true
            case "--since": sinceText = try value()
            case "--room": room = try value()
            default: return false
            }
            return true
        }
        self.failed = failed
        self.dryRun = dryRun
        if let id = try options.singlePositional("VERSION_ID") {
            guard !failed else { throw UsageError("give either VERSION_ID or --failed, not both") }
            versionId = try DatabaseOptions.uuid(id, "VERSION_ID")
        } else if !failed {
            throw UsageError("retry needs a VERSION_ID or --failed")
        }
        if !failed && (sinceText != nil || room != nil) { throw UsageError("--since and --room go with --failed") }
        if let sinceText { since = try Self.timestamp(sinceText, now: Date()) }
        if let room { roomId = try DatabaseOptions.uuid(room, "--room") }
    }

    func run() throws -> Int32 {
        try options.withConnection { connection in
            let store = QueueStore(connection: connection)
            var ids: [String]
            if let versionId {
                let row = try store.show(versionId: versionId)
                guard let row else {
                    return options.fail(code: "VERSION_NOT_FOUND", message: "no version \(versionId)",
                                        status: ExitStatus.invalidInput, extra: ["version_id": .string(versionId)])
                }
                let status = row["status"] ?? "unknown"
                let done = dryRun ? (status == "failed" && row["lease_id"] == nil)
                                  : try store.retryFailed(versionId: versionId)
                guard done else {
                    let current = dryRun ? status : (try store.show(versionId: versionId)?["status"] ?? status)
                    let hint = current == "ready" ? "; use `transcode-worker reprocess \(versionId)` to transcode it again"
                        : current == "queued" || current == "transcoding" ? "; it is already in the queue" : ""
                    return options.fail(code: "INVALID_STATE",
                                        message: "version \(versionId) is \(current); only failed versions can be retried\(hint)",
                                        status: ExitStatus.invalidInput,
                                        extra: ["version_id": .string(versionId), "status": .string(current)])
                }
                ids = [versionId]
            } else {
                ids = try store.retryAllFailed(since: since, roomId: roomId, dryRun: dryRun)
            }
            if options.json {
                options.emitJSON([
                    "dry_run": .bool(dryRun), "count": .int(Int64(ids.count)),
                    "version_ids": .array(ids.map(JSONValue.string)), "priority": .int(10),
                    "since": since.map(JSONValue.string) ?? .null, "room_id": roomId.map(JSONValue.string) ?? .null,
                ])
                return ExitStatus.ok
            }
            if ids.isEmpty {
                options.emit("no failed versions match" + (dryRun ? " (dry run)" : ""))
                return ExitStatus.ok
            }
            let noun = ids.count == 1 ? "version" : "versions"
            options.emit(dryRun
                ? "would re-queue \(ids.count) failed \(noun) at priority 10 (dry run, nothing changed):"
                : "re-queued \(ids.count) failed \(noun) at priority 10:")
            for id in ids { options.emit("  \(id)") }
            return ExitStatus.ok
        }
    }

    /// `--since`: an ISO 8601 time or an age (`30m`, `24h`, `7d`, `90s`, `2w`) before `now`, as an
    /// RFC 3339 UTC timestamp with milliseconds.
    static func timestamp(_ text: String, now: Date) throws -> String {
        let out = ISO8601DateFormatter()
        out.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        out.timeZone = TimeZone(identifier: "UTC")
        if let unit = text.last, let amount = Double(text.dropLast()), amount >= 0, amount.isFinite,
           text.dropLast().allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }) {
            let seconds: Double
            switch unit {
            case "s": seconds = amount
            case "m": seconds = amount * 60
            case "h": seconds = amount * 3600
            case "d": seconds = amount * 86400
            case "w": seconds = amount * 7 * 86400
            default: throw UsageError("--since: unknown unit '\(unit)' (use s, m, h, d or w)")
            }
            return out.string(from: now.addingTimeInterval(-seconds))
        }
        let formats: [ISO8601DateFormatter.Options] = [
            [.withInternetDateTime, .withFractionalSeconds], [.withInternetDateTime], [.withFullDate],
        ]
        for f in formats {
            let parser = ISO8601DateFormatter()
            parser.formatOptions = f
            parser.timeZone = TimeZone(identifier: "UTC")
            if let date = parser.date(from: text) { return out.string(from: date) }
        }
        throw UsageError("--since needs an ISO 8601 time (2026-05-01T10:00:00Z) or an age like 30m, 24h, 7d; got '\(text)'")
    }
}
