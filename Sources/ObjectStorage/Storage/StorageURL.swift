import Foundation
import WorkerCore

/// Opens an `ObjectStore` from a storage URL, as given in configuration.
///
/// Supported forms:
/// * `file:///abs/dir` (or `file://localhost/abs/dir`): a `FileObjectStore` rooted at the
///   percent-decoded absolute path, created when missing.
/// * `s3://bucket/prefix?endpoint=http://host:port&region=us-east-1`: an `S3ObjectStore`
///   (path-style) with the keys under the percent-decoded `prefix` (may be empty). `region`
///   defaults to `us-east-1`, `endpoint` to `https://s3.REGION.amazonaws.com`; both are
///   percent-decoded. Credentials come from `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and
///   `AWS_SESSION_TOKEN` (optional), never from the URL. `query_slash=literal` sends and signs
///   `/` in query values (list prefixes) unencoded, as moto's signature check expects; AWS, MinIO
///   and Supabase Storage want the default (`encoded`).
///
/// A new backend adds a `case` to the scheme switch in `open`.
public enum StorageURL {
    /// The store `url` names. The caller owns the returned store; it holds no open resources.
    /// Throws `StorageError` `STORAGE_URL_INVALID` for a malformed URL, an unknown scheme, a
    /// relative or non-directory path, an `s3://` URL without credentials in the environment;
    /// `STORAGE_UNAVAILABLE`
    /// (retryable) when the directory cannot be created. Messages never repeat the URL's
    /// credentials.
    public static func open(_ url: String) throws(StorageError) -> any ObjectStore {
        guard let separator = url.firstRange(of: "://") else {
            throw invalid("a storage URL looks like file:///absolute/dir or s3://bucket/prefix")
        }
        let scheme = url[..<separator.lowerBound].lowercased()
        let rest = url[separator.upperBound...]
        switch scheme {
        case "file":
            return try FileObjectStore(root: try fileRoot(rest), create: true)
        case "s3":
            return try s3Store(rest, environment: ProcessEnvironment.current)
        default:
            let shown = scheme.unicodeScalars.allSatisfy { $0.isASCII && $0.value > 0x20 } ? scheme : "?"
            throw invalid("unsupported storage URL scheme '\(shown)' (expected file:// or s3://)")
        }
    }

    /// The store of an `s3://` URL from the part after `s3://`.
    static func s3Store(_ rest: Substring, environment: [String: String]) throws(StorageError) -> S3ObjectStore {
        guard !rest.contains("#") else { throw invalid("an s3 storage URL has no fragment") }
        let pathPart = rest.firstIndex(of: "?").map { rest[..<$0] } ?? rest
        let queryPart = rest.firstIndex(of: "?").map { rest[rest.index(after: $0)...] } ?? ""
        let bucketEnd = pathPart.firstIndex(of: "/") ?? pathPart.endIndex
        let bucket = String(pathPart[..<bucketEnd])
        guard !bucket.isEmpty, !bucket.contains("@"), !bucket.contains(":") else {
            throw invalid("an s3 storage URL looks like s3://bucket/prefix?endpoint=http://host:port&region=us-east-1")
        }
        let prefix = bucketEnd == pathPart.endIndex ? "" : try percentDecode(pathPart[pathPart.index(after: bucketEnd)...])
        var region = "us-east-1"
        var endpoint: String?
        var slashInQuery = false
        for item in queryPart.split(separator: "&") {
            let eq = item.firstIndex(of: "=") ?? item.endIndex
            let name = item[..<eq]
            let value = eq == item.endIndex ? "" : try percentDecode(item[item.index(after: eq)...])
            switch name {
            case "region": region = value
            case "endpoint": endpoint = value
            case "query_slash":
                guard value == "literal" || value == "encoded" else {
                    throw invalid("query_slash is literal or encoded")
                }
                slashInQuery = value == "literal"
            default:
                let shown = name.unicodeScalars.allSatisfy { $0.isASCII && $0.value > 0x20 } ? String(name) : "?"
                throw invalid("unknown s3 storage URL parameter '\(shown)' (expected endpoint, region or query_slash)")
            }
        }
        guard let credentials = SigV4Credentials.fromEnvironment(environment) else {
            throw invalid("s3 storage needs AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY in the environment")
        }
        return try S3ObjectStore(endpoint: endpoint ?? "https://s3.\(region).amazonaws.com", bucket: bucket, prefix: prefix,
                                 region: region, credentials: credentials, timeout: 60, pageSize: nil,
                                 slashInQuery: slashInQuery)
    }

    /// The directory of a `file://` URL from the part after `file://`.
    private static func fileRoot(_ rest: Substring) throws(StorageError) -> String {
        guard let slash = rest.firstIndex(of: "/") else {
            throw invalid("a file storage URL needs an absolute path: file:///absolute/dir")
        }
        let host = rest[..<slash]
        guard host.isEmpty || host.lowercased() == "localhost" else {
            throw invalid("a file storage URL names a local directory: use file:///absolute/dir, not a host")
        }
        let encoded = rest[slash...]
        guard !encoded.contains("?"), !encoded.contains("#") else {
            throw invalid("a file storage URL has no query or fragment; percent-encode '?' and '#' in the path")
        }
        let path = try percentDecode(encoded)
        guard path.hasPrefix("/") else { throw invalid("a file storage URL needs an absolute path") }
        guard !path.utf8.contains(0) else { throw invalid("a file storage URL path contains a NUL byte") }
        guard path.contains(where: { $0 != "/" }) else {
            throw invalid("refusing the file system root as a storage directory")
        }
        return path
    }

    /// Decodes `%XX` escapes; the result must be UTF-8.
    static func percentDecode(_ text: Substring) throws(StorageError) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else { bytes.append(byte); continue }
            guard let high = iterator.next().flatMap(Digest.hexDigitValue), let low = iterator.next().flatMap(Digest.hexDigitValue) else {
                throw invalid("a storage URL has a malformed percent escape")
            }
            bytes.append(high << 4 | low)
        }
        guard let decoded = String(validating: bytes, as: UTF8.self) else {
            throw invalid("a storage URL path is not UTF-8 after percent-decoding")
        }
        return decoded
    }

    /// Percent-encodes everything in `path` except unreserved characters and `/`, for display.
    static func percentEncodePath(_ path: String) -> String {
        var out = ""
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                 UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "/"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                out += "%" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return out
    }

    private static func invalid(_ message: String) -> StorageError {
        StorageError(code: .urlInvalid, message: message)
    }
}
