import Testing
import Manifest
import SceneModel

/// The typed manifest: `ManifestBuilder.document` holds the values as the file writes them (the
/// lists in the file's order, hashes lowercase), and its bytes are the file.
@Suite struct ManifestDocumentTests {
    @Test func theDocumentWritesTheFile() throws {
        let input = SampleRoom.input()
        let document = try ManifestBuilder.document(input)
        #expect(document.bytes == (try ManifestBuilder.build(input)))
        #expect(document.schemaVersion == ManifestBuilder.schemaVersion)
    }

    @Test func listsAreInTheFilesOrderAndHashesLowercase() throws {
        var input = SampleRoom.input()
        input.glb.sha256 = input.glb.sha256.uppercased()
        input.inputs[0].sha256 = input.inputs[0].sha256.uppercased()
        let document = try ManifestBuilder.document(input)
        // The RoomPlan JSON was given first; the file lists the USD first.
        #expect(document.inputs.map(\.role) == ["usd", "roomplan_json"])
        #expect(document.inputs.allSatisfy { $0.sha256 == $0.sha256.lowercased() })
        #expect(document.glb.sha256 == input.glb.sha256.lowercased())
        // Thumbnails by kind, then path; elements in layer order, each with its glTF node.
        let kinds = document.thumbnails.map(\.kind)
        #expect(kinds == kinds.sorted { Thumbnail.kinds.firstIndex(of: $0)! < Thumbnail.kinds.firstIndex(of: $1)! })
        #expect(document.elements.map(\.element.identifier).first == SampleRoom.wallBack)
        for e in document.elements { #expect(e.node == input.glbNodeIndex[e.element.node]) }
    }

    @Test func numbersAreShownAsTheFileWritesThem() {
        #expect(ManifestDocument.written(0.10000000149011612) == 0.1)
        #expect(ManifestDocument.written(-0.0000001) == 0)
        #expect(ManifestDocument.written(Double?.none) == nil)
        #expect(ManifestDocument.written(Double?.some(.nan)) == nil)
        #expect(ManifestDocument.written(Double?.some(2.5)) == 2.5)
    }
}
