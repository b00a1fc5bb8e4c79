import Dispatch
import Foundation
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

@testable import ObjectStorage

@Suite struct FileObjectStoreTests {
    /// A fresh directory under the temporary directory; removed by `cleanUp`.
    private func makeRoot() throws -> String {
        var template = Array((NSTemporaryDirectory() + "/objstore-test.XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) != nil }
        try #require(made)
        return String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private func cleanUp(_ root: String) {
        try? FileManager.default.removeItem(atPath: root)
    }

    /// Every file and directory name under `root`, hidden ones included.
    private func allEntries(_ root: String) -> [String] {
        (FileManager.default.enumerator(atPath: root)?.allObjects as? [String]) ?? []
    }

    @Test func emptyDirectoriesGoAndFilesStay() throws {
        let root = try makeRoot()
        defer { cleanUp(root) }
        let store = try FileObjectStore(root: root)
        for key in ["rooms/a/versions/v/r1-x/thumbs/hero.webp", "rooms/a/versions/v/source.usdz", "rooms/a/kept/note.txt", "rooms/b/x.glb"] {
            try store.put(key, bytes: [1], contentType: "application/octet-stream")
        }
        _ = store.delete(all: ["rooms/a/versions/v/r1-x/thumbs/hero.webp", "rooms/a/versions/v/source.usdz"])
        #expect(store.removeEmptyDirectories(under: "rooms/a/") == 4)
        #expect(allEntries(root).sorted() == ["rooms", "rooms/a", "rooms/a/kept", "rooms/a/kept/note.txt", "rooms/b", "rooms/b/x.glb"])
        try store.delete("rooms/a/kept/note.txt")
        #expect(store.removeEmptyDirectories(under: "rooms/a/") == 2)
        #expect(allEntries(root).sorted() == ["rooms", "rooms/b", "rooms/b/x.glb"])
        // Malformed or partial prefixes remove nothing.
        for prefix in ["", "/", "rooms", "../", "rooms//", "rooms/../"] { #expect(store.removeEmptyDirectories(under: prefix) == 0) }
        #expect(allEntries(root).sorted() == ["rooms", "rooms/b", "rooms/b/x.glb"])
    }

    @Test func roundTrip() throws {
        let root = try makeRoot()
        defer { cleanUp(root) }
        let store = try FileObjectStore(root: root)
        let key = "rooms/4f1c/versions/9b0c/r3-c379fd13/model.glb"
        let bytes = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try store.put(key, bytes: bytes, contentType: "model/gltf-binary")
        #expect(try store.get(key, maxBytes: 1 << 20) == bytes)
        #expect(try store.size(key) == bytes.count)
        #expect(FileManager.default.contents(atPath: root + "/" + key) == Data(bytes))

        try store.put("empty.json", bytes: [], contentType: "application/json")
        #expect(try store.get("empty.json", maxBytes: 0) == [])
        #expect(try store.size("empty.json") == 0)

        try store.put("names/ünïcödé and spaces.webp", bytes: [1], contentType: "image/webp")
        #expect(try store.get("names/ünïcödé and spaces.webp", maxBytes: 1) == [1])
        #expect(store.location == "file://" + StorageURL.percentEncodePath(root))
    }

    @Test func overwriteIsAtomicAndLeavesNoTemporaryFiles() throws {
        let root = try makeRoot()
        defer { cleanUp(root) }
        let store = try FileObjectStore(root: root)
        let key = "rooms/r/layer_manifest.json"
        let a = [UInt8](repeating: 0xAA, count: 256 * 1024)
        let b = [UInt8](repeating: 0xBB, count: 384 * 1024 + 17)
        try store.put(key, bytes: a, contentType: "application/json")

        let torn = Counter()
        let reads = Counter()
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            for i in 0..<40 {
                if worker == 0 {
                    try? store.put(key, bytes: i % 2 == 0 ? b : a, contentType: "application/json")
                } else if let got = try? store.get(key, maxBytes: 1 << 20) {
                    reads.add()
                    if got != a && got != b { torn.add() }
                }
            }
        }
        #expect(torn.value == 0)
        #expect(reads.value > 0)
        #expect(try store.get(key, maxBytes: 1 << 20) == a)
        #expect(allEntries(root).sorted() == ["rooms", "rooms/r", "rooms/r/layer_manifest.json"])
    }

    @Test func sizeLimitIsCheckedBeforeReading() throws {
        let root = try makeRoot()
        defer { cleanUp(root) }
        let store = try FileObjectStore(root: root)
        try store.put("a.bin", bytes: [UInt8](repeating: 1, count: 1000), contentType: "application/octet-stream")
        let error = thrownError { () throws(StorageError) in try store.get("a.bin", maxBytes: 999) }
        #expect(error?.code == StorageError.Code.tooLarge)
        #expect(error?.key == "a.bin")
        #expect(error?.isRetryable == false)
        #expect(try store.get("a.bin", maxBytes: 1000).count == 1000)

        // A sparse 64 GiB file: only a size check before reading can refuse it at once.
        let fd = open(root + "/huge.usdz", O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        try #require(fd >= 0)
        let truncated = ftruncate(fd, 64 << 30)
        close(fd)
        try #require(truncated == 0)
        // (Reading it first would take minutes and 64 GiB of memory: the refusal names the size
        // fstat gave, before any byte is read.)
        let huge = thrownError { () throws(StorageError) in try store.get("huge.usdz", maxBytes: 200 << 20) }
        #expect(huge?.code == StorageError.Code.tooLarge)
        #expect(huge?.message.contains(String(64 << 30)) == true, "\(huge?.message ?? "")")
        #expect(try store.size("huge.usdz") == 64 << 30)
    }

    @Test func invalidKeysAreRejected() throws {
        let root = try makeRoot()
        defer { cleanUp(root) }
        let store = try FileObjectStore(root: root + "/store")
        let bad = [
            "", "/etc/passwd", "../escape", "a/../../escape", "..", ".", "a/./b", "a//b", "a/", "/",
            "a\\b", "..\\escape", "a\u{0}b", ".tmp-put-123-abc", "d/.tmp-put-x",
            String(repeating: "k", count: 1025), String(repeating: "s", count: 256) + "/x",
        ]
        for key in bad {
            let errors = [
                thrownError { () throws(StorageError) in try store.put(key, bytes: [1], contentType: "text/plain") },
                thrownError { () throws(StorageError) in try store.get(key, maxBytes: 10) },
                thrownError { () throws(StorageError) in try store.delete(key) },
                thrownError { () throws(StorageError) in try store.size(key) },
            ]
            for error in errors {
                #expect(error?.code == StorageError.Code.invalidKey, "\(key.debugDescription)")
                #expect(error?.isRetryable == false)
            }
        }
        for prefix in ["/a", "a//", "../", "a/../", "a\\", "x\u{0}"] {
            let error = thrownError { () throws(StorageError) in try store.list(prefix: prefix) }
            #expect(error?.code == StorageError.Code.invalidKey, "\(prefix.debugDescription)")
        }
        // Nothing was written anywhere, inside the store or beside it.
        #expect(allEntries(root) == ["store"])
        #expect(try store.list(prefix: "") == [])
        // Long but legal keys work.
        let long = String(repeating: "s", count: 255) + "/" + String(repeating: "t", count: 255)
        try store.put(long, bytes: [9], contentType: "text/plain")
        #expect(try store.get(long, maxBytes: 1) == [9])
    }

    @Test func missingKeyIsNotFound() throws {
        let root = try makeRoot()
        defer { cleanUp(root) }
        let store = try FileObjectStore(root: root)
        let error = thrownError { () throws(StorageError) in try store.get("rooms/nope/model.glb", maxBytes: 100) }
        #expect(error?.code == StorageError.Code.notFound)
        #expect(error?.key == "rooms/nope/model.glb")
        #expect(error?.isRetryable == false)
        #expect(try store.size("rooms/nope/model.glb") == nil)

        // A prefix of other keys is not an object; neither is a path through an object.
        try store.put("rooms/r1/model.glb", bytes: [1], contentType: "model/gltf-binary")
        #expect(thrownError { () throws(StorageError) in try store.get("rooms/r1", maxBytes: 100) }?.code == StorageError.Code.notFound)
        #expect(thrownError { () throws(StorageError) in try store.get("rooms/r1/model.glb/x", maxBytes: 100) }?.code == StorageError.Code.notFound)
        #expect(try store.size("rooms/r1") == nil)
        #expect(try store.size("rooms/r1/model.glb/x") == nil)
    }

    @Test func listIsSortedAndSkipsTemporaryFiles() throws {
        let root = try makeRoot()
        defer { cleanUp(root) }
        let store = try FileObjectStore(root: root)
        let keys = ["b", "a/2", "a/10", "a/1", "ab", "a b", "Z", "é", "a/sub/deep/x.webp", "a/sub/y"]
        for key in keys.shuffled() { try store.put(key, bytes: Array(key.utf8), contentType: "text/plain") }
        // A leftover of an interrupted write and an empty directory are not objects.
        try #require(FileManager.default.createFile(atPath: root + "/a/.tmp-put-1-dead", contents: Data([1])))
        try FileManager.default.createDirectory(atPath: root + "/a/emptydir", withIntermediateDirectories: true)

        #expect(try store.list(prefix: "") == ["Z", "a b", "a/1", "a/10", "a/2", "a/sub/deep/x.webp", "a/sub/y", "ab", "b", "é"])
        #expect(try store.list(prefix: "a/") == ["a/1", "a/10", "a/2", "a/sub/deep/x.webp", "a/sub/y"])
        #expect(try store.list(prefix: "a") == ["a b", "a/1", "a/10", "a/2", "a/sub/deep/x.webp", "a/sub/y", "ab"])
        #expect(try store.list(prefix: "a/1") == ["a/1", "a/10"])
        #expect(try store.list(prefix: "a/sub/") == ["a/sub/deep/x.webp", "a/sub/y"])
        #expect(try store.list(prefix: "a/sub/deep/x.webp") == ["a/sub/deep/x.webp"])
        #expect(try store.list(prefix: "nope/") == [])
        #expect(try store.list(prefix: "b/") == [])  // b is an object, not a prefix
    }

    @Test func deleteIsIdempotent() throws {
        let root = try makeRoot()
        defer { cleanUp(root) }
        let store = try FileObjectStore(root: root)
        try store.put("rooms/r/thumbs/hero.webp", bytes: [1, 2], contentType: "image/webp")
        try store.put("rooms/r/model.glb", bytes: [3], contentType: "model/gltf-binary")
        try store.delete("rooms/r/thumbs/hero.webp")
        try store.delete("rooms/r/thumbs/hero.webp")
        try store.delete("never/existed")
        try store.delete("rooms/r")  // a prefix, not an object: nothing to delete
        #expect(thrownError { () throws(StorageError) in try store.get("rooms/r/thumbs/hero.webp", maxBytes: 10) }?.code == StorageError.Code.notFound)
        #expect(try store.list(prefix: "rooms/") == ["rooms/r/model.glb"])
    }

    @Test func objectAndPrefixCannotShareAName() throws {
        let root = try makeRoot()
        defer { cleanUp(root) }
        let store = try FileObjectStore(root: root)
        try store.put("a/b", bytes: [1], contentType: "text/plain")
        #expect(thrownError { () throws(StorageError) in try store.put("a", bytes: [2], contentType: "text/plain") }?.code == StorageError.Code.invalidKey)
        try store.put("x", bytes: [1], contentType: "text/plain")
        #expect(thrownError { () throws(StorageError) in try store.put("x/y", bytes: [2], contentType: "text/plain") }?.code == StorageError.Code.invalidKey)
        #expect(try store.list(prefix: "") == ["a/b", "x"])
        #expect(allEntries(root).filter { $0.contains(".tmp-put-") }.isEmpty)
    }

    @Test func errnoMapping() {
        let full = StorageError.system(ENOSPC, "cannot write k", key: "k", writing: true)
        #expect(full.code == StorageError.Code.noSpace)
        #expect(full.isRetryable == false)
        #expect(StorageError.system(EDQUOT, "w", key: nil, writing: true).code == StorageError.Code.noSpace)
        let io = StorageError.system(EIO, "w", key: nil, writing: true)
        #expect(io.code == StorageError.Code.writeFailed)
        #expect(io.isRetryable)
        let read = StorageError.system(EIO, "r", key: nil, writing: false)
        #expect(read.code == StorageError.Code.unavailable)
        #expect(read.isRetryable)
        for code in [StorageError.Code.notFound, StorageError.Code.tooLarge, StorageError.Code.invalidKey, StorageError.Code.noSpace, StorageError.Code.urlInvalid] {
            #expect(StorageError(code: code, message: "m").isRetryable == false)
        }
    }

    @Test func openingFileURLs() throws {
        let root = try makeRoot()
        defer { cleanUp(root) }
        let store = try StorageURL.open("file://" + root)
        try store.put("k", bytes: [1], contentType: "text/plain")
        #expect(FileManager.default.fileExists(atPath: root + "/k"))
        #expect(store.location == "file://" + StorageURL.percentEncodePath(root))

        // Percent-decoding, a missing root is created, `localhost` and a trailing slash are fine.
        let spaced = try StorageURL.open("file://localhost" + StorageURL.percentEncodePath(root) + "/with%20space/new%2Fdir/")
        try spaced.put("x/y", bytes: [2], contentType: "text/plain")
        #expect(FileManager.default.fileExists(atPath: root + "/with space/new/dir/x/y"))
        #expect(spaced.location.hasSuffix("/with%20space/new/dir"))
    }

    @Test func storageURLErrors() throws {
        let root = try makeRoot()
        defer { cleanUp(root) }
        try #require(FileManager.default.createFile(atPath: root + "/plain-file", contents: Data([1])))
        let cases: [String] = [
            "s3://b?bogus=1", "file://relative/dir", "file:relative", "/abs/no/scheme",
            "http://example.com/x", "file:///bad%zz", "file:///bad%4", "file:///x?y", "file:///x#y",
            "file://", "file:///", "file:///%00nul", "file:///%FF%FE", "file://" + root + "/plain-file", "",
        ]
        for url in cases {
            let error = thrownError { () throws(StorageError) in try StorageURL.open(url) }
            #expect(error?.code == StorageError.Code.urlInvalid, "\(url)")
            #expect(error?.isRetryable == false)
        }
        // Credentials in an unsupported URL never reach the message.
        let secret = thrownError { () throws(StorageError) in try StorageURL.open("ftp://user:s3cr3t@host/x") }
        #expect(secret?.message.contains("s3cr3t") == false)
    }
}

/// A counter shared by threads.
private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
