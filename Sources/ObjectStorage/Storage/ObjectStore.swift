/// Where sources and outputs live: keys are relative, `/`-separated paths (no leading `/`, no `..`
/// segments, no empty segments; the full rules are `ObjectKey`). Backends: `FileObjectStore`
/// (a local directory); `StorageURL.open` picks one from a URL.
///
/// Every method is synchronous (callers run on plain threads) and safe to call from many threads
/// at once. Every method validates its key first and throws `STORAGE_INVALID_KEY` for a bad one.
/// Byte counts are bytes.
public protocol ObjectStore: Sendable {
    /// Reads a whole object into a new array owned by the caller. The size is checked before any
    /// byte is read. Throws `StorageError` `STORAGE_NOT_FOUND` when the key does not exist,
    /// `STORAGE_TOO_LARGE` when the object is larger than `maxBytes`, `STORAGE_UNAVAILABLE`
    /// (retryable) when the store cannot be read, `STORAGE_INVALID_KEY`.
    func get(_ key: String, maxBytes: Int) throws(StorageError) -> [UInt8]

    /// Writes an object, replacing any existing one atomically: readers see the old object or the
    /// whole new one, never a part. `contentType` is the MIME type for backends that store one.
    /// Throws `STORAGE_WRITE_FAILED` (retryable), `STORAGE_NO_SPACE`, `STORAGE_INVALID_KEY` (also
    /// when the key clashes with an existing prefix on a backend that cannot hold both).
    /// `cacheControl` is the `Cache-Control` a CDN in front of the store serves the object with
    /// (nil: none; backends without metadata ignore it).
    func put(_ key: String, bytes: [UInt8], contentType: String, cacheControl: String?) throws(StorageError)

    /// Writes an object as `put(_:bytes:…)` does, its bytes streamed from `source` (never held
    /// whole in memory). Throws what `put(_:bytes:…)` throws.
    func put(_ key: String, source: ObjectSource, contentType: String, cacheControl: String?) throws(StorageError)

    /// Copies the object at `source` to `destination` inside this store, with `contentType` and
    /// `cacheControl` as `put` sets them, without the bytes passing through the caller where the
    /// backend allows (S3 `CopyObject`; a hard link on a file store). Throws `STORAGE_NOT_FOUND`
    /// when `source` does not exist, and what `get` and `put` throw.
    func copy(_ source: String, to destination: String, contentType: String, cacheControl: String?) throws(StorageError)

    /// Deletes an object. Deleting a missing key is not an error. Throws `STORAGE_WRITE_FAILED`
    /// (retryable), `STORAGE_INVALID_KEY`.
    func delete(_ key: String) throws(StorageError)

    /// Makes every copy in `copies` as `copy` does, with `cacheControl` on each; backends may do
    /// them together (a file store flushes each destination directory once, not once per
    /// object; S3 runs a few `CopyObject`s at once). Returns the copies that failed, by
    /// destination key, with what `copy` would have thrown; empty when all were made.
    func copy(all copies: [ObjectCopy], cacheControl: String?) -> [String: StorageError]

    /// Deletes every key in `keys` as `delete` does; backends may do it together (a file store
    /// flushes each directory once, not once per object). Returns the keys that could not be
    /// deleted, with why; empty when all are gone.
    func delete(all keys: [String]) -> [String: StorageError]

    /// Every key that starts with `prefix` (`""` for all), sorted by UTF-8 bytes. A prefix is
    /// matched as a string, not as a directory: `a/b` matches `a/b/c` and `a/bc`. Throws
    /// `STORAGE_UNAVAILABLE` (retryable), `STORAGE_INVALID_KEY` for a malformed prefix.
    func list(prefix: String) throws(StorageError) -> [String]

    /// Like `list`, with each object's size in bytes and last modification time (seconds since
    /// 1970, UTC), for sweeping old objects. Throws like `list`.
    func listObjects(prefix: String) throws(StorageError) -> [StoredObject]

    /// The size of an object in bytes, or nil when it does not exist. Throws
    /// `STORAGE_UNAVAILABLE` (retryable), `STORAGE_INVALID_KEY`.
    func size(_ key: String) throws(StorageError) -> Int?

    /// The bucket the backend serves the keys from: the S3 bucket, or the file store's directory
    /// name. Rows record it beside each path (`room_versions.output_bucket`).
    var bucket: String { get }
    /// What the backend puts before every key (an `s3://bucket/prefix` URL's prefix; `""` for
    /// file stores). An object's path in its bucket is `keyPrefix + key`.
    var keyPrefix: String { get }
    /// A human-readable description for logs, e.g. `file:///abs/dir`; never contains credentials.
    var location: String { get }
}

extension ObjectStore {
    /// The largest object the generic `copy` moves through memory, bytes.
    public static var maxCopyBytes: Int { 1 << 30 }

    /// `copy` for a backend without a server-side copy: a `get` followed by a `put`.
    public func copy(_ source: String, to destination: String, contentType: String, cacheControl: String?) throws(StorageError) {
        let bytes = try get(source, maxBytes: Self.maxCopyBytes)
        try put(destination, bytes: bytes, contentType: contentType, cacheControl: cacheControl)
    }

    /// `copy(all:)` one copy after another.
    public func copy(all copies: [ObjectCopy], cacheControl: String?) -> [String: StorageError] {
        var failed: [String: StorageError] = [:]
        for c in copies {
            do { try copy(c.source, to: c.destination, contentType: c.contentType, cacheControl: cacheControl) } catch {
                failed[c.destination] = error
            }
        }
        return failed
    }

    /// `delete(all:)` one key after another.
    public func delete(all keys: [String]) -> [String: StorageError] {
        var failed: [String: StorageError] = [:]
        for key in keys {
            do { try delete(key) } catch { failed[key] = error }
        }
        return failed
    }

    /// Writes an object with no `Cache-Control` (see the protocol's `put`).
    public func put(_ key: String, bytes: [UInt8], contentType: String) throws(StorageError) {
        try put(key, bytes: bytes, contentType: contentType, cacheControl: nil)
    }
}

/// One object of a listing.
public struct StoredObject: Sendable, Equatable {
    public var key: String
    /// Bytes.
    public var bytes: Int
    /// Last modification, seconds since 1970 (UTC).
    public var modified: Double

    public init(key: String, bytes: Int, modified: Double) {
        self.key = key
        self.bytes = bytes
        self.modified = modified
    }
}

/// One server-side copy of `copy(all:)`: `source` to `destination` in the same store, stored with
/// `contentType`.
public struct ObjectCopy: Sendable, Equatable {
    public var source: String
    public var destination: String
    public var contentType: String

    public init(source: String, destination: String, contentType: String) {
        self.source = source
        self.destination = destination
        self.contentType = contentType
    }
}
