import WorkerCore

extension S3ObjectStore {
    /// PUTs the object as `put(_:bytes:…)` does, with the bytes `source` holds: read from the held
    /// file (never from where it came from), one object in memory at a time, and sent as one
    /// request body with `Content-Length`, which every S3-compatible store and proxy takes (a
    /// streamed file body makes libcurl wait on `Expect: 100-continue`). Throws what
    /// `put(_:bytes:…)` throws, and `STORAGE_WRITE_FAILED` when the held bytes are not the
    /// `source.bytes` bytes of hash `source.sha256` it states.
    public func put(_ key: String, source: ObjectSource, contentType: String, cacheControl: String?) throws(StorageError) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(source.bytes)
        let e = source.forEachChunk { bytes.append(contentsOf: $0); return 0 }
        guard e == 0, bytes.count == source.bytes, Digest.hex(Digest.sha256(bytes)) == source.sha256 else {
            throw StorageError(code: .writeFailed, message: "\(key): the held bytes are not those taken in", key: key,
                               isRetryable: false)
        }
        try put(key, bytes: bytes, contentType: contentType, cacheControl: cacheControl)
    }
}
