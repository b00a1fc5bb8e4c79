import Foundation

/// Server-side copies on S3.
extension S3ObjectStore {
    /// `CopyObject`: a PUT of `destination` with `x-amz-copy-source` naming `source` in this
    /// bucket and `x-amz-metadata-directive: REPLACE` with the given Content-Type and
    /// Cache-Control; the bytes never leave the store. A 200 whose body is an `<Error>` document
    /// (S3 may fail a copy after answering 200) is a failure. Throws `STORAGE_NOT_FOUND`,
    /// `STORAGE_WRITE_FAILED` (retryable), `STORAGE_FORBIDDEN`, `STORAGE_INVALID_KEY`.
    public func copy(_ source: String, to destination: String, contentType: String, cacheControl: String?) throws(StorageError) {
        try ObjectKey.validate(source)
        try ObjectKey.validate(destination)
        let copySource = "/" + SigV4Signer.uriEncode(bucket, keepSlash: false) + "/" + SigV4Signer.uriEncode(prefix + source, keepSlash: true)
        var headers = [("x-amz-copy-source", copySource), ("x-amz-metadata-directive", "REPLACE"),
                       ("Content-Type", contentType.isEmpty ? "application/octet-stream" : contentType)]
        if let cacheControl, !cacheControl.isEmpty { headers.append(("Cache-Control", cacheControl)) }
        let response = try send("PUT", path: objectPath(destination), headers: headers, key: destination, writing: true)
        if response.status == 404 {
            throw StorageError(code: .notFound, message: "\(source): no such object to copy", key: source)
        }
        guard response.isSuccess, !String(decoding: response.body.prefix(512), as: UTF8.self).contains("<Error>") else {
            throw failure(response, key: destination, what: "copy \(source) to", writing: true)
        }
    }
}

/// Many copies and deletes: a few requests in flight at once, so a reprocess that reuses a
/// dozen objects waits for about a quarter of the round trips.
extension S3ObjectStore {
    /// Requests in flight at once in `copy(all:)` and `delete(all:)`.
    public static let requestsAtOnce = 4

    /// `CopyObject` for each copy, `requestsAtOnce` at a time. Returns the failed copies by
    /// destination key, with what `copy` throws.
    public func copy(all copies: [ObjectCopy], cacheControl: String?) -> [String: StorageError] {
        inLanes(copies.map(\.destination)) { (i) throws(StorageError) in
            try copy(copies[i].source, to: copies[i].destination, contentType: copies[i].contentType, cacheControl: cacheControl)
        }
    }

    /// `DELETE` of each key, `requestsAtOnce` at a time. Returns the keys that could not be
    /// deleted, with what `delete` throws.
    public func delete(all keys: [String]) -> [String: StorageError] {
        inLanes(keys) { (i) throws(StorageError) in try delete(keys[i]) }
    }

    /// Runs `body(i)` for every index of `names` on up to `requestsAtOnce` threads and collects
    /// the errors by `names[i]`.
    private func inLanes(_ names: [String], _ body: @escaping @Sendable (Int) throws(StorageError) -> Void) -> [String: StorageError] {
        let lanes = min(Self.requestsAtOnce, names.count)
        guard lanes > 1 else {
            var failed: [String: StorageError] = [:]
            for i in names.indices {
                do { try body(i) } catch { failed[names[i]] = error }
            }
            return failed
        }
        let results = FailureList()
        let group = DispatchGroup()
        for lane in 0..<lanes {
            group.enter()
            let thread = Thread {
                for i in stride(from: lane, to: names.count, by: lanes) {
                    do throws(StorageError) { try body(i) } catch { results.add(names[i], error) }
                }
                group.leave()
            }
            thread.name = "storage-batch"
            thread.start()
        }
        group.wait()
        return results.all
    }
}

/// The errors of a batch, collected from several threads.
private final class FailureList: @unchecked Sendable {
    private let lock = NSLock()
    private var failed: [String: StorageError] = [:]

    func add(_ name: String, _ error: StorageError) {
        lock.lock()
        failed[name] = error
        lock.unlock()
    }

    var all: [String: StorageError] {
        lock.lock()
        defer { lock.unlock() }
        return failed
    }
}
