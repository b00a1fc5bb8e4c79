#if canImport(Glibc)
import Glibc
import WorkerCore
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// An `ObjectStore` in an S3 bucket, addressed path-style: the key `a/b.glb` is the object
/// `{endpoint}/{bucket}/{prefix}a/b.glb`. Works with AWS S3, MinIO, moto and Supabase's S3
/// endpoint (whose endpoint carries a path, `https://<ref>.storage.supabase.co/storage/v1/s3`).
///
/// Every request is signed with SigV4 (`SigV4Signer`, the payload hashed). A request that fails
/// with 5xx, 429 or a transport failure (timeout, refused or broken connection) is sent again
/// after 0.2 s, 0.8 s and 2 s; after that the operation throws `STORAGE_UNAVAILABLE` (reads) or
/// `STORAGE_WRITE_FAILED` (writes), both retryable. 403 is `STORAGE_FORBIDDEN` (permanent), 404
/// of an object `STORAGE_NOT_FOUND`. `contentType` is stored as the object's Content-Type.
/// Objects whose key breaks the key rules can exist in a bucket; `list` returns them as they are.
public struct S3ObjectStore: ObjectStore {
    /// `http(s)://host[:port][/path]`, without a trailing `/`.
    public let endpoint: String
    public let bucket: String
    /// Prepended to every key: empty, or ending with `/`.
    public let prefix: String
    /// The same as `prefix`.
    public var keyPrefix: String { prefix }
    /// The signing region, e.g. `us-east-1`.
    public let region: String
    let credentials: SigV4Credentials
    /// `max-keys` of each ListObjectsV2 page (S3's default of 1000 when nil); tests set it small.
    let pageSize: Int?
    /// Seconds one HTTP exchange may take.
    let timeout: Double
    /// Sends and signs `/` in query values unencoded: moto decodes `%2F` in the query before it
    /// checks a signature, so listings with a `/` in the prefix need this there. AWS needs false.
    let slashInQuery: Bool
    /// Waits before the second, third and fourth attempt of a failed request.
    static let retryDelays: [Double] = [0.2, 0.8, 2]

    /// A store for `bucket` at `endpoint`. `prefix` is empty or a key prefix (a `/` is added when
    /// missing). Throws `STORAGE_URL_INVALID` for a malformed endpoint, bucket or prefix.
    public init(endpoint: String, bucket: String, prefix: String = "", region: String = "us-east-1",
                credentials: SigV4Credentials, timeout: Double = 60) throws(StorageError) {
        try self.init(endpoint: endpoint, bucket: bucket, prefix: prefix, region: region, credentials: credentials,
                      timeout: timeout, pageSize: nil)
    }

    init(endpoint: String, bucket: String, prefix: String, region: String, credentials: SigV4Credentials,
         timeout: Double, pageSize: Int?, slashInQuery: Bool = false) throws(StorageError) {
        var normalized = endpoint
        while normalized.hasSuffix("/") { normalized.removeLast() }
        guard let url = URL(string: normalized), let scheme = url.scheme?.lowercased(),
              scheme == "http" || scheme == "https", let host = url.host, !host.isEmpty,
              url.user == nil, url.password == nil, url.query == nil, url.fragment == nil
        else {
            throw StorageError(code: .urlInvalid,
                               message: "an S3 endpoint is http(s)://host[:port][/path] without credentials, query or fragment")
        }
        guard !bucket.isEmpty, bucket.utf8.count <= 255,
              bucket.utf8.allSatisfy({ Self.isBucketByte($0) }) else {
            throw StorageError(code: .urlInvalid,
                               message: "an S3 bucket name has only letters, digits, '.', '-' and '_'")
        }
        guard !region.isEmpty, region.utf8.allSatisfy({ Self.isBucketByte($0) }) else {
            throw StorageError(code: .urlInvalid, message: "an S3 region has only letters, digits, '.', '-' and '_'")
        }
        var keyPrefix = prefix
        if !keyPrefix.isEmpty {
            if !keyPrefix.hasSuffix("/") { keyPrefix += "/" }
            do throws(StorageError) {
                try ObjectKey.validate(String(keyPrefix.dropLast()))
            } catch {
                throw StorageError(code: .urlInvalid, message: "the S3 key prefix is malformed: \(error.message)")
            }
        }
        self.endpoint = normalized
        self.bucket = bucket
        self.prefix = keyPrefix
        self.region = region
        self.credentials = credentials
        self.timeout = timeout
        self.pageSize = pageSize
        self.slashInQuery = slashInQuery
    }

    /// `s3://bucket/prefix?endpoint=…&region=…`; never the credentials.
    public var location: String {
        "s3://\(bucket)/\(StorageURL.percentEncodePath(prefix))?endpoint=\(endpoint)&region=\(region)"
    }

    /// GETs the object. The size is checked against `maxBytes` from the response's Content-Length
    /// before the body is taken in (the transfer is cut off past the limit). Throws
    /// `STORAGE_NOT_FOUND`, `STORAGE_TOO_LARGE`, `STORAGE_FORBIDDEN`, `STORAGE_UNAVAILABLE`
    /// (retryable), `STORAGE_INVALID_KEY`.
    public func get(_ key: String, maxBytes: Int) throws(StorageError) -> [UInt8] {
        try ObjectKey.validate(key)
        let limit = max(0, maxBytes)
        // Room for an error document even when the caller's limit is tiny.
        let cap = limit > Int.max - 65536 ? Int.max : max(limit, 65536)
        let response = try send("GET", path: objectPath(key), maxResponseBytes: cap, key: key, writing: false,
                                tooLargeLimit: limit)
        guard response.status == 200 else { throw failure(response, key: key, what: "read", writing: false) }
        if let announced = response.headers["content-length"].flatMap({ Int($0) }) {
            guard announced <= limit else { throw tooLarge(key, size: announced, limit: limit) }
            guard announced == response.body.count else {
                throw StorageError(code: .unavailable,
                                   message: "\(key): received \(response.body.count) of \(announced) bytes", key: key)
            }
        }
        guard response.body.count <= limit else { throw tooLarge(key, size: response.body.count, limit: limit) }
        return response.body
    }

    /// PUTs the object with an explicit Content-Type (`application/octet-stream` when
    /// `contentType` is empty), Content-Length and, when given, a signed `Cache-Control` (S3 and
    /// Supabase Storage serve it back). Throws `STORAGE_WRITE_FAILED` (retryable),
    /// `STORAGE_FORBIDDEN`, `STORAGE_INVALID_KEY`.
    public func put(_ key: String, bytes: [UInt8], contentType: String, cacheControl: String?) throws(StorageError) {
        try ObjectKey.validate(key)
        let type = contentType.isEmpty ? "application/octet-stream" : contentType
        var headers = [("Content-Type", type)]
        if let cacheControl, !cacheControl.isEmpty { headers.append(("Cache-Control", cacheControl)) }
        let response = try send("PUT", path: objectPath(key), headers: headers, body: bytes,
                                key: key, writing: true)
        guard response.isSuccess else { throw failure(response, key: key, what: "write", writing: true) }
    }

    /// DELETEs the object; a missing one (204 or 404) is fine. Throws `STORAGE_WRITE_FAILED`
    /// (retryable), `STORAGE_FORBIDDEN`, `STORAGE_INVALID_KEY`.
    public func delete(_ key: String) throws(StorageError) {
        try ObjectKey.validate(key)
        let response = try send("DELETE", path: objectPath(key), key: key, writing: true)
        guard response.isSuccess || response.status == 404 else {
            throw failure(response, key: key, what: "delete", writing: true)
        }
    }

    /// Pages through ListObjectsV2 with `prefix` and continuation tokens. Throws
    /// `STORAGE_UNAVAILABLE` (retryable; also for a missing bucket), `STORAGE_FORBIDDEN`,
    /// `STORAGE_INVALID_KEY`.
    public func list(prefix: String) throws(StorageError) -> [String] {
        try listObjects(prefix: prefix).map(\.key)
    }

    /// ListObjectsV2, page by page: every object's key, `Size` and `LastModified`.
    public func listObjects(prefix: String) throws(StorageError) -> [StoredObject] {
        try ObjectKey.validatePrefix(prefix)
        var objects: [StoredObject] = []
        var token: String?
        var pages = 0
        repeat {
            var query: [(String, String)] = [("list-type", "2"), ("prefix", self.prefix + prefix)]
            if let pageSize { query.append(("max-keys", String(pageSize))) }
            if let token { query.append(("continuation-token", token)) }
            let response = try send("GET", path: bucketPath, query: query, maxResponseBytes: 16 << 20, key: nil, writing: false)
            guard response.status == 200 else {
                var error = failure(response, key: nil, what: "list \(prefix)", writing: false)
                if response.status == 404 { error = StorageError(code: .unavailable, message: error.message, isRetryable: false) }
                throw error
            }
            let document = String(decoding: response.body, as: UTF8.self)
            for entry in S3XML.values(of: "Contents", in: document) {
                guard let raw = S3XML.values(of: "Key", in: entry).first else { continue }
                let key = S3XML.unescape(raw)
                guard key.hasPrefix(self.prefix) else { continue }
                let size = S3XML.values(of: "Size", in: entry).first.flatMap { Int($0) } ?? 0
                let modified = S3XML.values(of: "LastModified", in: entry).first.flatMap(Self.epochSeconds) ?? 0
                objects.append(StoredObject(key: String(key.dropFirst(self.prefix.count)), bytes: size, modified: modified))
            }
            let truncated = S3XML.values(of: "IsTruncated", in: document).first == "true"
            token = truncated ? S3XML.values(of: "NextContinuationToken", in: document).first.map(S3XML.unescape) : nil
            if truncated && token == nil {
                throw StorageError(code: .unavailable, message: "list \(prefix): a truncated page without a continuation token")
            }
            pages += 1
            if pages > 1_000_000 {
                throw StorageError(code: .unavailable, message: "list \(prefix): the listing does not end")
            }
        } while token != nil
        return objects.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
    }

    /// `2026-12-01T13:30:18.000Z` → seconds since 1970 (UTC); nil when malformed.
    static func epochSeconds(_ text: String) -> Double? {
        let digits = text.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        guard digits.count >= 6, (1970...9999).contains(digits[0]), (1...12).contains(digits[1]), (1...31).contains(digits[2]) else { return nil }
        // Days since 1970 from the civil date (proleptic Gregorian calendar, March-based years).
        let y = digits[1] <= 2 ? digits[0] - 1 : digits[0]
        let era = y / 400, yoe = y - era * 400
        let mp = (digits[1] + 9) % 12
        let doy = (153 * mp + 2) / 5 + digits[2] - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146_097 + doe - 719_468
        return Double(days * 86_400 + digits[3] * 3600 + digits[4] * 60 + digits[5])
    }

    /// HEADs the object: its Content-Length, or nil on 404. Throws `STORAGE_UNAVAILABLE`
    /// (retryable), `STORAGE_FORBIDDEN`, `STORAGE_INVALID_KEY`.
    public func size(_ key: String) throws(StorageError) -> Int? {
        try ObjectKey.validate(key)
        // A HEAD has no body, but its Content-Length announces the object's: no cap may apply.
        let response = try send("HEAD", path: objectPath(key), maxResponseBytes: Int.max, key: key, writing: false)
        if response.status == 404 { return nil }
        guard response.status == 200 else { throw failure(response, key: key, what: "examine", writing: false) }
        guard let length = response.headers["content-length"].flatMap({ Int($0) }), length >= 0 else {
            throw StorageError(code: .unavailable, message: "\(key): the response has no Content-Length", key: key)
        }
        return length
    }

    /// Creates the bucket (PUT on `/{bucket}`, with a location constraint outside us-east-1); an
    /// existing bucket of the same owner is fine. For tests and local setups.
    func createBucket() throws(StorageError) {
        var body: [UInt8] = []
        var headers: [(String, String)] = []
        if region != "us-east-1" {
            body = Array(("<CreateBucketConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
                + "<LocationConstraint>\(region)</LocationConstraint></CreateBucketConfiguration>").utf8)
            headers.append(("Content-Type", "application/xml"))
        }
        let response = try send("PUT", path: bucketPath, headers: headers, body: body, key: nil, writing: true)
        guard response.isSuccess || S3XML.values(of: "Code", in: String(decoding: response.body, as: UTF8.self)).first == "BucketAlreadyOwnedByYou"
        else { throw failure(response, key: nil, what: "create bucket \(bucket)", writing: true) }
    }

    // MARK: - Requests

    private var bucketPath: String { "/" + SigV4Signer.uriEncode(bucket, keepSlash: false) }

    func objectPath(_ key: String) -> String {
        bucketPath + "/" + SigV4Signer.uriEncode(prefix + key, keepSlash: true)
    }

    /// Signs and sends one request, again after each retry delay while it fails with a transport
    /// error, 5xx or 429. Returns any other response; throws when the attempts are used up.
    func send(_ method: String, path: String, query: [(String, String)] = [], headers: [(String, String)] = [],
                      body: [UInt8] = [], maxResponseBytes: Int = 1 << 20, key: String?, writing: Bool,
                      tooLargeLimit: Int? = nil) throws(StorageError) -> HTTPResponse {
        var url = endpoint + path
        if !query.isEmpty {
            url += "?" + query.map { SigV4Signer.uriEncode($0.0, keepSlash: slashInQuery) + "=" + SigV4Signer.uriEncode($0.1, keepSlash: slashInQuery) }
                .joined(separator: "&")
        }
        let payloadHash = Digest.hex(Digest.sha256(body))
        let client = HTTPClient(maxResponseBytes: maxResponseBytes)
        let label = "\(method) \(bucket)/\(prefix)\(key ?? "")"
        var lastProblem = ""
        for attempt in 0...Self.retryDelays.count {
            if attempt > 0 { Self.pause(Self.retryDelays[attempt - 1]) }
            let signature = SigV4Signer.sign(method: method, url: url, headers: headers, payloadHash: payloadHash,
                                             credentials: credentials, region: region, service: "s3", date: Date(),
                                             slashInQuery: slashInQuery)
            let request = HTTPRequest(method: method, url: url, headers: headers + signature, body: body, timeout: timeout)
            let response: HTTPResponse
            do throws(HTTPClientError) {
                response = try client.send(request)
            } catch {
                if error.code == .responseTooLarge {
                    if let limit = tooLargeLimit, let key { throw tooLarge(key, size: nil, limit: limit) }
                    throw StorageError(code: writing ? .writeFailed : .unavailable,
                                       message: "\(label): \(error.message)", key: key, isRetryable: false)
                }
                guard error.isRetryable else {
                    throw StorageError(code: writing ? .writeFailed : .unavailable,
                                       message: "\(label): \(error.message)", key: key, isRetryable: false)
                }
                lastProblem = error.message
                continue
            }
            if response.status >= 500 || response.status == 429 {
                lastProblem = "HTTP \(response.status)" + (Self.errorCode(response).map { " \($0)" } ?? "")
                continue
            }
            return response
        }
        throw StorageError(code: writing ? .writeFailed : .unavailable,
                           message: "\(label) failed \(Self.retryDelays.count + 1) times; last: \(lastProblem)", key: key)
    }

    /// The error for an unexpected status: 403 `STORAGE_FORBIDDEN`, 404 `STORAGE_NOT_FOUND`,
    /// anything else a permanent `STORAGE_UNAVAILABLE` / `STORAGE_WRITE_FAILED`.
    func failure(_ response: HTTPResponse, key: String?, what: String, writing: Bool) -> StorageError {
        let code = Self.errorCode(response).map { " (\($0))" } ?? ""
        let subject = key.map { "\($0): " } ?? ""
        switch response.status {
        case 403:
            return StorageError(code: .forbidden,
                                message: "\(subject)the S3 store refused to \(what): HTTP 403\(code)", key: key)
        case 404:
            return StorageError(code: .notFound, message: "\(subject)no such object: HTTP 404\(code)", key: key)
        default:
            return StorageError(code: writing ? .writeFailed : .unavailable,
                                message: "\(subject)cannot \(what): HTTP \(response.status)\(code)", key: key, isRetryable: false)
        }
    }

    private func tooLarge(_ key: String, size: Int?, limit: Int) -> StorageError {
        let shown = size.map { "is \($0) bytes" } ?? "is larger than the limit"
        return StorageError(code: .tooLarge, message: "\(key) \(shown); the limit is \(limit) bytes", key: key)
    }

    /// The `<Code>` of an S3 error document, when it is a short plain token.
    private static func errorCode(_ response: HTTPResponse) -> String? {
        guard let code = S3XML.values(of: "Code", in: String(decoding: response.body.prefix(4096), as: UTF8.self)).first,
              code.count <= 64, code.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "." })
        else { return nil }
        return code
    }

    private static func pause(_ seconds: Double) {
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - seconds.rounded(.down)) * 1e9))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
    }

    private static func isBucketByte(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "_"):
            return true
        default:
            return false
        }
    }
}

/// The little XML that S3 responses need: the text of simple elements, with entities decoded.
enum S3XML {
    /// The raw text of every `<name>…</name>` element, in document order.
    static func values(of name: String, in document: String) -> [String] {
        let open = "<\(name)>"
        let close = "</\(name)>"
        var out: [String] = []
        var rest = document[...]
        while let start = rest.range(of: open) {
            let after = rest[start.upperBound...]
            guard let end = after.range(of: close) else { break }
            out.append(String(after[..<end.lowerBound]))
            rest = after[end.upperBound...]
        }
        return out
    }

    /// Decodes the five named entities and numeric character references.
    static func unescape(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var out = ""
        var rest = text[...]
        while let amp = rest.firstIndex(of: "&") {
            out += rest[..<amp]
            let tail = rest[amp...]
            guard let semi = tail.firstIndex(of: ";"), tail.distance(from: amp, to: semi) <= 10 else {
                out += "&"
                rest = rest[rest.index(after: amp)...]
                continue
            }
            let entity = tail[tail.index(after: amp)..<semi]
            var replacement: String?
            switch entity {
            case "amp": replacement = "&"
            case "lt": replacement = "<"
            case "gt": replacement = ">"
            case "quot": replacement = "\""
            case "apos": replacement = "'"
            default:
                if entity.hasPrefix("#x") || entity.hasPrefix("#X") {
                    replacement = UInt32(entity.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init).map { String(Character($0)) }
                } else if entity.hasPrefix("#") {
                    replacement = UInt32(entity.dropFirst()).flatMap(Unicode.Scalar.init).map { String(Character($0)) }
                }
            }
            if let replacement {
                out += replacement
                rest = rest[rest.index(after: semi)...]
            } else {
                out += "&"
                rest = rest[rest.index(after: amp)...]
            }
        }
        out += rest
        return out
    }
}
