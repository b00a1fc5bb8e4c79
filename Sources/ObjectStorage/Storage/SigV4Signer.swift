#if canImport(Glibc)
import Glibc
import WorkerCore
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// An access key for AWS Signature Version 4. `description` never shows the secret or the token.
public struct SigV4Credentials: Sendable, Equatable, CustomStringConvertible {
    public var accessKeyID: String
    public var secretAccessKey: String
    /// The session token of temporary credentials, sent as `x-amz-security-token`.
    public var sessionToken: String?

    public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }

    /// `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and `AWS_SESSION_TOKEN` from `environment`;
    /// nil when the key id or the secret is missing or empty.
    public static func fromEnvironment(_ environment: [String: String] = ProcessEnvironment.current) -> SigV4Credentials? {
        guard let id = environment["AWS_ACCESS_KEY_ID"], !id.isEmpty,
              let secret = environment["AWS_SECRET_ACCESS_KEY"], !secret.isEmpty
        else { return nil }
        let token = environment["AWS_SESSION_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        return SigV4Credentials(accessKeyID: id, secretAccessKey: secret, sessionToken: token)
    }

    public var description: String { "SigV4Credentials(\(accessKeyID), secret hidden)" }
}

/// AWS Signature Version 4 for the `Authorization` header, payload in a single chunk (the
/// algorithm of AWS's "Signature Calculations for the Authorization Header: Transferring Payload
/// in a Single Chunk"). A pure function: no clock, no environment, no IO.
///
/// * Canonical URI: the URL's path with each segment percent-decoded and encoded once again
///   (RFC 3986 unreserved characters stay, `/` separates segments), as S3 expects; an empty path
///   is `/`.
/// * Canonical query: names and values encoded the same way (`=` added to a bare name), sorted by
///   name, then value.
/// * Signed headers: `host` (from the URL, with a non-default port, unless given), `content-type`, `cache-control`,
///   `content-md5`, `range` and every `x-amz-*` header, names lower-cased and sorted, values
///   trimmed with inner runs of spaces collapsed. Other headers (`accept-encoding`, which proxies
///   rewrite, `user-agent`, …) are never signed.
/// * The payload hash (hex SHA-256 of the body, or `UNSIGNED-PAYLOAD`) goes into
///   `x-amz-content-sha256`; the time into `x-amz-date`; a session token into
///   `x-amz-security-token`.
public enum SigV4Signer {
    /// Hex SHA-256 of the empty body.
    public static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    /// The payload hash for a body that is not hashed.
    public static let unsignedPayload = "UNSIGNED-PAYLOAD"

    /// The intermediate values of one signature, for tests and diagnostics.
    public struct Result: Sendable {
        public var canonicalRequest: String
        public var stringToSign: String
        /// Hex HMAC-SHA-256 of the string to sign.
        public var signature: String
        /// `;`-joined lower-case names of the signed headers.
        public var signedHeaders: String
        /// The headers to add to the request: `x-amz-date`, `x-amz-content-sha256`,
        /// `x-amz-security-token` (with a session token) and `Authorization`.
        public var headers: [(String, String)]
    }

    /// The headers to add to a request so that it carries a valid signature: `x-amz-date`,
    /// `x-amz-content-sha256`, `x-amz-security-token` (only with a session token) and
    /// `Authorization`. `url` is the absolute, already percent-encoded URL as sent; `headers` are
    /// the request's other headers (any `x-amz-date`, `x-amz-content-sha256`,
    /// `x-amz-security-token` or `authorization` among them is replaced, not signed twice);
    /// `payloadHash` is the hex SHA-256 of the body or `UNSIGNED-PAYLOAD`; `date` is the signing
    /// time (UTC). `slashInQuery` keeps `/` unencoded in the canonical query, for servers that
    /// decode `%2F` in the query before checking (moto does); AWS needs it false.
    public static func sign(method: String, url: String, headers: [(String, String)], payloadHash: String,
                            credentials: SigV4Credentials, region: String, service: String, date: Date,
                            slashInQuery: Bool = false) -> [(String, String)] {
        compute(method: method, url: url, headers: headers, payloadHash: payloadHash, credentials: credentials,
                region: region, service: service, date: date, slashInQuery: slashInQuery).headers
    }

    /// `sign` with every intermediate value.
    public static func compute(method: String, url: String, headers: [(String, String)], payloadHash: String,
                               credentials: SigV4Credentials, region: String, service: String, date: Date,
                               slashInQuery: Bool = false) -> Result {
        let (amzDate, day) = timestamps(date)
        let parts = splitURL(url)

        var signed: [String: String] = [:]
        for (name, value) in headers {
            let lower = name.lowercased()
            if lower == "authorization" || lower == "x-amz-date" || lower == "x-amz-content-sha256" || lower == "x-amz-security-token" {
                continue
            }
            guard isSigned(lower) else { continue }
            let trimmed = normalizeValue(value)
            signed[lower] = signed[lower].map { $0 + "," + trimmed } ?? trimmed
        }
        if signed["host"] == nil { signed["host"] = parts.host }
        signed["x-amz-date"] = amzDate
        signed["x-amz-content-sha256"] = payloadHash
        if let token = credentials.sessionToken { signed["x-amz-security-token"] = normalizeValue(token) }

        let names = signed.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        let signedHeaders = names.joined(separator: ";")
        let canonicalHeaders = names.map { "\($0):\(signed[$0]!)\n" }.joined()
        let canonicalRequest = [
            method.uppercased(), canonicalURI(parts.path), canonicalQuery(parts.query, keepSlash: slashInQuery), canonicalHeaders,
            signedHeaders, payloadHash,
        ].joined(separator: "\n")

        let scope = "\(day)/\(region)/\(service)/aws4_request"
        let stringToSign = [
            "AWS4-HMAC-SHA256", amzDate, scope, Digest.hex(Digest.sha256(Array(canonicalRequest.utf8))),
        ].joined(separator: "\n")

        var key = Digest.hmacSHA256(key: Array(("AWS4" + credentials.secretAccessKey).utf8), message: Array(day.utf8))
        key = Digest.hmacSHA256(key: key, message: Array(region.utf8))
        key = Digest.hmacSHA256(key: key, message: Array(service.utf8))
        key = Digest.hmacSHA256(key: key, message: Array("aws4_request".utf8))
        let signature = Digest.hex(Digest.hmacSHA256(key: key, message: Array(stringToSign.utf8)))

        var added: [(String, String)] = [("x-amz-date", amzDate), ("x-amz-content-sha256", payloadHash)]
        if let token = credentials.sessionToken { added.append(("x-amz-security-token", token)) }
        added.append(("Authorization",
                      "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyID)/\(scope), SignedHeaders=\(signedHeaders), Signature=\(signature)"))
        return Result(canonicalRequest: canonicalRequest, stringToSign: stringToSign, signature: signature,
                      signedHeaders: signedHeaders, headers: added)
    }

    /// Percent-encodes every byte except RFC 3986 unreserved characters (and `/` when
    /// `keepSlash`), with upper-case hex digits, as SigV4 requires.
    public static func uriEncode(_ text: String, keepSlash: Bool) -> String {
        uriEncode(Array(text.utf8), keepSlash: keepSlash)
    }

    // MARK: - Internals

    private static func isSigned(_ lowerName: String) -> Bool {
        lowerName == "host" || lowerName == "content-type" || lowerName == "cache-control" || lowerName == "content-md5"
            || lowerName == "range" || lowerName.hasPrefix("x-amz-")
    }

    /// Trims spaces and tabs and collapses inner runs of them to one space.
    private static func normalizeValue(_ value: String) -> String {
        value.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ")
    }

    /// `YYYYMMDDTHHMMSSZ` and `YYYYMMDD` in UTC.
    static func timestamps(_ date: Date) -> (String, String) {
        var t = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&t, &parts)
        func pad(_ v: Int32, _ width: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        let day = pad(parts.tm_year + 1900, 4) + pad(parts.tm_mon + 1, 2) + pad(parts.tm_mday, 2)
        return (day + "T" + pad(parts.tm_hour, 2) + pad(parts.tm_min, 2) + pad(parts.tm_sec, 2) + "Z", day)
    }

    /// Host (with a non-default port), raw path and raw query of an absolute URL.
    private static func splitURL(_ url: String) -> (host: String, path: String, query: String) {
        var rest = Substring(url)
        var scheme = ""
        if let sep = rest.range(of: "://") {
            scheme = rest[..<sep.lowerBound].lowercased()
            rest = rest[sep.upperBound...]
        }
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        var host = authority.lowercased()
        if let colon = host.lastIndex(of: ":"), !host.hasSuffix("]") {
            let port = host[host.index(after: colon)...]
            if port.isEmpty || (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
                host = String(host[..<colon])
            }
        }
        let afterAuthority = rest[authorityEnd...]
        let queryStart = afterAuthority.firstIndex(of: "?")
        let path = String(afterAuthority[..<(queryStart ?? afterAuthority.endIndex)])
        let query = queryStart.map { String(afterAuthority[afterAuthority.index(after: $0)...]) } ?? ""
        return (host, path, query)
    }

    private static func canonicalURI(_ path: String) -> String {
        if path.isEmpty { return "/" }
        return path.split(separator: "/", omittingEmptySubsequences: false)
            .map { uriEncode(percentDecode($0), keepSlash: false) }
            .joined(separator: "/")
    }

    private static func canonicalQuery(_ query: String, keepSlash: Bool) -> String {
        if query.isEmpty { return "" }
        var pairs: [(String, String)] = []
        for item in query.split(separator: "&") {
            let name: Substring
            let value: Substring
            if let eq = item.firstIndex(of: "=") {
                name = item[..<eq]
                value = item[item.index(after: eq)...]
            } else {
                name = item
                value = ""
            }
            pairs.append((uriEncode(percentDecode(name), keepSlash: keepSlash), uriEncode(percentDecode(value), keepSlash: keepSlash)))
        }
        pairs.sort { a, b in
            a.0 == b.0 ? a.1.utf8.lexicographicallyPrecedes(b.1.utf8) : a.0.utf8.lexicographicallyPrecedes(b.0.utf8)
        }
        return pairs.map { "\($0.0)=\($0.1)" }.joined(separator: "&")
    }

    /// Decodes `%XX` escapes; a malformed escape is kept as it is.
    private static func percentDecode(_ text: Substring) -> [UInt8] {
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "%"), i + 2 < bytes.count, let hi = Digest.hexDigitValue(bytes[i + 1]), let lo = Digest.hexDigitValue(bytes[i + 2]) {
                out.append(hi << 4 | lo)
                i += 3
            } else {
                out.append(bytes[i])
                i += 1
            }
        }
        return out
    }

    private static func uriEncode(_ bytes: [UInt8], keepSlash: Bool) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                 UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.append(byte)
            case UInt8(ascii: "/") where keepSlash:
                out.append(byte)
            default:
                out.append(UInt8(ascii: "%"))
                out.append(digits[Int(byte >> 4)])
                out.append(digits[Int(byte & 15)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
