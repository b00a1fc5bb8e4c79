import Foundation
import Testing

@testable import TranscodeWorker
@testable import ObjectStorage
@testable import WorkerRuntime
@testable import WorkerCore

/// The examples of AWS's "Signature Calculations for the Authorization Header: Transferring
/// Payload in a Single Chunk" (Amazon S3 API reference): bucket `examplebucket`, key id
/// `AKIAIOSFODNN7EXAMPLE`, secret `wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY`, 2013-05-24 00:00:00 UTC,
/// us-east-1, s3, empty payload.
///
/// The hashes and signatures can be recomputed with the Python standard library alone:
///
///     import hashlib, hmac
///     def h(b): return hashlib.sha256(b).hexdigest()
///     def hm(k, m): return hmac.new(k, m.encode(), hashlib.sha256).digest()
///     E = h(b"")
///     def sig(method, path, query, hdrs):
///         sh = sorted(hdrs)
///         canon = "\n".join([method, path, query, "".join(f"{k}:{hdrs[k]}\n" for k in sh), ";".join(sh), E])
///         sts = "\n".join(["AWS4-HMAC-SHA256", "20130524T000000Z", "20130524/us-east-1/s3/aws4_request", h(canon.encode())])
///         kd = hm(hm(hm(hm(b"AWS4wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "20130524"), "us-east-1"), "s3"), "aws4_request")
///         return h(canon.encode()), hmac.new(kd, sts.encode(), hashlib.sha256).hexdigest()
///     base = {"host": "examplebucket.s3.amazonaws.com", "x-amz-content-sha256": E, "x-amz-date": "20130524T000000Z"}
///     print(sig("GET", "/test.txt", "", dict(base, range="bytes=0-9")))
///     print(sig("GET", "/", "lifecycle=", base))
///     print(sig("GET", "/", "max-keys=2&prefix=J", base))
@Suite struct SigV4SignerTests {
    static let credentials = SigV4Credentials(accessKeyID: "AKIAIOSFODNN7EXAMPLE",
                                              secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
    /// 2013-05-24T00:00:00Z.
    static let date = Date(timeIntervalSince1970: 1_369_353_600)
    static let empty = SigV4Signer.emptyPayloadHash

    private func compute(_ method: String, _ url: String, _ headers: [(String, String)] = [],
                         credentials: SigV4Credentials = SigV4SignerTests.credentials) -> SigV4Signer.Result {
        SigV4Signer.compute(method: method, url: url, headers: headers, payloadHash: Self.empty,
                            credentials: credentials, region: "us-east-1", service: "s3", date: Self.date)
    }

    @Test func emptyPayloadHashIsSHA256OfNothing() {
        #expect(Digest.hex(Digest.sha256([])) == SigV4Signer.emptyPayloadHash)
    }

    @Test func documentedGetObjectExample() {
        let r = compute("GET", "https://examplebucket.s3.amazonaws.com/test.txt",
                        [("Range", "bytes=0-9"), ("Accept-Encoding", "gzip"), ("User-Agent", "x")])
        #expect(r.canonicalRequest == """
            GET
            /test.txt

            host:examplebucket.s3.amazonaws.com
            range:bytes=0-9
            x-amz-content-sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
            x-amz-date:20130524T000000Z

            host;range;x-amz-content-sha256;x-amz-date
            e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
            """)
        #expect(r.stringToSign == """
            AWS4-HMAC-SHA256
            20130524T000000Z
            20130524/us-east-1/s3/aws4_request
            7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972
            """)
        #expect(r.signature == "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
        let headers = Dictionary(uniqueKeysWithValues: r.headers.map { ($0.0.lowercased(), $0.1) })
        #expect(headers["authorization"] == "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
            + "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
            + "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
        #expect(headers["x-amz-date"] == "20130524T000000Z")
        #expect(headers["x-amz-content-sha256"] == Self.empty)
        #expect(headers["x-amz-security-token"] == nil)
        #expect(r.headers.count == 3)
    }

    @Test func documentedGetBucketLifecycleExample() {
        let r = compute("GET", "https://examplebucket.s3.amazonaws.com/?lifecycle")
        #expect(r.canonicalRequest.split(separator: "\n", omittingEmptySubsequences: false)[2] == "lifecycle=")
        #expect(r.stringToSign.hasSuffix("\n9766c798316ff2757b517bc739a67f6213b4ab36dd5da2f94eaebf79c77395ca"))
        #expect(r.signature == "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543")
    }

    @Test func documentedListObjectsExampleSortsTheQuery() {
        let r = compute("GET", "https://examplebucket.s3.amazonaws.com/?prefix=J&max-keys=2")
        #expect(r.canonicalRequest.split(separator: "\n", omittingEmptySubsequences: false)[2] == "max-keys=2&prefix=J")
        #expect(r.stringToSign.hasSuffix("\ndf57d21db20da04d7fa30298dd4488ba3a2b47ca3a489c74750e0f1e7df1b9b7"))
        #expect(r.signature == "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7")
    }

    @Test func pathSegmentsAreEncodedOnceAndSlashesKept() {
        let r = compute("PUT", "http://127.0.0.1:9000/rooms/v1/with%20space/a%2Bb~c.json?continuation-token=a%2Fb%3D")
        let lines = r.canonicalRequest.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines[1] == "/rooms/v1/with%20space/a%2Bb~c.json")
        #expect(lines[2] == "continuation-token=a%2Fb%3D")
        #expect(lines[3] == "host:127.0.0.1:9000")
        #expect(SigV4Signer.uriEncode("a b/ü+*", keepSlash: true) == "a%20b/%C3%BC%2B%2A")
        #expect(SigV4Signer.uriEncode("a/b", keepSlash: false) == "a%2Fb")
    }

    @Test func defaultPortIsLeftOutOfTheHost() {
        let r = compute("GET", "https://examplebucket.s3.amazonaws.com:443/test.txt", [("Range", "bytes=0-9")])
        #expect(r.signature == "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
    }

    @Test func contentTypeAndTokenAreSignedAcceptEncodingIsNot() {
        let temporary = SigV4Credentials(accessKeyID: "AKIAIOSFODNN7EXAMPLE",
                                         secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", sessionToken: "tok")
        let r = compute("PUT", "https://examplebucket.s3.amazonaws.com/a.glb",
                        [("Content-Type", "  model/gltf-binary  "), ("Accept-Encoding", "gzip"), ("x-amz-date", "stale")],
                        credentials: temporary)
        #expect(r.signedHeaders == "content-type;host;x-amz-content-sha256;x-amz-date;x-amz-security-token")
        #expect(r.canonicalRequest.contains("\ncontent-type:model/gltf-binary\n"))
        #expect(r.canonicalRequest.contains("\nx-amz-date:20130524T000000Z\n"))
        #expect(!r.canonicalRequest.contains("stale"))
        #expect(r.headers.contains { $0.0 == "x-amz-security-token" && $0.1 == "tok" })
    }

    @Test func timestampsAreUTC() {
        let (amz, day) = SigV4Signer.timestamps(Date(timeIntervalSince1970: 1_700_000_000.9))
        #expect(amz == "20231114T221320Z")
        #expect(day == "20231114")
    }
}

extension SigV4SignerTests {
    @Test func slashInQueryIsEncodedUnlessAsked() {
        let url = "http://127.0.0.1:9000/rooms?list-type=2&prefix=a%2Fb"
        let strict = SigV4Signer.compute(method: "GET", url: url, headers: [], payloadHash: Self.empty, credentials: Self.credentials,
                                         region: "us-east-1", service: "s3", date: Self.date)
        let kept = SigV4Signer.compute(method: "GET", url: url, headers: [], payloadHash: Self.empty, credentials: Self.credentials,
                                       region: "us-east-1", service: "s3", date: Self.date, slashInQuery: true)
        #expect(strict.canonicalRequest.split(separator: "\n", omittingEmptySubsequences: false)[2] == "list-type=2&prefix=a%2Fb")
        #expect(kept.canonicalRequest.split(separator: "\n", omittingEmptySubsequences: false)[2] == "list-type=2&prefix=a/b")
    }
}
