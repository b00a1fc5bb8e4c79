import ObjectStorage

/// Where a version's files may be read from and written to.
///
/// Keys in `room_versions` and `redactions` rows are written by the backend and may be wrong or
/// hostile (a key naming another room's scan, or the worker's own outputs). A version may read
/// only keys under its source prefix, the template `TRANSCODE_SOURCE_PREFIX` with `{room_id}` and
/// `{version_id}` replaced (default `rooms/{room_id}/versions/{version_id}/`). Outputs always go
/// to `rooms/{room_id}/versions/{version_id}/r{revision}-{lease8}/` (`ClaimedJob.outputPrefix`).
/// Keys follow `ObjectKey`'s rules (no `.`/`..` or empty segments), so a plain prefix test is a
/// containment test.
public enum StorageConfinement {
    /// The default source prefix template.
    public static let defaultTemplate = "rooms/{room_id}/versions/{version_id}/"

    /// Why `template` cannot be used, or nil: it must end with `/`, use no placeholder other than
    /// `{room_id}` and `{version_id}`, and give a valid key prefix once they are replaced.
    public static func problem(template: String) -> String? {
        guard template.hasSuffix("/") else { return "the source prefix must end with '/'" }
        var rest = template.replacingOccurrences(of: "{room_id}", with: "").replacingOccurrences(of: "{version_id}", with: "")
        if rest.contains("{") || rest.contains("}") { return "the source prefix knows only {room_id} and {version_id}" }
        rest = prefix(template, roomId: "00000000-0000-0000-0000-000000000000", versionId: "00000000-0000-0000-0000-000000000000")
        do { try ObjectKey.validate(String(rest.dropLast())) } catch { return error.message }
        return nil
    }

    /// The template with the ids filled in.
    public static func prefix(_ template: String, roomId: String, versionId: String) -> String {
        template.replacingOccurrences(of: "{room_id}", with: roomId).replacingOccurrences(of: "{version_id}", with: versionId)
    }

    /// The prefix below which every output revision of a version lives.
    public static func outputRoot(roomId: String, versionId: String) -> String {
        "rooms/\(roomId)/versions/\(versionId)/"
    }

    /// Checks that `key` is a valid key strictly below `prefix`. Throws `FailureReason`
    /// `SOURCE_KEY_REFUSED` (permanent: the row itself is wrong) naming `what`, never the key's
    /// contents beyond the first 200 characters.
    static func check(_ key: String, under prefix: String, what: String) throws(FailureReason) {
        let fine: Bool
        do {
            try ObjectKey.validate(key)
            fine = key.hasPrefix(prefix) && key.utf8.count > prefix.utf8.count
        } catch {
            fine = false
        }
        guard fine else {
            throw FailureReason(reason: FailureReason.sourceKeyRefused,
                                message: "SOURCE_KEY_REFUSED: the \(what) key '\(String(key.prefix(200)))' is not below the version's prefix \(prefix)",
                                phase: .downloading, isRetryable: false)
        }
    }

    /// Checks that a row's `source_bucket` (nil: not recorded) is the bucket of the store sources
    /// are read from, so that a row cannot point the worker at another bucket's objects. Throws
    /// `FailureReason` `SOURCE_KEY_REFUSED` (permanent) naming both buckets (first 100 characters).
    static func check(bucket: String?, store: any ObjectStore) throws(FailureReason) {
        guard let bucket, bucket != store.bucket else { return }
        throw FailureReason(reason: FailureReason.sourceKeyRefused,
                            message: "SOURCE_KEY_REFUSED: the version's source bucket '\(String(bucket.prefix(100)))' is not "
                                + "'\(String(store.bucket.prefix(100)))', the bucket this worker reads sources from",
                            phase: .downloading, isRetryable: false)
    }
}
