/// The key rules every `ObjectStore` backend enforces, so that a key means the same object on a
/// local directory and on an S3-style bucket and can never escape a backend's root.
///
/// A key is a relative, `/`-separated path: not empty, at most `maxBytes` UTF-8 bytes, no leading
/// `/`, no empty segments (so no trailing `/` and no `//`), no `.` or `..` segments, each segment
/// at most `maxSegmentBytes` bytes, and no NUL or backslash anywhere.
public enum ObjectKey {
    /// The longest key, in UTF-8 bytes (S3's limit).
    public static let maxBytes = 1024
    /// The longest segment, in UTF-8 bytes (the usual file-name limit).
    public static let maxSegmentBytes = 255

    /// Checks `key`. Throws `StorageError` `STORAGE_INVALID_KEY` naming the broken rule.
    public static func validate(_ key: String) throws(StorageError) {
        let bytes = Array(key.utf8)
        guard !bytes.isEmpty else { throw invalid(key, "the key is empty") }
        guard bytes.count <= maxBytes else { throw invalid(key, "the key is longer than \(maxBytes) bytes") }
        guard bytes[0] != UInt8(ascii: "/") else { throw invalid(key, "the key must be relative (no leading '/')") }
        try checkCharacters(key, bytes)
        for segment in bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false) {
            try checkSegment(key, segment)
        }
    }

    /// Checks a listing prefix: empty (everything), or a key's beginning: the complete segments
    /// before the last `/` follow the key rules; the part after it may be empty or partial.
    /// Throws `StorageError` `STORAGE_INVALID_KEY`.
    public static func validatePrefix(_ prefix: String) throws(StorageError) {
        let bytes = Array(prefix.utf8)
        if bytes.isEmpty { return }
        guard bytes.count <= maxBytes else { throw invalid(prefix, "the prefix is longer than \(maxBytes) bytes") }
        guard bytes[0] != UInt8(ascii: "/") else { throw invalid(prefix, "the prefix must be relative (no leading '/')") }
        try checkCharacters(prefix, bytes)
        let parts = bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        for segment in parts.dropLast() { try checkSegment(prefix, segment) }
        if let last = parts.last, last.count > maxSegmentBytes {
            throw invalid(prefix, "a segment is longer than \(maxSegmentBytes) bytes")
        }
    }

    /// The part of `prefix` up to and including its last `/` (`""` when it has none): the
    /// directory a listing has to walk.
    public static func directoryPart(of prefix: String) -> String {
        guard let slash = prefix.lastIndex(of: "/") else { return "" }
        return String(prefix[...slash])
    }

    /// Sorts keys by their UTF-8 bytes, the order S3 lists them in.
    public static func sorted(_ keys: [String]) -> [String] {
        keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    private static func checkCharacters(_ key: String, _ bytes: [UInt8]) throws(StorageError) {
        if bytes.contains(0) { throw invalid(key, "the key contains a NUL byte") }
        if bytes.contains(UInt8(ascii: "\\")) { throw invalid(key, "the key contains a backslash") }
    }

    private static func checkSegment(_ key: String, _ segment: ArraySlice<UInt8>) throws(StorageError) {
        if segment.isEmpty { throw invalid(key, "the key has an empty segment") }
        if segment.elementsEqual([UInt8(ascii: ".")]) || segment.elementsEqual([UInt8(ascii: "."), UInt8(ascii: ".")]) {
            throw invalid(key, "the key has a '.' or '..' segment")
        }
        if segment.count > maxSegmentBytes { throw invalid(key, "a segment is longer than \(maxSegmentBytes) bytes") }
    }

    private static func invalid(_ key: String, _ why: String) -> StorageError {
        // The key goes into the message escaped, so a NUL or control byte cannot reach a log line raw.
        let shown = key.unicodeScalars.prefix(200).map { $0.value < 0x20 || $0.value == 0x7f ? "\\u{\(String($0.value, radix: 16))}" : String($0) }.joined()
        return StorageError(code: .invalidKey, message: "invalid object key \"\(shown)\": \(why)", key: key)
    }
}
