import Foundation
import Testing
@testable import TranscodeWorker
@testable import ObjectStorage
@testable import WorkerRuntime

/// One version's storage as attempts leave it: an old revision, the current one, a same-numbered
/// attempt that lost its lease, a newer attempt in flight, and the sources and redactions.
struct CollectorLayout {
    let room = UUID().uuidString.lowercased(), version = UUID().uuidString.lowercased()
    var root: String { StorageConfinement.outputRoot(roomId: room, versionId: version) }
    var current: String { root + "r2-bbbbbbbb/" }
    var target: OutputCollector.Target {
        OutputCollector.Target(versionId: version, roomId: room, glbPath: current + "model.glb", leaseId: nil)
    }
    static let revisionFiles = ["model.glb", "layer_manifest.json", "thumbs/hero.webp", "thumbs/card.webp"]
    static let keptFiles = ["source.usdz", "roomplan.json", "redacted/textures/albedo.png", "r2-notalease/x", "rx-aaaaaaaa/y"]

    func fill(_ store: any ObjectStore) throws {
        for dir in ["r1-aaaaaaaa/", "r2-bbbbbbbb/", "r2-cccccccc/", "r3-dddddddd/"] {
            for f in Self.revisionFiles { try store.put(root + dir + f, bytes: Array(repeating: 7, count: 10), contentType: "application/octet-stream") }
        }
        for f in Self.keptFiles { try store.put(root + f, bytes: [1, 2, 3], contentType: "application/octet-stream") }
    }

    /// Checks every collector mode against `store`.
    func checkModes(_ store: any ObjectStore) throws {
        try fill(store)
        let collector = OutputCollector(storage: store)
        // Dry: counted, nothing deleted.
        let dry = try collector.collect(target, mode: .superseded, dryRun: true)
        #expect(dry.objects == 8 && dry.bytes == 80)
        #expect(try store.list(prefix: root).count == 16 + Self.keptFiles.count)
        // Superseded: the older revision and the lost same-numbered attempt go; the current
        // revision, the newer attempt and every non-revision object stay.
        let done = try collector.collect(target, mode: .superseded)
        #expect(done == dry)
        #expect(done.directories == [root + "r1-aaaaaaaa/", root + "r2-cccccccc/"])
        let left = Set(try store.list(prefix: root))
        for f in Self.revisionFiles {
            #expect(left.contains(current + f) && left.contains(root + "r3-dddddddd/" + f))
            #expect(!left.contains(root + "r1-aaaaaaaa/" + f) && !left.contains(root + "r2-cccccccc/" + f))
        }
        for f in Self.keptFiles { #expect(left.contains(root + f)) }
        // Sweep: young objects stay; old ones go unless a live lease or glb_path names them.
        let now = Date().timeIntervalSince1970
        #expect(try collector.collect(target, mode: .sweep(graceSeconds: 3600, now: now)).objects == 0)
        var live = target
        live.leaseId = "dddddddd-0000-4000-8000-000000000000"
        #expect(try collector.collect(live, mode: .sweep(graceSeconds: 3600, now: now + 7200)).objects == 0)
        let swept = try collector.collect(target, mode: .sweep(graceSeconds: 3600, now: now + 7200))
        #expect(swept.directories == [root + "r3-dddddddd/"] && swept.objects == 4)
        // A failed version (no glb_path): every revision directory is garbage after the grace period.
        var failed = target
        failed.glbPath = nil
        #expect(try collector.collect(failed, mode: .superseded).objects == 0, "nothing is superseded without a current revision")
        #expect(try collector.collect(failed, mode: .sweep(graceSeconds: 3600, now: now + 7200)).directories == [current])
        let rest = Set(try store.list(prefix: root))
        #expect(rest == Set(Self.keptFiles.map { root + $0 }))
    }
}

@Suite("Output collector: superseded and abandoned revisions leave storage")
struct OutputCollectorTests {
    @Test func revisionDirectoryNames() {
        #expect(OutputCollector.revision(of: "r12-0a1b2c3d")?.number == 12)
        for bad in ["r-0a1b2c3d", "r1-0A1B2C3D", "r1-0a1b2c3", "r1-0a1b2c3dd", "x1-0a1b2c3d", "r1x-0a1b2c3d", "source.usdz", "redacted", "r"] {
            #expect(OutputCollector.revision(of: Substring(bad)) == nil, "\(bad)")
        }
    }

    @Test func fileStorage() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("collector-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try CollectorLayout().checkModes(try FileObjectStore(root: dir))
    }

    @Test(.enabled(if: s3Configured)) func s3Storage() throws {
        try CollectorLayout().checkModes(try TestS3.makeStore(prefix: "tenant/", pageSize: 5))
    }

    @Test func listingsCarrySizesAndTimes() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("collector-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try FileObjectStore(root: dir)
        try store.put("a/b.bin", bytes: Array(repeating: 0, count: 1234), contentType: "application/octet-stream")
        let old = Date(timeIntervalSince1970: 1_000_000_000)
        try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: dir + "/a/b.bin")
        #expect(try store.listObjects(prefix: "a/") == [StoredObject(key: "a/b.bin", bytes: 1234, modified: 1_000_000_000)])
        #expect(S3ObjectStore.epochSeconds("2001-09-09T01:46:40.000Z") == 1_000_000_000)
        #expect(S3ObjectStore.epochSeconds("2024-02-29T23:59:59Z") == 1_709_251_199)
        #expect(S3ObjectStore.epochSeconds("garbage") == nil)
    }

    @Test(.enabled(if: s3Configured)) func s3ListingsCarrySizesAndTimes() throws {
        let store = try TestS3.makeStore(pageSize: 2)
        for i in 0..<5 { try store.put("p/\(i)", bytes: Array(repeating: 1, count: i + 1), contentType: "application/octet-stream") }
        let listed = try store.listObjects(prefix: "p/")
        #expect(listed.map(\.key) == (0..<5).map { "p/\($0)" })
        #expect(listed.map(\.bytes) == [1, 2, 3, 4, 5])
        let now = Date().timeIntervalSince1970
        #expect(listed.allSatisfy { abs($0.modified - now) < 3600 })
    }
}
