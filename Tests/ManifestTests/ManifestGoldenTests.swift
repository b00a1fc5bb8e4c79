import Foundation
import Testing
import Manifest
import SceneModel

/// The golden manifest of `SampleRoom`: the exact bytes are committed under `Fixtures/`. After an
/// intended change, rewrite it with `MANIFEST_UPDATE_GOLDEN=1 swift test --filter ManifestTests`,
/// review the diff, and bump `ManifestBuilder.schemaVersion` if the shape changed incompatibly.
@Suite struct ManifestGoldenTests {
    @Test func sampleRoomMatchesTheGoldenFile() throws {
        let (bytes, _) = try ManifestTestSupport.buildValidated(SampleRoom.input())
        let url = ManifestTestSupport.goldenURL
        if ProcessInfo.processInfo.environment["MANIFEST_UPDATE_GOLDEN"] == "1" {
            try Data(bytes).write(to: url)
        }
        let golden = try [UInt8](Data(contentsOf: url))
        #expect(bytes == golden, "manifest differs from \(url.lastPathComponent)")
        if bytes != golden {
            let a = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            let b = String(decoding: golden, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            if let i = zip(a, b).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset {
                Issue.record("first difference at line \(i + 1): got \(a[i]) expected \(b[i])")
            }
        }
    }

    @Test func goldenFileIsValidSortedAndEndsWithOneNewline() throws {
        let golden = try [UInt8](Data(contentsOf: ManifestTestSupport.goldenURL))
        #expect(golden.last == 0x0A && golden.dropLast().last != 0x0A)
        let document = try JSONDocument.parse(golden)
        #expect(try ManifestTestSupport.validator().validate(document).isEmpty)
        #expect(ManifestTestSupport.keysAreSorted(document))
        #expect(document["schema_version"] == .number(Double(ManifestBuilder.schemaVersion)))
    }

    @Test func buildsAreByteIdentical() throws {
        let a = try ManifestTestSupport.buildValidated(SampleRoom.input()).bytes
        let b = try ManifestTestSupport.buildValidated(SampleRoom.input()).bytes
        #expect(a == b)
    }

    @Test func outputDoesNotDependOnTheOrderOfUnorderedInputs() throws {
        let reference = try ManifestTestSupport.buildValidated(SampleRoom.input()).bytes
        var input = SampleRoom.input()
        input.inputs.reverse()
        input.thumbnails.reverse()
        input.redactions.append(TextureSubstitution(
            texturePath: "0/a.png", replacementName: "redacted-1.png", replacementSHA256: SampleRoom.redactedSHA))
        input.redactions.reverse()
        // Dictionaries rebuilt in another insertion order.
        input.glbNodeIndex = Dictionary(uniqueKeysWithValues: input.glbNodeIndex.sorted { $0.key > $1.key }.map { ($0.key, $0.value) })
        input.layered.metrics.countsPerLayer = Dictionary(
            uniqueKeysWithValues: input.layered.metrics.countsPerLayer.sorted { $0.key > $1.key }.map { ($0.key, $0.value) })
        let shuffled = try ManifestTestSupport.buildValidated(input).bytes
        var expected = SampleRoom.input()
        expected.redactions.insert(TextureSubstitution(
            texturePath: "0/a.png", replacementName: "redacted-1.png", replacementSHA256: SampleRoom.redactedSHA), at: 0)
        #expect(try shuffled == ManifestTestSupport.buildValidated(expected).bytes)
        #expect(shuffled != reference)
    }

    @Test func manifestContainsNoTimestamps() throws {
        let text = String(decoding: try ManifestTestSupport.buildValidated(SampleRoom.input()).bytes, as: UTF8.self)
        #expect(text.range(of: #"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}"#, options: .regularExpression) == nil)
        #expect(!text.contains("_at\""))
    }
}
