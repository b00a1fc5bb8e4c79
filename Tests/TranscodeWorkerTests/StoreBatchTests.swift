import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

@testable import ObjectStorage

/// `copy(all:)` and `delete(all:)` on both backends: every copy and delete is made, a failure is
/// reported under its own key without stopping the others, and what is reported as done is there.
enum StoreBatchChecks {
    static func copiesAndDeletes(_ store: any ObjectStore) throws {
        let names = ["model.glb", "thumbs/hero.webp", "thumbs/card.webp", "thumbs/orbit-00.webp", "plan.svg", "plan.pdf"]
        for (i, name) in names.enumerated() {
            try store.put("r1/" + name, bytes: Array("object \(i) \(name)".utf8), contentType: "application/octet-stream")
        }
        var copies = names.map { ObjectCopy(source: "r1/" + $0, destination: "r2/" + $0, contentType: "application/octet-stream") }
        copies.insert(ObjectCopy(source: "r1/missing.webp", destination: "r2/thumbs/missing.webp", contentType: "image/webp"), at: 2)
        let failed = store.copy(all: copies, cacheControl: "public, max-age=60")
        #expect(Set(failed.keys) == ["r2/thumbs/missing.webp"])
        #expect(failed["r2/thumbs/missing.webp"]?.code == StorageError.Code.notFound)
        for (i, name) in names.enumerated() {
            #expect(try store.get("r2/" + name, maxBytes: 1 << 10) == Array("object \(i) \(name)".utf8), "\(name)")
        }
        #expect(try store.size("r2/thumbs/missing.webp") == nil)
        #expect(store.copy(all: [], cacheControl: nil).isEmpty)

        // Deleting: a missing key is no error, a malformed one is reported and nothing else stops.
        let keys = names.map { "r1/" + $0 } + ["r1/never-there.json", "../escape"]
        let notDeleted = store.delete(all: keys)
        #expect(Set(notDeleted.keys) == ["../escape"])
        #expect(notDeleted["../escape"]?.code == StorageError.Code.invalidKey)
        #expect(try store.list(prefix: "r1/").isEmpty)
        #expect(try store.list(prefix: "r2/").count == names.count)
        #expect(store.delete(all: []).isEmpty)
    }
}

@Suite struct FileStoreBatchTests {
    @Test func copiesAndDeletesMany() throws {
        let root = NSTemporaryDirectory() + "/store-batch-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: root) }
        let store = try FileObjectStore(root: root)
        try StoreBatchChecks.copiesAndDeletes(store)
        // Copies are hard links renamed into place: no temporary name is left behind.
        let entries = (FileManager.default.enumerator(atPath: root)?.allObjects as? [String]) ?? []
        #expect(!entries.contains { $0.contains(FileObjectStore.tempPrefix) })
        var info = stat()
        #expect(stat(root + "/r2/model.glb", &info) == 0 && info.st_nlink == 1)
    }

    @Test func aCopyOntoAPrefixFailsAloneAndTheRestAreMade() throws {
        let root = NSTemporaryDirectory() + "/store-batch-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: root) }
        let store = try FileObjectStore(root: root)
        try store.put("a/x", bytes: [1], contentType: "")
        try store.put("b/dir/inside", bytes: [2], contentType: "")
        let failed = store.copy(all: [ObjectCopy(source: "a/x", destination: "b/dir", contentType: ""),
                                      ObjectCopy(source: "a/x", destination: "c/x", contentType: "")], cacheControl: nil)
        #expect(Set(failed.keys) == ["b/dir"])
        #expect(failed["b/dir"]?.code == StorageError.Code.invalidKey)
        #expect(try store.get("c/x", maxBytes: 1) == [1])
        #expect(try store.get("b/dir/inside", maxBytes: 1) == [2])
    }
}

@Suite("Batch copies and deletes on a local S3 server", .enabled(if: s3Configured), .serialized)
struct S3StoreBatchTests {
    @Test func copiesAndDeletesMany() throws {
        try StoreBatchChecks.copiesAndDeletes(try TestS3.makeStore(prefix: "batch/\(UUID().uuidString.prefix(8))"))
    }
}
