import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif
@testable import ObjectStorage
@testable import WorkerCore

/// Outputs are uploaded from the file the worker holds: a file store copies it in chunks, S3 gets
/// the held bytes (checked against the hash taken at intake) as one request body.
@Suite("Streamed uploads")
struct StreamedPutTests {
    /// A held file of `count` bytes of a repeating pattern (several chunks long), with its hash.
    static func heldFile(count: Int) throws -> (ObjectSource, [UInt8]) {
        let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) }
        let path = NSTemporaryDirectory() + "held-" + UUID().uuidString
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        unlink(path)
        try #require(fd >= 0)
        return (ObjectSource(fd: fd, bytes: count, sha256: Digest.hex(Digest.sha256(bytes))), bytes)
    }

    @Test func aFileStoreWritesTheHeldBytes() throws {
        let (source, bytes) = try Self.heldFile(count: (3 << 20) + 17)
        defer { close(source.fd) }
        let root = NSTemporaryDirectory() + "streamed-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: root) }
        let store = try FileObjectStore(root: root)
        try store.put("a/model.glb", source: source, contentType: "model/gltf-binary", cacheControl: nil)
        #expect(try store.get("a/model.glb", maxBytes: 8 << 20) == bytes)
        // A source that claims more bytes than the file holds fails without leaving an object.
        var short = source
        short.bytes += 1
        #expect(throws: StorageError.self) { try store.put("a/short.glb", source: short, contentType: "", cacheControl: nil) }
        #expect(try store.size("a/short.glb") == nil)
    }

    @Test(.enabled(if: s3Configured)) func anS3StoreStreamsTheHeldBytesSignedWithTheirHash() throws {
        let store = try TestS3.makeStore()
        let (source, bytes) = try Self.heldFile(count: (2 << 20) + 5)
        defer { close(source.fd) }
        try store.put("v/model.glb", source: source, contentType: "model/gltf-binary", cacheControl: "public, max-age=60")
        #expect(try store.get("v/model.glb", maxBytes: 8 << 20) == bytes)
    }

    /// What goes on the wire: the whole held body with its length, signed with its hash.
    @Test func theRequestCarriesTheHeldBodyAndItsStatedHash() throws {
        let server = try LoopbackHTTPServer { _ in (200, [], []) }
        defer { server.stop() }
        let store = try S3ObjectStore(endpoint: server.baseURL, bucket: "bucket", prefix: "p", region: "us-east-1",
                                      credentials: SigV4Credentials(accessKeyID: "id", secretAccessKey: "secret"),
                                      timeout: 10, pageSize: nil)
        let (source, bytes) = try Self.heldFile(count: (1 << 20) + 333)
        defer { close(source.fd) }
        try store.put("v/model.glb", source: source, contentType: "model/gltf-binary", cacheControl: nil)
        let request = try #require(server.requests.first)
        #expect(request.method == "PUT" && request.path == "/bucket/p/v/model.glb")
        #expect(request.body == bytes)
        #expect(request.headers["content-length"] == String(bytes.count))
        #expect(request.headers["x-amz-content-sha256"] == source.sha256)
    }
}
