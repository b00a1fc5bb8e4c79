import Foundation
import JSONCore
#if canImport(Glibc)
import Glibc
import WorkerCore
#endif

/// The worker's log: one JSON object per line on standard error (`ts`, `level`, `msg`, `worker`,
/// then the given fields). Lines are written with one `write(2)` each, so concurrent threads never
/// interleave within a line. The only logger in the project: feature modules return warnings as
/// values instead.
public final class JSONLogger: Sendable {
    public enum Level: String, Sendable { case debug, info, warn, error }

    let workerId: String
    let minimum: Level
    let fd: Int32

    /// - Parameters:
    ///   - workerId: added to every line.
    ///   - minimum: lines below it are dropped (`TRANSCODE_LOG_LEVEL`, default `info`).
    ///   - fd: where lines go (standard error by default).
    public init(workerId: String, minimum: Level = .info, fd: Int32 = 2) {
        self.workerId = workerId
        self.minimum = minimum
        self.fd = fd
    }

    public func log(_ level: Level, _ message: String, _ fields: [String: JSONValue] = [:]) {
        guard Self.rank(level) >= Self.rank(minimum) else { return }
        var obj = fields
        obj["ts"] = .string(Self.timestamp())
        obj["level"] = .string(level.rawValue)
        obj["msg"] = .string(message)
        obj["worker"] = .string(workerId)
        RawOutput.write(JSONValue.object(obj).serialized() + "\n", to: fd)
    }

    public func info(_ m: String, _ f: [String: JSONValue] = [:]) { log(.info, m, f) }
    public func warn(_ m: String, _ f: [String: JSONValue] = [:]) { log(.warn, m, f) }
    public func error(_ m: String, _ f: [String: JSONValue] = [:]) { log(.error, m, f) }
    public func debug(_ m: String, _ f: [String: JSONValue] = [:]) { log(.debug, m, f) }

    static func rank(_ l: Level) -> Int {
        switch l { case .debug: 0; case .info: 1; case .warn: 2; case .error: 3 }
    }

    /// RFC 3339 UTC with milliseconds.
    static func timestamp() -> String {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        var t = time_t(ts.tv_sec)
        var tm = tm()
        gmtime_r(&t, &tm)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                      tm.tm_hour, tm.tm_min, tm.tm_sec, Int(ts.tv_nsec / 1_000_000))
    }
}
