import WorkerCore
import WorkerHTTP

/// The HTTP server's deadline and `/metrics` (docs/configuration.md, "HTTP server").
public struct HTTPSettings: Sendable, Equatable {
    /// `TRANSCODE_HTTP_REQUEST_DEADLINE_SECONDS`: the absolute deadline of one request, from the
    /// connection's start (or the previous answer on it) to the end of its answer, however the
    /// client paces its bytes (30; 1 to 3600).
    public var requestDeadlineSeconds: Double = HTTPServer.defaultRequestDeadlineSeconds
    /// `TRANSCODE_METRICS_INTERVAL_SECONDS`: how long one sample of the queue gauges serves every
    /// `/metrics` scrape (5; 1 to 3600).
    public var metricsIntervalSeconds: Double = WorkerAPI.queueSampleSeconds
    /// `TRANSCODE_METRICS_TOKEN` (environment or `_FILE` only): when set, `/metrics` asks for
    /// `Authorization: Bearer <token>`.
    public var metricsToken: String?

    public init() {}

    /// Environment variable → setting key (the flag is `--<key>`; the token has no flag).
    public static let variables: [(String, String)] = [
        ("TRANSCODE_HTTP_REQUEST_DEADLINE_SECONDS", "http-request-deadline-seconds"),
        ("TRANSCODE_METRICS_INTERVAL_SECONDS", "metrics-interval-seconds"),
        ("TRANSCODE_METRICS_TOKEN", "metrics-token"),
    ]

    /// Sets one of these settings by its key; false when `key` is not one of them. Throws
    /// `UsageError` for a malformed value.
    mutating func assign(_ key: String, _ value: String, name: String) throws -> Bool {
        func seconds() throws -> Double {
            guard let d = Double(value), d.isFinite, d >= 1, d <= 3600 else {
                throw UsageError("\(name) needs a number of seconds from 1 to 3600, got '\(WorkerConfig.shown(value))'")
            }
            return d
        }
        switch key {
        case "http-request-deadline-seconds": requestDeadlineSeconds = try seconds()
        case "metrics-interval-seconds": metricsIntervalSeconds = try seconds()
        case "metrics-token": metricsToken = value.isEmpty ? nil : value
        default: return false
        }
        return true
    }
}
