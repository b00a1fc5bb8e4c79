import Foundation
import Testing
import TestSupport

@testable import TranscodeWorker
@testable import ObjectStorage
@testable import WorkerRuntime

@Suite("S3 object store on a local S3 server", .enabled(if: s3Configured), .serialized)
struct S3ObjectStoreTests {
    @Test func copyIsServerSideAndKeepsTheGivenType() throws {
        let store = try TestS3.makeStore(prefix: "rooms/copy")
        let bytes = Array("glTF \u{0}\u{ff} copied".utf8)
        try store.put("r1/model.glb", bytes: bytes, contentType: "model/gltf-binary")
        try store.copy("r1/model.glb", to: "r2/with space/model.glb", contentType: "model/gltf-binary", cacheControl: "public, max-age=60")
        #expect(try store.get("r2/with space/model.glb", maxBytes: 1 << 20) == bytes)
        try store.delete("r1/model.glb")
        #expect(try store.get("r2/with space/model.glb", maxBytes: 1 << 20) == bytes)
        #expect(thrownError { () throws(StorageError) in try store.copy("r1/missing.glb", to: "r3/x.glb", contentType: "", cacheControl: nil) }?.code
                == StorageError.Code.notFound)
        #expect(try store.size("r3/x.glb") == nil)
    }

    @Test func roundTrip() throws {
        let store = try TestS3.makeStore(prefix: "rooms/r1")
        let glb = Array("glTF-bytes \u{0}\u{1}\u{ff}".utf8)
        try store.put("v1/model.glb", bytes: glb, contentType: "model/gltf-binary")
        try store.put("v1/with space.json", bytes: Array("{}".utf8), contentType: "application/json")
        try store.put("v1/empty.bin", bytes: [], contentType: "")
        try store.put("v2/image.webp", bytes: [1, 2, 3], contentType: "image/webp")

        #expect(try store.get("v1/model.glb", maxBytes: 1 << 20) == glb)
        #expect(try store.get("v1/with space.json", maxBytes: 2) == Array("{}".utf8))
        #expect(try store.get("v1/empty.bin", maxBytes: 0) == [])
        #expect(try store.size("v1/model.glb") == glb.count)
        #expect(try store.size("v1/empty.bin") == 0)
        #expect(try store.size("v1/missing") == nil)

        #expect(try store.list(prefix: "") == ["v1/empty.bin", "v1/model.glb", "v1/with space.json", "v2/image.webp"])
        #expect(try store.list(prefix: "v1/") == ["v1/empty.bin", "v1/model.glb", "v1/with space.json"])
        #expect(try store.list(prefix: "v1/m") == ["v1/model.glb"])
        #expect(try store.list(prefix: "v3") == [])

        // Replacing an object.
        try store.put("v1/model.glb", bytes: [9], contentType: "model/gltf-binary")
        #expect(try store.get("v1/model.glb", maxBytes: 10) == [9])

        try store.delete("v1/model.glb")
        try store.delete("v1/model.glb")
        #expect(try store.size("v1/model.glb") == nil)
        #expect(try store.list(prefix: "") == ["v1/empty.bin", "v1/with space.json", "v2/image.webp"])
        #expect(store.location.hasPrefix("s3://\(store.bucket)/rooms/r1/?endpoint="))
        #expect(store.keyPrefix == "rooms/r1/")
    }

    @Test func aSignedCacheControlIsAccepted() throws {
        // moto checks the signature, which covers the Cache-Control header.
        let store = try TestS3.makeStore()
        try store.put("cdn/model.glb", bytes: [1, 2, 3], contentType: "model/gltf-binary",
                      cacheControl: WorkerConfig.defaultOutputCacheControl)
        #expect(try store.get("cdn/model.glb", maxBytes: 10) == [1, 2, 3])
    }

    @Test func listingFollowsContinuationTokens() throws {
        let store = try TestS3.makeStore(pageSize: 2)
        var expected: [String] = []
        for i in 0..<7 {
            let key = "pages/k\(i)"
            try store.put(key, bytes: [UInt8(i)], contentType: "application/octet-stream")
            expected.append(key)
        }
        try store.put("other/x", bytes: [0], contentType: "application/octet-stream")
        #expect(try store.list(prefix: "pages/") == expected)
        #expect(try store.list(prefix: "").count == 8)
    }

    @Test func missingKeyIsNotFound() throws {
        let store = try TestS3.makeStore()
        #expect(thrownError { () throws(StorageError) in try store.get("nope/a.glb", maxBytes: 100) }?.code == StorageError.Code.notFound)
        #expect(thrownError { () throws(StorageError) in try store.get("nope/a.glb", maxBytes: 100) }?.isRetryable == false)
    }

    @Test func tooLargeObjectIsRefused() throws {
        let store = try TestS3.makeStore()
        let size = 3 << 20
        try store.put("big.bin", bytes: [UInt8](repeating: 7, count: size), contentType: "application/octet-stream")
        #expect(try store.size("big.bin") == size)
        #expect(thrownError { () throws(StorageError) in try store.get("big.bin", maxBytes: 1000) }?.code == StorageError.Code.tooLarge)
        #expect(thrownError { () throws(StorageError) in try store.get("big.bin", maxBytes: size - 1) }?.code == StorageError.Code.tooLarge)
        #expect(try store.get("big.bin", maxBytes: size).count == size)
    }

    @Test func wrongSecretIsForbidden() throws {
        let store = try TestS3.makeStore(secret: "not-the-secret")
        for error in [thrownError { () throws(StorageError) in try store.put("a.bin", bytes: [1], contentType: "application/octet-stream") },
                      thrownError { () throws(StorageError) in try store.get("a.bin", maxBytes: 10) },
                      thrownError { () throws(StorageError) in try store.list(prefix: "") }] {
            #expect(error?.code == StorageError.Code.forbidden)
            #expect(error?.isRetryable == false)
            #expect(error?.message.contains("not-the-secret") == false)
        }
    }

    @Test func badKeysAreRejectedBeforeAnyRequest() throws {
        let store = try TestS3.makeStore()
        #expect(thrownError { () throws(StorageError) in try store.get("../x", maxBytes: 1) }?.code == StorageError.Code.invalidKey)
        #expect(thrownError { () throws(StorageError) in try store.put("/abs", bytes: [], contentType: "") }?.code == StorageError.Code.invalidKey)
        #expect(thrownError { () throws(StorageError) in try store.list(prefix: "a//") }?.code == StorageError.Code.invalidKey)
    }

    @Test func storageURLOpensTheBucket() throws {
        let store = try TestS3.makeStore()
        try store.put("p/a.txt", bytes: Array("hi".utf8), contentType: "text/plain")
        let endpoint = try #require(TestS3.endpoint)
        let opened = try StorageURL.open("s3://\(store.bucket)/p?endpoint=\(endpoint)&region=us-east-1")
        #expect(try opened.get("a.txt", maxBytes: 10) == Array("hi".utf8))
        #expect(try opened.size("a.txt") == 2)
    }
}

@Suite struct StorageURLS3Tests {
    @Test func parsesEndpointRegionAndPrefix() throws {
        let env = ["AWS_ACCESS_KEY_ID": "id", "AWS_SECRET_ACCESS_KEY": "secret"]
        let s = try StorageURL.s3Store("rooms/a%20b/c?endpoint=http%3A%2F%2F127.0.0.1%3A9000&region=eu-west-1", environment: env)
        #expect(s.bucket == "rooms")
        #expect(s.prefix == "a b/c/")
        #expect(s.endpoint == "http://127.0.0.1:9000")
        #expect(s.region == "eu-west-1")
        let d = try StorageURL.s3Store("rooms", environment: env)
        #expect(d.endpoint == "https://s3.us-east-1.amazonaws.com")
        #expect(d.prefix == "")
        #expect(!d.location.contains("secret"))
    }

    @Test func rejectsMalformedURLsAndMissingCredentials() {
        let env = ["AWS_ACCESS_KEY_ID": "id", "AWS_SECRET_ACCESS_KEY": "secret"]
        for rest in ["", "/prefix", "rooms?bogus=1", "rooms/../x", "rooms?endpoint=ftp://h", "rooms?endpoint=http://u:p@h"] {
            do throws(StorageError) {
                _ = try StorageURL.s3Store(Substring(rest), environment: env)
                Issue.record("accepted s3://\(rest)")
            } catch {
                #expect(error.code == StorageError.Code.urlInvalid)
            }
        }
        do throws(StorageError) {
            _ = try StorageURL.s3Store("rooms", environment: [:])
            Issue.record("accepted missing credentials")
        } catch {
            #expect(error.code == StorageError.Code.urlInvalid)
        }
    }
}

/// Retries and status mapping against a loopback server that answers with scripted statuses.
@Suite struct S3ObjectStoreRetryTests {
    private func store(_ server: LoopbackHTTPServer) throws -> S3ObjectStore {
        try S3ObjectStore(endpoint: server.baseURL, bucket: "bucket", prefix: "p", region: "us-east-1",
                          credentials: SigV4Credentials(accessKeyID: "id", secretAccessKey: "secret"), timeout: 10, pageSize: nil)
    }

    @Test func serverErrorsAndThrottlingAreRetriedThenSucceed() throws {
        let statuses = Statuses([503, 429, 200])
        let server = try LoopbackHTTPServer { _ in (statuses.next(), [("Content-Length", "2")], [104, 105]) }
        defer { server.stop() }
        #expect(try store(server).get("a.bin", maxBytes: 10) == [104, 105])
        #expect(server.requests.count == 3)
        let first = try #require(server.requests.first)
        #expect(first.path == "/bucket/p/a.bin")
        #expect(first.headers["authorization"]?.hasPrefix("AWS4-HMAC-SHA256 Credential=id/") == true)
        #expect(first.headers["x-amz-content-sha256"] == SigV4Signer.emptyPayloadHash)
    }

    @Test func persistentServerErrorsGiveUpRetryable() throws {
        let server = try LoopbackHTTPServer { _ in (500, [], Array("<Error><Code>InternalError</Code></Error>".utf8)) }
        defer { server.stop() }
        let s = try store(server)
        let error = thrownError { () throws(StorageError) in try s.put("a.bin", bytes: [1], contentType: "x/y") }
        #expect(error?.code == StorageError.Code.writeFailed)
        #expect(error?.isRetryable == true)
        #expect(server.requests.count == 4)
        #expect(server.requests.first?.headers["content-type"] == "x/y")
        #expect(server.requests.first?.headers["content-length"] == "1")
    }

    @Test func cacheControlIsSentAndSignedOnlyWhenGiven() throws {
        let server = try LoopbackHTTPServer { _ in (200, [], []) }
        defer { server.stop() }
        let s = try store(server)
        try s.put("a.glb", bytes: [1], contentType: "model/gltf-binary", cacheControl: "public, max-age=60")
        try s.put("b.glb", bytes: [1], contentType: "model/gltf-binary")
        let first = try #require(server.requests.first), second = try #require(server.requests.last)
        #expect(first.headers["cache-control"] == "public, max-age=60")
        #expect(first.headers["authorization"]?.contains("cache-control;") == true)
        #expect(second.headers["cache-control"] == nil)
        #expect(s.bucket == "bucket" && s.keyPrefix == "p/")
    }

    @Test func forbiddenAndNotFoundAreNotRetried() throws {
        let statuses = Statuses([403, 404, 404, 204])
        let server = try LoopbackHTTPServer { _ in (statuses.next(), [], []) }
        defer { server.stop() }
        let s = try store(server)
        #expect(thrownError { () throws(StorageError) in try s.size("a") }?.code == StorageError.Code.forbidden)
        #expect(thrownError { () throws(StorageError) in try s.get("a", maxBytes: 1) }?.code == StorageError.Code.notFound)
        #expect(try s.size("a") == nil)
        try s.delete("a")
        #expect(server.requests.count == 4)
    }
}

/// Hands out scripted statuses in order, then the last one again.
private final class Statuses: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Int]
    init(_ values: [Int]) { self.values = values }
    func next() -> Int { lock.withLock { values.count > 1 ? values.removeFirst() : values[0] } }
}
