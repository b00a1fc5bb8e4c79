import Foundation
import Testing

@testable import ObjectStorage

/// The S3 server the tests use: `TRANSCODE_TEST_S3_ENDPOINT` (scripts/s3-temp.sh starts moto with
/// signature checks and sets it, with `AWS_ACCESS_KEY_ID` / `AWS_SECRET_ACCESS_KEY`). Without it
/// the suite is skipped, unless `TRANSCODE_REQUIRE_S3=1` turns that into a failure.
///
/// Two moto quirks shape these tests: it decodes `%2F` in the query before checking a signature
/// (hence `slashInQuery: true`), and it checks the path with `+`, other sub-delimiters and non-ASCII
/// decoded, so keys here use spaces but no `+` or non-ASCII (`SigV4SignerTests` covers their encoding).
enum TestS3 {
    static var environment: [String: String] { ProcessInfo.processInfo.environment }
    static var endpoint: String? { environment["TRANSCODE_TEST_S3_ENDPOINT"].flatMap { $0.isEmpty ? nil : $0 } }
    static var required: Bool { environment["TRANSCODE_REQUIRE_S3"] == "1" }

    /// A store on a new bucket (created here) with a small listing page size.
    static func makeStore(prefix: String = "", pageSize: Int? = 3, secret: String? = nil) throws -> S3ObjectStore {
        guard let endpoint else { throw TestS3Unavailable() }
        let credentials = try #require(SigV4Credentials.fromEnvironment(environment), "AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY")
        let bucket = "test-" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(20)
        let store = try S3ObjectStore(endpoint: endpoint, bucket: String(bucket), prefix: prefix, region: "us-east-1",
                                      credentials: credentials, timeout: 30, pageSize: pageSize, slashInQuery: true)
        try store.createBucket()
        guard let secret else { return store }
        return try S3ObjectStore(endpoint: endpoint, bucket: store.bucket, prefix: prefix, region: "us-east-1",
                                 credentials: SigV4Credentials(accessKeyID: credentials.accessKeyID, secretAccessKey: secret),
                                 timeout: 30, pageSize: pageSize, slashInQuery: true)
    }
}

struct TestS3Unavailable: Error, CustomStringConvertible {
    var description: String { "TRANSCODE_TEST_S3_ENDPOINT is not set (source scripts/s3-temp.sh and call s3_temp_start)" }
}

/// Use as `.enabled(if: s3Configured)` on suites that need an S3 server.
let s3Configured = TestS3.endpoint != nil || TestS3.required
