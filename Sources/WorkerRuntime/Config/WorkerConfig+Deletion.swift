import WorkerCore

/// What `run` does with the stored objects of deleted rows (docs/configuration.md, "Deletion").
public struct DeletionSettings: Sendable, Equatable {
    /// What the orphan sweep does with objects under `rooms/` that no row refers to.
    public enum OrphanMode: String, Sendable {
        /// No orphan sweep.
        case off
        /// List and log what would be deleted, count it, delete nothing (the default).
        case dryRun = "dry-run"
        /// Delete.
        case on
    }

    /// `TRANSCODE_DELETION_INTERVAL_SECONDS`: how often the deletion sweep looks for due rows of
    /// `transcode_private.deletions` (5; 0: never). A room's objects are gone within about this
    /// long after its row, while storage answers.
    public var intervalSeconds: Double = 5
    /// `TRANSCODE_DELETION_RETRY_MAX_SECONDS`: the longest wait before a deletion whose storage
    /// failed is tried again; waits double from 5 seconds up to it (300).
    public var retryMaxSeconds: Double = 300
    /// The first wait after a failed pass, doubled per failure (5; not a setting of its own).
    public var retryBaseSeconds: Double = 5
    /// `TRANSCODE_ORPHAN_SWEEP`: `dry-run` (default), `on` or `off`.
    public var orphanMode: OrphanMode = .dryRun
    /// `TRANSCODE_ORPHAN_INTERVAL_SECONDS`: how often the orphan sweep runs (3600).
    public var orphanIntervalSeconds: Double = 3600
    /// `TRANSCODE_ORPHAN_GRACE_SECONDS`: how old an object with no row must be before the orphan
    /// sweep touches it (86400; at least 600, so an upload that precedes its row is safe).
    public var orphanGraceSeconds: Double = 86_400
    /// `TRANSCODE_PRIVATE_OUTPUT_CACHE_CONTROL`: the `Cache-Control` of the outputs of rooms whose
    /// `visibility` is not `public`; nil: `TRANSCODE_OUTPUT_CACHE_CONTROL`. `none` stores none.
    public var privateOutputCacheControl: String?
    /// `TRANSCODE_SOURCE_RETENTION_DAYS`: days after a version became ready at which its uploaded
    /// sources (the unblurred scan, its JSON, the app's replacement textures) are deleted (0: kept).
    public var sourceRetentionDays: Double = 0
    /// `TRANSCODE_REDACTION_RETENTION_DAYS`: days after a version became ready at which its
    /// redaction rows (their areas) and privacy crops are deleted (0: kept).
    public var redactionRetentionDays: Double = 0

    public init() {}

    /// Environment variable → setting key (the flag is `--<key>`).
    public static let variables: [(String, String)] = [
        ("TRANSCODE_DELETION_INTERVAL_SECONDS", "deletion-interval-seconds"),
        ("TRANSCODE_DELETION_RETRY_MAX_SECONDS", "deletion-retry-max-seconds"),
        ("TRANSCODE_ORPHAN_SWEEP", "orphan-sweep"),
        ("TRANSCODE_ORPHAN_INTERVAL_SECONDS", "orphan-interval-seconds"),
        ("TRANSCODE_ORPHAN_GRACE_SECONDS", "orphan-grace-seconds"),
        ("TRANSCODE_PRIVATE_OUTPUT_CACHE_CONTROL", "private-output-cache-control"),
        ("TRANSCODE_SOURCE_RETENTION_DAYS", "source-retention-days"),
        ("TRANSCODE_REDACTION_RETENTION_DAYS", "redaction-retention-days"),
    ]

    /// Sets one of these settings by its key; false when `key` is not one of them. Throws
    /// `UsageError` for a malformed value.
    mutating func assign(_ key: String, _ value: String, name: String) throws -> Bool {
        func seconds(min: Double) throws -> Double {
            guard let d = Double(value), d.isFinite, d == 0 || d >= min, d <= WorkerConfig.maxSeconds else {
                throw UsageError("\(name) needs 0 or a number from \(Int(min)) to \(Int(WorkerConfig.maxSeconds)), got '\(WorkerConfig.shown(value))'")
            }
            return d
        }
        switch key {
        case "deletion-interval-seconds": intervalSeconds = try seconds(min: 0.1)
        case "deletion-retry-max-seconds":
            retryMaxSeconds = try seconds(min: 5)
            if retryMaxSeconds == 0 { throw UsageError("\(name) needs a number from 5 to \(Int(WorkerConfig.maxSeconds))") }
        case "orphan-sweep":
            guard let mode = OrphanMode(rawValue: value) else { throw UsageError("\(name) needs off, dry-run or on, got '\(WorkerConfig.shown(value))'") }
            orphanMode = mode
        case "orphan-interval-seconds": orphanIntervalSeconds = try seconds(min: 1)
        case "orphan-grace-seconds":
            orphanGraceSeconds = try seconds(min: 600)
            if orphanGraceSeconds == 0 { throw UsageError("\(name) needs a number from 600 to \(Int(WorkerConfig.maxSeconds))") }
        case "private-output-cache-control":
            guard value.count <= 200, value.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value < 0x7f }) else {
                throw UsageError("\(name) needs at most 200 printable ASCII characters, or none")
            }
            privateOutputCacheControl = value
        case "source-retention-days", "redaction-retention-days":
            guard let d = Double(value), d.isFinite, d >= 0, d <= 36_500 else {
                throw UsageError("\(name) needs a number of days from 0 (keep) to 36500, got '\(WorkerConfig.shown(value))'")
            }
            if key == "source-retention-days" { sourceRetentionDays = d } else { redactionRetentionDays = d }
        default: return false
        }
        return true
    }

    /// The waits between failed passes of one deletion: `retryBaseSeconds`, doubled per failure,
    /// at most `retryMaxSeconds`.
    public func retryDelay(afterAttempts attempts: Int) -> Double {
        min(retryMaxSeconds, retryBaseSeconds * Double(1 << min(max(0, attempts), 20)))
    }
}

extension WorkerConfig {
    /// The `Cache-Control` of an output of a room with `visibility` (nil: unknown, treated as
    /// private): `TRANSCODE_OUTPUT_CACHE_CONTROL` for public rooms, else
    /// `TRANSCODE_PRIVATE_OUTPUT_CACHE_CONTROL` when set (`none`: no header).
    public func outputCacheControl(visibility: String?) -> String? {
        guard visibility != "public", let value = deletion.privateOutputCacheControl else { return outputCacheControl }
        return value.isEmpty || value == "none" ? nil : value
    }
}
