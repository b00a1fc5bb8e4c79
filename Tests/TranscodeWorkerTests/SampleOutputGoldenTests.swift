import Foundation
import Testing

@testable import TranscodeWorker
@testable import ObjectStorage
@testable import WorkerCore
@testable import JobPipeline

/// The exact bytes of every output of every bundled sample, pinned by SHA-256 in
/// `Tests/Fixtures/golden/sample-outputs.json`. Two conversions in one process cannot catch
/// output that depends on hashing seeds, thread scheduling or the build; hashes pinned across
/// builds do. After a deliberate change of the outputs, review the new files and rewrite the list
/// with `TRANSCODE_UPDATE_GOLDEN=1` (the test then writes it and fails once, to be run again).
@Suite struct SampleOutputGoldenTests {
    static let goldenPath = ConvertTests.path("Tests/Fixtures/golden/sample-outputs.json")

    /// Every sample the repository bundles: the RoomPlan pairs, the plain room and the textured box
    /// with its redacted texture.
    static func samples() -> [(name: String, usd: String, json: String?, redacted: String?)] {
        ConvertTests.roomPlanPairs.map { (($0.usdz as NSString).lastPathComponent, $0.usdz, $0.json, nil) }
            + [("room.usdz", "samples/room.usdz", nil, nil),
               ("textured_box.usdz", "samples/textured/textured_box.usdz", nil, "samples/textured/redacted")]
    }

    @Test func everySampleOutputHasItsPinnedBytes() throws {
        var actual: [String: String] = [:]
        for sample in Self.samples() {
            let result = try TranscodePipeline.run(try ConvertTests().input(usd: sample.usd, json: sample.json, redacted: sample.redacted))
            for file in result.files { actual[sample.name + "/" + file.path] = Digest.hex(Digest.sha256(file.bytes)) }
        }
        #expect(actual.count >= 6 * 5, "outputs: \(actual.count)")
        for (stage, version) in Self.stageVersions { actual["stage/" + stage] = String(version) }
        let golden = FileManager.default.contents(atPath: Self.goldenPath)
        let pinned = golden.flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: String] } ?? [:]
        // Output bytes that change under the same stage version would let a reprocess reuse stale
        // files of that group: the stage's version must be bumped with them.
        let stale = Self.stagesNeedingABump(actual: actual, pinned: pinned)
        #expect(stale.isEmpty, "outputs changed without a new stage version; bump ArtifactStages.\(stale.joined(separator: ", ."))")
        let rendered = Self.render(actual)
        if ProcessInfo.processInfo.environment["TRANSCODE_UPDATE_GOLDEN"] == "1" {
            try Data(rendered.utf8).write(to: URL(fileURLWithPath: Self.goldenPath))
            Issue.record("wrote \(Self.goldenPath); review it and run again without TRANSCODE_UPDATE_GOLDEN")
            return
        }
        try #require(golden != nil, "\(Self.goldenPath) is missing")
        let added = Set(actual.keys).subtracting(pinned.keys).sorted(), gone = Set(pinned.keys).subtracting(actual.keys).sorted()
        #expect(added.isEmpty && gone.isEmpty, "outputs added: \(added), gone: \(gone)")
        let changed = actual.keys.sorted().filter { pinned[$0] != nil && pinned[$0] != actual[$0] }
        #expect(changed.isEmpty, "outputs whose bytes changed: \(changed)")
    }

    /// The stage versions pinned beside the hashes.
    static let stageVersions = ["scene": ArtifactStages.scene, "model": ArtifactStages.model,
                                "render": ArtifactStages.render, "plan": ArtifactStages.plan]

    /// The stages whose output files changed against `pinned` while their version (and the
    /// scene's) stayed the same. The plan thumbnail of a room is drawn from the plan: either
    /// version covers it.
    static func stagesNeedingABump(actual: [String: String], pinned: [String: String]) -> [String] {
        func same(_ stage: String) -> Bool { pinned["stage/" + stage] == actual["stage/" + stage] }
        guard pinned["stage/scene"] != nil, same("scene") else { return [] }
        var stale: Set<String> = []
        for (key, hash) in actual where !key.hasPrefix("stage/") {
            guard let old = pinned[key], old != hash else { continue }
            let file = String(key.split(separator: "/", maxSplits: 1).last ?? "")
            if file == "model.glb", same("model") { stale.insert("model") }
            if file.hasPrefix("plan."), same("plan") { stale.insert("plan") }
            if file == "thumbs/plan.webp" {
                if same("render") && same("plan") { stale.insert("render") }
            } else if file.hasPrefix("thumbs/"), same("render") {
                stale.insert("render")
            }
        }
        return stale.sorted()
    }

    @Test func changedOutputsNeedANewStageVersion() {
        let pinned = ["stage/scene": "1", "stage/model": "1", "stage/render": "1", "stage/plan": "1",
                      "a/model.glb": "x", "a/thumbs/hero.webp": "y", "a/thumbs/plan.webp": "z", "a/plan.svg": "w"]
        var actual = pinned
        #expect(Self.stagesNeedingABump(actual: actual, pinned: pinned) == [])
        actual["a/thumbs/hero.webp"] = "y2"
        actual["a/plan.svg"] = "w2"
        #expect(Self.stagesNeedingABump(actual: actual, pinned: pinned) == ["plan", "render"])
        actual["stage/render"] = "2"
        actual["stage/plan"] = "2"
        actual["a/thumbs/plan.webp"] = "z2"
        #expect(Self.stagesNeedingABump(actual: actual, pinned: pinned) == [])
        actual["stage/scene"] = "2"
        actual["a/model.glb"] = "x2"
        #expect(Self.stagesNeedingABump(actual: actual, pinned: pinned) == [], "a new scene version makes everything again")
    }

    /// Sorted keys, one per line, final newline.
    static func render(_ hashes: [String: String]) -> String {
        "{\n" + hashes.keys.sorted().map { "  \"\($0)\": \"\(hashes[$0]!)\"" }.joined(separator: ",\n") + "\n}\n"
    }
}
