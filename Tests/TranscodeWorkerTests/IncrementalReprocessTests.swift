import Foundation
import Testing
import TestSupport
@testable import TranscodeWorker
@testable import ObjectStorage
@testable import PGQueue
@testable import WorkerRuntime
import Manifest
import USDParse
@testable import WorkerCore
@testable import JobPipeline

/// Re-transcodes that redo only what changed: output groups keyed by what made them
/// (`artifacts` in the manifest), reused from the published revision when their key is
/// unchanged and copied in storage instead of uploaded, with outputs byte for byte those of a
/// full re-transcode; `reprocess --force` redoes everything.
@Suite("Incremental reprocess", .enabled(if: postgresConfigured), .serialized)
struct IncrementalReprocessTests {
    /// Every file under `prefix`, by path below it, with its SHA-256.
    static func hashes(_ f: JobFixture, _ prefix: String) throws -> [String: String] {
        var out: [String: String] = [:]
        for key in try f.files.list(prefix: prefix) {
            out[String(key.dropFirst(prefix.count))] = Digest.hex(Digest.sha256(try f.files.get(key, maxBytes: 1 << 26)))
        }
        return out
    }

    /// A fixture with the sample transcoded once: its version, that job, and its files' hashes.
    static func published() throws -> (JobFixture, String, ClaimedJob, [String: String]) {
        let f = try JobFixture()
        let version = try f.submitSample()
        let first = try f.claim()
        #expect(f.runner().run(first, control: JobControl()) == .ready(outputPrefix: first.outputPrefix))
        return (f, version, first, try hashes(f, first.outputPrefix))
    }

    /// Runs one reprocess of `version` (already ready) and returns its job.
    static func reprocess(_ f: JobFixture, _ version: String, force: Bool = false) throws -> ClaimedJob {
        #expect(try f.store.markReprocess(versionId: version, force: force))
        let job = try f.claim()
        #expect(job.isReprocess && job.reprocessFull == force)
        #expect(f.runner().run(job, control: JobControl()) == .ready(outputPrefix: job.outputPrefix))
        return job
    }

    @Test func aManifestOnlyReprocessCopiesEveryGroupAndMatchesAFullOne() throws {
        let (f, version, first, original) = try Self.published()

        let putsBefore = f.recorder.puts.count
        let incremental = try Self.reprocess(f, version)
        let copied = f.recorder.copies.map { String($0.destination.dropFirst(incremental.outputPrefix.count)) }
        let uploaded = f.recorder.puts.dropFirst(putsBefore).map { String($0.key.dropFirst(incremental.outputPrefix.count)) }
        // The model, every thumbnail and the plan files are copied; only the manifest and the
        // report (which embeds the manifest's figures) are written.
        #expect(Set(copied) == Set(original.keys).subtracting(["layer_manifest.json", "report.html"]))
        #expect(f.recorder.copies.allSatisfy { $0.source.hasPrefix(first.outputPrefix) })
        #expect(Set(uploaded) == ["layer_manifest.json", "report.html"])
        #expect(try Self.hashes(f, incremental.outputPrefix) == original, "the new revision differs from a fresh transcode")
        #expect(try f.files.list(prefix: first.outputPrefix).isEmpty, "the superseded revision was not deleted")

        // --force redoes everything, and comes to the same bytes.
        let copiesBefore = f.recorder.copies.count
        let full = try Self.reprocess(f, version, force: true)
        #expect(f.recorder.copies.count == copiesBefore)
        #expect(try Self.hashes(f, full.outputPrefix) == original)
    }

    @Test func aChangedGroupIsMadeAgainAndTheOthersReused() throws {
        let (f, version, _, original) = try Self.published()
        // Another plan language for this version: the plan group (its files and the plan
        // thumbnail drawn with it) is made again; the model and the eleven 3D views are reused.
        try f.store.connection.query("UPDATE transcode_private.room_versions SET plan_locale = 'zh-Hans' WHERE id = $1::uuid", [version])
        let job = try Self.reprocess(f, version)
        let copied = Set(f.recorder.copies.map { String($0.destination.dropFirst(job.outputPrefix.count)) })
        let views3D = Set(original.keys.filter { $0.hasPrefix("thumbs/") && $0 != "thumbs/plan.webp" })
        #expect(views3D.count == 11)
        #expect(copied == views3D.union(["model.glb"]))
        let now = try Self.hashes(f, job.outputPrefix)
        #expect(now["model.glb"] == original["model.glb"])
        #expect(now["plan.svg"] != original["plan.svg"])
        #expect(now["thumbs/plan.webp"] != original["thumbs/plan.webp"])
        // The same bytes as making everything again in that language.
        let full = try Self.reprocess(f, version, force: true)
        #expect(try Self.hashes(f, full.outputPrefix) == now)
    }

    @Test func aTamperedPreviousFileIsNotReused() throws {
        let (f, version, first, original) = try Self.published()
        // Someone replaced a published thumbnail: its hash no longer matches the manifest.
        try f.files.put(first.outputPrefix + "thumbs/hero.webp", bytes: Array("not a webp".utf8), contentType: "image/webp")
        let job = try Self.reprocess(f, version)
        let copied = Set(f.recorder.copies.map { String($0.destination.dropFirst(job.outputPrefix.count)) })
        #expect(!copied.contains { $0.hasPrefix("thumbs/") && $0 != "thumbs/plan.webp" }, "a thumbnail group with a bad file was reused")
        // The plan group, with the plan thumbnail drawn with it, is intact and reused.
        #expect(copied.isSuperset(of: ["plan.svg", "thumbs/plan.webp"]))
        #expect(try Self.hashes(f, job.outputPrefix) == original)
    }

    @Test func aFailedCopyIsUploadedFromThePreviousObject() throws {
        let (f, version, _, original) = try Self.published()
        // The child wrote no copy of the reused hero: the worker reads the previous object again.
        f.recorder.failCopies(of: "thumbs/hero.webp")
        let putsBefore = f.recorder.puts.count
        let job = try Self.reprocess(f, version)
        let uploaded = f.recorder.puts.dropFirst(putsBefore).map { String($0.key.dropFirst(job.outputPrefix.count)) }
        #expect(Set(uploaded) == ["thumbs/hero.webp", "layer_manifest.json", "report.html"])
        #expect(try Self.hashes(f, job.outputPrefix) == original)

        // The previous hero changes while it is reused: the attempt fails, retryably, and publishes nothing.
        f.recorder.failCopies(of: "thumbs/hero.webp", replacingSource: Array("changed".utf8))
        #expect(try f.store.markReprocess(versionId: version))
        let changed = try f.claim()
        let outcome = f.runner().run(changed, control: JobControl())
        guard case .retried = outcome else {
            Issue.record("a changed previous file gave \(outcome)")
            return
        }
        #expect(try f.files.list(prefix: changed.outputPrefix).isEmpty, "a partial revision was left")
        let last = try #require(try f.errors(version).last)
        #expect((last["message"] as? String)?.hasPrefix("PREVIOUS_CHANGED: ") == true, "\(last)")
    }

    @Test func aPublishedPlanThatIsNotAPlainDrawingIsMadeAgain() throws {
        let (f, version, first, original) = try Self.published()
        // Someone with write access to the bucket put a script in the plan and made the manifest agree.
        let svgKey = first.outputPrefix + "plan.svg", manifestKey = first.outputPrefix + "layer_manifest.json"
        var svg = String(decoding: try f.files.get(svgKey, maxBytes: 1 << 24), as: UTF8.self)
        svg = svg.replacingOccurrences(of: "</svg>", with: "<script>alert(1)</script></svg>")
        let hostile = Array(svg.utf8)
        var manifest = try #require(try JSONSerialization.jsonObject(with: Data(try f.files.get(manifestKey, maxBytes: 1 << 24)))
            as? [String: Any])
        var plan = try #require(manifest["plan"] as? [String: Any])
        plan["files"] = try #require(plan["files"] as? [[String: Any]]).map { file in
            guard file["path"] as? String == "plan.svg" else { return file }
            var forged = file
            forged["bytes"] = hostile.count
            forged["sha256"] = Digest.hex(Digest.sha256(hostile))
            return forged
        }
        manifest["plan"] = plan
        try f.files.put(svgKey, bytes: hostile, contentType: "image/svg+xml")
        try f.files.put(manifestKey, bytes: Array(try JSONSerialization.data(withJSONObject: manifest)), contentType: "application/json")
        // The plan is not offered for reuse: it is made again, and the version stays publishable.
        let job = try Self.reprocess(f, version)
        let copied = Set(f.recorder.copies.map { String($0.destination.dropFirst(job.outputPrefix.count)) })
        #expect(!copied.contains("plan.svg") && !copied.contains("plan.pdf"))
        #expect(copied.contains("model.glb"))
        #expect(try Self.hashes(f, job.outputPrefix) == original)
    }

    @Test func fullBatchSlotsLeaveReprocessRowsForLater() throws {
        let (f, version, _, _) = try Self.published()
        #expect(try f.store.markReprocess(versionId: version))
        #expect(try f.store.claim(workerId: "tw-slots", leaseSeconds: 30, includeReprocess: false) == nil)
        let fresh = try f.submitSample()
        #expect(try f.store.claim(workerId: "tw-slots", leaseSeconds: 30, includeReprocess: false)?.versionId == fresh)
        #expect(try f.store.claim(workerId: "tw-slots", leaseSeconds: 30)?.versionId == version)
        var config = WorkerConfig(environment: ["TRANSCODE_CONCURRENCY": "2"])
        #expect(config.effectiveBatchSlots == 1)
        config.concurrency = 1
        #expect(config.effectiveBatchSlots == 1)
        config = WorkerConfig(environment: ["TRANSCODE_CONCURRENCY": "4", "TRANSCODE_BATCH_SLOTS": "9"])
        #expect(config.effectiveBatchSlots == 4)
        #expect(config.batchNice == 19)
        #expect(throws: UsageError.self) { try WorkerConfig(environment: ["TRANSCODE_BATCH_NICE": "25"]).validate() }
    }

    @Test func aPreviousManifestOutsideTheVersionIsIgnored() throws {
        let (f, version, _, _) = try Self.published()
        // A hostile row: the manifest path names another version's outputs.
        try f.store.connection.query("UPDATE transcode_private.room_versions SET manifest_path = $2 WHERE id = $1::uuid",
                                     [version, "rooms/\(f.roomId)/versions/\(UUID().uuidString.lowercased())/r1-00000000/layer_manifest.json"])
        _ = try Self.reprocess(f, version)
        #expect(f.recorder.copies.isEmpty)
    }
}

/// The pipeline with a previous revision: groups with unchanged keys are taken, not made.
@Suite struct PreviousOutputsPipelineTests {
    static func input() throws -> PipelineInput {
        var input = PipelineInput(versionId: "6f1c2f7e-2d0a-4c53-9c1e-0a1b2c3d4e5f", roomId: "0b7d3a52-9e41-4f7a-8c55-1d2e3f405162")
        let usd = try JobFixture.sample(JobFixture.sampleUSDZ), json = try JobFixture.sample(JobFixture.sampleJSON)
        input.usd = PipelineInput.USDSource(name: "source.usdz", bytes: ByteView(usd))
        input.roomPlanJSON = ("roomplan.json", json)
        return input
    }

    static func previous(_ r: PipelineResult) -> PreviousOutputs {
        PreviousOutputs(manifest: r.files.first { $0.path == "layer_manifest.json" }!.bytes,
                        files: Dictionary(uniqueKeysWithValues: r.files.map { ($0.path, $0.bytes) }))
    }

    @Test func unchangedGroupsAreTakenAndTheBytesAreTheSame() throws {
        let full = try TranscodePipeline.run(try Self.input())
        var again = try Self.input()
        again.previous = Self.previous(full)
        let reused = try TranscodePipeline.run(again)
        #expect(!reused.summary.phaseMilliseconds.contains { $0.phase == .preview }, "thumbnails were rendered again")
        #expect(reused.reused == Set(full.files.map(\.path)).subtracting(["layer_manifest.json"]))
        #expect(reused.files.map(\.path) == full.files.map(\.path))
        for (a, b) in zip(full.files, reused.files) { #expect(a.bytes == b.bytes, "\(a.path) differs") }

        // Another manifest schema's previous revision, or a file that does not match: nothing reused.
        var old = Self.previous(full)
        old.manifest = Array(String(decoding: old.manifest, as: UTF8.self)
            .replacingOccurrences(of: "\"schema_version\": \(ManifestBuilder.schemaVersion)", with: "\"schema_version\": 4").utf8)
        again.previous = old
        #expect(try TranscodePipeline.run(again).reused.isEmpty)
        var tampered = Self.previous(full)
        tampered.files["plan.pdf"] = Array("%PDF-1.4 forged".utf8)
        again.previous = tampered
        let partly = try TranscodePipeline.run(again)
        #expect(!partly.reused.contains("plan.pdf"))
        #expect(partly.reused.contains("thumbs/hero.webp"))
        #expect(partly.files.first { $0.path == "plan.pdf" }?.bytes == full.files.first { $0.path == "plan.pdf" }?.bytes)
    }
}

/// `ObjectStore.copy` on the file store: a hard link renamed into place.
@Suite struct FileStoreCopyTests {
    @Test func copiesByLinkAndRefusesAMissingSource() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("copy-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let store = try FileObjectStore(root: root)
        try store.put("a/r1/model.glb", bytes: [1, 2, 3], contentType: "model/gltf-binary")
        try store.copy("a/r1/model.glb", to: "a/r2/model.glb", contentType: "model/gltf-binary", cacheControl: nil)
        #expect(try store.get("a/r2/model.glb", maxBytes: 10) == [1, 2, 3])
        var a = stat(), b = stat()
        #expect(stat(root + "/a/r1/model.glb", &a) == 0 && stat(root + "/a/r2/model.glb", &b) == 0)
        #expect(a.st_ino == b.st_ino, "not a hard link")
        try store.delete("a/r1/model.glb")
        #expect(try store.get("a/r2/model.glb", maxBytes: 10) == [1, 2, 3], "deleting the source took the copy")
        #expect(thrownError { () throws(StorageError) in try store.copy("a/none", to: "a/x", contentType: "", cacheControl: nil) }?.code == StorageError.Code.notFound)
        #expect(try store.list(prefix: "a/").allSatisfy { !$0.contains(".tmp-") })
    }
}
