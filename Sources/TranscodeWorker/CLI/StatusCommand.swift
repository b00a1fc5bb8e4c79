import JSONCore
import PGQueue
import WorkerRuntime
import WorkerCore

/// `transcode-worker status [--failure-window-hours H]`: a snapshot of the queue for operators.
struct StatusCommand {
    static let statuses = ["uploading", "queued", "transcoding", "ready", "failed"]

    static let help = """
        USAGE: transcode-worker status [--failure-window-hours H] [options]

        Shows the queue: versions per status; how many wait to run (queued, including those in
        retry backoff, and ready versions marked for reprocessing); the age of the oldest queued
        version; every lease in flight (version, room, worker, attempt, phase, lease time left;
        a negative time left is an expired lease the rescuer will sweep); and the failure
        reasons recorded in the window, by count.

        OPTIONS:
          --failure-window-hours H  How far back "recent failures" looks (default 24).
        \(DatabaseOptions.helpLines)

        JSON (--json): {"counts": {status: n}, "total", "waiting", "reprocess_waiting", "in_flight",
          "expired_leases", "oldest_queued_seconds", "leases": [{"version_id", "room_id", "worker",
          "attempt", "phase", "locked_at", "lease_remaining_seconds"}], "recent_failures":
          [{"reason", "count", "last_at"}], "failure_window_hours"}

        \(DatabaseOptions.exitHelp)
        """

    var options: DatabaseOptions
    var windowHours = 24

    init(_ args: [String]) throws {
        var hours: Int?
        options = try DatabaseOptions(args) { flag, value in
            guard flag == "--failure-window-hours" else { return false }
            let v = try value()
            guard let h = Int(v), h >= 1 else { throw UsageError("--failure-window-hours needs an integer ≥ 1, got '\(v)'") }
            hours = h
            return true
        }
        if let hours { windowHours = hours }
        if !options.positional.isEmpty { throw UsageError("status takes no arguments") }
    }

    func run() throws -> Int32 {
        try options.withConnection { connection in
            let s = try QueueStore(connection: connection).status(failureWindowHours: windowHours)
            let names = Self.statuses + s.counts.keys.filter { !Self.statuses.contains($0) }.sorted()
            let total = s.counts.values.reduce(0, +)
            if options.json {
                var counts: [String: JSONValue] = [:]
                for n in names { counts[n] = .int(Int64(s.counts[n] ?? 0)) }
                options.emitJSON([
                    "counts": .object(counts), "total": .int(Int64(total)),
                    "waiting": .int(Int64(s.waiting)), "reprocess_waiting": .int(Int64(s.reprocessWaiting)),
                    "in_flight": .int(Int64(s.inFlight)), "expired_leases": .int(Int64(s.expiredLeases)),
                    "oldest_queued_seconds": s.oldestQueuedSeconds.map { .double(Self.ms($0)) } ?? .null,
                    "leases": .array(s.leases.map {
                        .object(["version_id": .string($0.versionId), "room_id": .string($0.roomId),
                                 "worker": .string($0.worker), "attempt": .int(Int64($0.attempt)),
                                 "phase": $0.phase.map(JSONValue.string) ?? .null,
                                 "locked_at": .string(DatabaseOptions.timestamp($0.lockedAt)),
                                 "lease_remaining_seconds": .double(Self.ms($0.leaseRemainingSeconds))])
                    }),
                    "recent_failures": .array(s.recentFailures.map {
                        .object(["reason": .string($0.reason), "count": .int(Int64($0.count)),
                                 "last_at": .string(DatabaseOptions.timestamp($0.lastAt))])
                    }),
                    "failure_window_hours": .int(Int64(s.failureWindowHours)),
                ])
                return ExitStatus.ok
            }
            let pad = DatabaseOptions.pad
            options.emit("VERSIONS BY STATUS")
            for n in names { options.emit("  " + pad(n, 14) + String(s.counts[n] ?? 0)) }
            options.emit("  " + pad("total", 14) + String(total))
            options.emit("")
            options.emit("QUEUE")
            options.emit("  " + pad("waiting", 14) + "\(s.waiting) (reprocess \(s.reprocessWaiting); includes retry backoff)")
            options.emit("  " + pad("in flight", 14) + "\(s.inFlight)"
                         + (s.expiredLeases > 0 ? " (\(s.expiredLeases) expired, waiting for the rescuer)" : ""))
            options.emit("  " + pad("oldest queued", 14) + (s.oldestQueuedSeconds.map { DatabaseOptions.duration($0) } ?? "-"))
            options.emit("")
            options.emit("IN-FLIGHT LEASES")
            if s.leases.isEmpty {
                options.emit("  (none)")
            } else {
                options.emit("  " + pad("VERSION", 38) + pad("WORKER", 24) + pad("ATTEMPT", 9) + pad("PHASE", 19) + "LEASE LEFT")
                for l in s.leases {
                    options.emit("  " + pad(l.versionId, 38) + pad(l.worker, 24) + pad(String(l.attempt), 9)
                                 + pad(l.phase ?? "-", 19) + DatabaseOptions.duration(l.leaseRemainingSeconds)
                                 + "  (room \(l.roomId))")
                }
            }
            options.emit("")
            options.emit("RECENT FAILURES (last \(s.failureWindowHours) h)")
            if s.recentFailures.isEmpty {
                options.emit("  (none)")
            } else {
                options.emit("  " + pad("REASON", 26) + pad("COUNT", 7) + "LAST")
                for f in s.recentFailures {
                    options.emit("  " + pad(f.reason, 26) + pad(String(f.count), 7) + DatabaseOptions.timestamp(f.lastAt))
                }
            }
            return ExitStatus.ok
        }
    }

    /// Seconds rounded to milliseconds.
    static func ms(_ seconds: Double) -> Double { (seconds * 1000).rounded() / 1000 }
}
