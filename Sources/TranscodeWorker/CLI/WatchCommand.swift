import Foundation
import JSONCore
import PGQueue
import WorkerRuntime

#if canImport(Glibc)
import Glibc
import WorkerCore
#endif

/// `transcode-worker watch [--until-idle] [--timeout SECONDS] [--json]`: prints the queue's events
/// (`SchemaCatalog.eventsChannel`) as they arrive.
struct WatchCommand {
    /// How often `--until-idle` asks whether the queue is idle.
    static let checkInterval = 0.5
    /// Consecutive failed reconnects (about one a second) before giving up.
    static let maxReconnects = 30

    static let help = """
        USAGE: transcode-worker watch [--until-idle] [--timeout SECONDS] [--json] [options]

        LISTENs on the channel transcode_events and prints every event the workers and the
        database functions send (progress, ready, failed, reprocess_failed), one line each:
          HH:MM:SS.mmm room:<room_id> <event> <summary>
        where the summary is the step and sequence number of a progress event, the .glb path of
        a ready event, or the reason and message of a failure. Events sent while nothing listens
        are not replayed: start watch before the work you want to see.

        OPTIONS:
          --json                    Print each event's JSON exactly as received, one per line
                                    ({"topic", "event", "payload"}), and nothing else.
          --until-idle              Exit 0 once nothing is queued (incl. reprocess requests and
                                    retry backoff) and nothing is in flight; checked every
                                    \(checkInterval) s, the first time after one interval.
          --timeout SECONDS         Exit 0 after SECONDS (default: run until interrupted).
          --database-url URL        Postgres URL (default: env DATABASE_URL; required). LISTEN
                                    needs a direct or session-mode connection, not a transaction
                                    pooler.
          --storage-url URL, --<setting> VALUE
                                    Accepted like every database command; unused here.
          -h, --help                Show this help.

        \(DatabaseOptions.exitHelp)
        """

    var options: DatabaseOptions
    var untilIdle = false
    var timeout: Double?

    init(_ args: [String]) throws {
        var untilIdle = false
        var timeout: Double?
        options = try DatabaseOptions(args) { flag, value in
            switch flag {
            case "--until-idle": untilIdle = true
            case "--timeout":
                let v = try value()
                guard let t = Double(v), t.isFinite, t >= 0 else { throw UsageError("--timeout needs seconds ≥ 0, got '\(v)'") }
                timeout = t
            default: return false
            }
            return true
        }
        self.untilIdle = untilIdle
        self.timeout = timeout
        if !options.positional.isEmpty { throw UsageError("watch takes no arguments") }
    }

    func run() throws -> Int32 {
        try options.withConnection(statementTimeoutSeconds: 30) { connection in
            try connection.listen(SchemaCatalog.eventsChannel)
            let store = QueueStore(connection: connection)
            let start = Clock.now()
            let elapsed = { Double(Clock.now() &- start) / 1e9 }
            var nextCheck = Self.checkInterval
            var events = 0
            var failures = 0
            while true {
                let now = elapsed()
                if let timeout, now >= timeout {
                    try drain(connection, &events)
                    if !options.json { options.emit("watch: \(timeout) s elapsed after \(events) event(s)") }
                    return ExitStatus.ok
                }
                var wait = untilIdle ? max(0, nextCheck - now) : Self.checkInterval
                if let timeout { wait = min(wait, timeout - now) }
                do {
                    for n in try connection.waitForNotifications(timeout: wait) {
                        emitEvent(n)
                        events += 1
                    }
                    if untilIdle && elapsed() >= nextCheck {
                        nextCheck = elapsed() + Self.checkInterval
                        if try store.isIdle() {
                            try drain(connection, &events)
                            if !options.json { options.emit("watch: idle (nothing queued or in flight) after \(events) event(s)") }
                            return ExitStatus.ok
                        }
                    }
                    failures = 0
                } catch let e as DatabaseError where e.isRetryable {
                    failures += 1
                    if failures > Self.maxReconnects { throw e }
                    printError("watch: \(e.code): \(e.message); reconnecting")
                    usleep(1_000_000)
                }
            }
        }
    }

    /// Prints what is still on its way: a NOTIFY sent by a commit this connection already sees may
    /// reach it a moment later.
    private func drain(_ connection: PGConnection, _ events: inout Int) throws(DatabaseError) {
        while true {
            let more = try connection.waitForNotifications(timeout: 0.25)
            if more.isEmpty { return }
            for n in more { emitEvent(n) }
            events += more.count
        }
    }

    private func emitEvent(_ n: PGNotification) {
        options.emit(options.json ? n.payload : Self.line(n, at: Self.clockTime()))
    }

    /// `HH:MM:SS.mmm room:<id> <event> <summary>` for one notification.
    static func line(_ n: PGNotification, at time: String) -> String {
        guard case .object(let o)? = DatabaseOptions.parseJSON(n.payload) else {
            return "\(time) \(n.channel) \(shorten(n.payload, 160))"
        }
        let topic = string(o["topic"]) ?? "-"
        let event = string(o["event"]) ?? "-"
        var payload: [String: JSONValue] = [:]
        if case .object(let p)? = o["payload"] { payload = p }
        let detail = summary(event: event, payload)
        return "\(time) \(topic) \(event)" + (detail.isEmpty ? "" : " " + detail)
    }

    /// The short description of an event's payload.
    static func summary(event: String, _ p: [String: JSONValue]) -> String {
        switch event {
        case "ready":
            // Events carry no paths (clients read them from the row): the revision says which.
            var s = "revision " + (string(p["output_revision"]) ?? "-")
            if case .bool(true)? = p["reprocess"] { s += " (reprocess)" }
            if let seq = string(p["seq"]) { s += " seq \(seq)" }
            return s
        case "failed", "reprocess_failed":
            var reason = string(p["reason"]) ?? "-", message = string(p["message"]) ?? ""
            if case .object(let e)? = p["error"] {
                // The shape before migration 6: `error` was an object.
                reason = string(e["reason"]) ?? string(e["code"]) ?? "-"
                message = string(e["message"]) ?? ""
            }
            if let n = string(p["failure_count"]) { message += (message.isEmpty ? "" : " ") + "(failure \(n))" }
            var s = reason + (message.isEmpty ? "" : ": " + shorten(message, 120))
            if let a = string(p["attempt"]) { s += " (attempt \(a))" }
            return s
        default:
            var parts: [String] = []
            if let step = string(p["step"]) {
                parts.append(step)
            } else if let phase = string(p["phase"]) {
                parts.append(phase)
            }
            if let seq = string(p["seq"]) { parts.append("seq \(seq)") }
            if let a = string(p["attempt"]) {
                parts.append("attempt \(a)" + (string(p["max_attempts"]).map { "/\($0)" } ?? ""))
            }
            if let r = string(p["retry_at"]) { parts.append("retry at \(r)") }
            if parts.isEmpty, let v = string(p["version_id"]) { parts.append("version \(v)") }
            return parts.joined(separator: " ")
        }
    }

    private static func string(_ v: JSONValue?) -> String? {
        switch v {
        case .string(let s)?: return s
        case .int(let i)?: return String(i)
        case .double(let d)?: return String(d)
        case .bool(let b)?: return String(b)
        default: return nil
        }
    }

    private static func shorten(_ s: String, _ limit: Int) -> String {
        let flat = s.replacingOccurrences(of: "\n", with: " ")
        return flat.count <= limit ? flat : String(flat.prefix(limit - 1)) + "…"
    }

    /// The local wall-clock time as `HH:MM:SS.mmm`.
    static func clockTime() -> String {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        var seconds = ts.tv_sec
        var parts = tm()
        localtime_r(&seconds, &parts)
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let ms = Int(ts.tv_nsec / 1_000_000)
        let msText = ms < 10 ? "00\(ms)" : ms < 100 ? "0\(ms)" : "\(ms)"
        return "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)).\(msText)"
    }
}
