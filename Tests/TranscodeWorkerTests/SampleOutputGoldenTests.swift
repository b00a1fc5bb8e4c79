import Foundation
import Testing

@testable import TranscodeWorker
@testable import ObjectStorage

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
        let rendered = Self.render(actual)
        if ProcessInfo.processInfo.environment["TRANSCODE_UPDATE_GOLDEN"] == "1" {
            try Data(rendered.utf8).write(to: URL(fileURLWithPath: Self.goldenPath))
            Issue.record("wrote \(Self.goldenPath); review it and run again without TRANSCODE_UPDATE_GOLDEN")
            return
        }
        let golden = try #require(FileManager.default.contents(atPath: Self.goldenPath), "\(Self.goldenPath) is missing")
        let pinned = try #require(try JSONSerialization.jsonObject(with: golden) as? [String: String])
        let added = Set(actual.keys).subtracting(pinned.keys).sorted(), gone = Set(pinned.keys).subtracting(actual.keys).sorted()
        #expect(added.isEmpty && gone.isEmpty, "outputs added: \(added), gone: \(gone)")
        let changed = actual.keys.sorted().filter { pinned[$0] != nil && pinned[$0] != actual[$0] }
        #expect(changed.isEmpty, "outputs whose bytes changed: \(changed)")
    }

    /// Sorted keys, one per line, final newline.
    static func render(_ hashes: [String: String]) -> String {
        "{\n" + hashes.keys.sorted().map { "  \"\($0)\": \"\(hashes[$0]!)\"" }.joined(separator: ",\n") + "\n}\n"
    }
}
