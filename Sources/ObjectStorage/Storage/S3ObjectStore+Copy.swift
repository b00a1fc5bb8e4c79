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
            throw StorageError(code: StorageError.notFound, message: "\(source): no such object to copy", key: source)
        }
        guard response.isSuccess, !String(decoding: response.body.prefix(512), as: UTF8.self).contains("<Error>") else {
            throw failure(response, key: destination, what: "copy \(source) to", writing: true)
        }
    }
}
