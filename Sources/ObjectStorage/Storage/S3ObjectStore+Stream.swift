import WorkerCore

extension S3ObjectStore {
    /// PUTs the object as `put(_:bytes:…)` does, its body streamed from `source` and signed with
    /// the SHA-256 `source` states (S3 refuses a body with another hash: `STORAGE_WRITE_FAILED`).
    public func put(_ key: String, source: ObjectSource, contentType: String, cacheControl: String?) throws(StorageError) {
        try ObjectKey.validate(key)
        let type = contentType.isEmpty ? "application/octet-stream" : contentType
        var headers = [("Content-Type", type)]
        if let cacheControl, !cacheControl.isEmpty { headers.append(("Cache-Control", cacheControl)) }
        let response = try send("PUT", path: objectPath(key), headers: headers, bodyFile: source, key: key, writing: true)
        guard response.isSuccess else { throw failure(response, key: key, what: "write", writing: true) }
    }
}
