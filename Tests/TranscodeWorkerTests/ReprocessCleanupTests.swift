import Foundation
import Testing
import TestSupport
@testable import TranscodeWorker
@testable import ObjectStorage
@testable import PGQueue
@testable import WorkerRuntime

/// After a newer revision of a version is ready, nothing of the older one stays in storage.
@Suite("Superseded revisions are deleted after a reprocess", .enabled(if: postgresConfigured), .serialized)
struct ReprocessCleanupTests {
    /// Transcodes a version, reprocesses it twice, and checks after each ready that only the
    /// current revision's outputs (and the sources) remain.
    private func reprocessTwice(_ f: JobFixture, storage: any ObjectStore) throws {
        let usd = try JobFixture.sample(JobFixture.sampleUSDZ), json = try JobFixture.sample(JobFixture.sampleJSON)
        let version = UUID().uuidString.lowercased()
        let root = StorageConfinement.outputRoot(roomId: f.roomId, versionId: version)
        try storage.put(root + "scan.usdz", bytes: usd, contentType: "model/vnd.usdz+zip")
        try storage.put(root + "room.json", bytes: json, contentType: "application/json")
        try f.store.submit(versionId: version, roomId: f.roomId, roomName: nil, usdzKey: root + "scan.usdz", jsonKey: root + "room.json")
        let collected = CollectedOutputs()
        let runner = JobRunner(config: f.config, storage: storage, logger: JSONLogger(workerId: "tw-gc", minimum: .error, fd: TestOutput.logFD)) { event in
            if case .outputsCollected(let o) = event { collected.add(o) }
        }
        var previous: [String] = []
        for round in 1...3 {
            if round > 1 { #expect(try f.store.markReprocess(versionId: version)) }
            let job = try f.claim()
            #expect(runner.run(job, control: JobControl()) == .ready(outputPrefix: job.outputPrefix))
            let keys = try storage.list(prefix: root)
            let outputs = keys.filter { key in
                key.dropFirst(root.count).split(separator: "/").first.map { OutputCollector.revision(of: $0) != nil } ?? false
            }
            #expect(!outputs.isEmpty && outputs.allSatisfy { $0.hasPrefix(job.outputPrefix) }, "round \(round): \(outputs)")
            #expect(keys.contains(root + "scan.usdz") && keys.contains(root + "room.json"))
            #expect(previous.allSatisfy { !keys.contains($0) }, "round \(round): objects of the superseded revision remain")
            #expect(try f.row(version)["glb_path"] == job.outputPrefix + "model.glb")
            if round > 1 { #expect(collected.objects == (round - 1) * previous.count) }
            previous = outputs
        }
    }

    @Test func fileStorage() throws {
        let f = try JobFixture()
        try reprocessTwice(f, storage: f.files)
    }

    @Test(.enabled(if: s3Configured)) func s3Storage() throws {
        let f = try JobFixture()
        try reprocessTwice(f, storage: try TestS3.makeStore(prefix: "", pageSize: 4))
    }

    /// `gc` deletes what a lost answer left behind, once it is older than the grace period,
    /// and `--dry-run` only counts it.
    @Test func gcCommandSweepsAbandonedAttempts() throws {
        let f = try JobFixture()
        let version = try f.submitSample()
        let job = try f.claim()
        #expect(f.runner().run(job, control: JobControl()) == .ready(outputPrefix: job.outputPrefix))
        let root = StorageConfinement.outputRoot(roomId: f.roomId, versionId: version)
        let abandoned = root + "r2-0badc0de/"
        for name in ["model.glb", "thumbs/hero.webp"] {
            try f.files.put(abandoned + name, bytes: Array(repeating: 9, count: 100), contentType: "application/octet-stream")
        }
        func age(_ seconds: Double) throws {
            for name in ["model.glb", "thumbs/hero.webp"] {
                try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-seconds)],
                                                      ofItemAtPath: f.root + "/" + abandoned + name)
            }
        }
        let args = ["--database-url", f.db.url, "--storage-url", "file://" + f.root, "--json"]
        try age(120)
        #expect(CommandLineTool.main(["gc"] + args) == 0)
        #expect(try f.files.list(prefix: abandoned).count == 2, "younger than the 3600 s grace period")
        #expect(CommandLineTool.main(["gc", "--grace-seconds", "60", "--dry-run"] + args) == 0)
        #expect(try f.files.list(prefix: abandoned).count == 2, "a dry run deletes nothing")
        #expect(CommandLineTool.main(["gc", "--grace-seconds", "60", "--version", version] + args) == 0)
        #expect(try f.files.list(prefix: abandoned).isEmpty)
        #expect(!(try f.files.list(prefix: job.outputPrefix)).isEmpty, "the current revision stays")
        #expect(CommandLineTool.main(["gc", "--grace-seconds", "5"] + args) == 2, "a grace period under 60 s is refused")
    }

    @Test func metricsCountCollectedObjects() {
        let m = Metrics()
        m.outputsCollected(objects: 13, bytes: 4096, failures: 1)
        let text = m.render()
        #expect(text.contains("transcode_gc_objects_deleted_total 13\n"))
        #expect(text.contains("transcode_gc_bytes_deleted_total 4096\n"))
        #expect(text.contains("transcode_gc_failures_total 1\n"))
    }
}

/// Sums the `outputsCollected` events of a runner (called on job threads).
final class CollectedOutputs: @unchecked Sendable {
    private let lock = NSLock()
    private var total = OutputCollector.Outcome()
    func add(_ o: OutputCollector.Outcome) { lock.withLock { total.add(o) } }
    var objects: Int { lock.withLock { total.objects } }
}
