import Foundation
import SceneModel
import Testing

@testable import GLBWriter
import TestSupport

/// The binary container and the exact bytes of a tiny scene.
@Suite struct ContainerTests {
    /// The smallest useful room: one layer, one element drawing one triangle with +Z normals.
    func tinyRoom() -> LayeredScene { singleMeshRoom(Meshes.triangle()) }

    @Test func tinySceneBinBytesMatchHandComputedLayout() throws {
        let (_, reader) = try writeAndRead(tinyRoom())
        // POSITION (3 × VEC3 float), NORMAL (3 × VEC3 float), indices u16 0 1 2 + 2 zero bytes of padding.
        let expected = le([0, 0, 0, 1, 0, 0, 0, 1, 0]) + le([0, 0, 1, 0, 0, 1, 0, 0, 1]) + [0, 0, 1, 0, 2, 0, 0, 0]
        #expect(reader.bin == expected)
    }

    @Test func tinySceneJSONIsGolden() throws {
        let (_, reader) = try writeAndRead(tinyRoom())
        let golden = """
            {"asset":{"generator":"CrowdRoom tests","version":"2.0"},"scene":0,"scenes":[{"nodes":[0]}],\
            "nodes":[{"name":"layer_walls","children":[1],"extras":{"crowdroom":{"defaultVisible":true,\
            "kind":"layer","layer":"walls","layerKind":"walls"}}},{"name":"WALL-1","mesh":0,"extras":\
            {"crowdroom":{"attributes":{},"category":"wall","confidence":"high","geometry":"usd",\
            "identifier":"WALL-1","kind":"element","layer":"walls"}}}],"meshes":[{"name":"triangle",\
            "primitives":[{"attributes":{"POSITION":0,"NORMAL":1},"indices":2,"material":0}]}],\
            "materials":[{"name":"default","pbrMetallicRoughness":{"baseColorFactor":[0.18,0.18,0.18,1],\
            "metallicFactor":0,"roughnessFactor":0.5}}],"accessors":[{"bufferView":0,"componentType":5126,\
            "count":3,"type":"VEC3","min":[0,0,0],"max":[1,1,0]},{"bufferView":1,"componentType":5126,\
            "count":3,"type":"VEC3"},{"bufferView":2,"componentType":5123,"count":3,"type":"SCALAR"}],\
            "bufferViews":[{"buffer":0,"byteLength":36,"target":34962},{"buffer":0,"byteOffset":36,\
            "byteLength":36,"target":34962},{"buffer":0,"byteOffset":72,"byteLength":6,"target":34963}],\
            "buffers":[{"byteLength":80}]}
            """
        #expect(reader.jsonText == golden)
    }

    @Test func headerAndChunksFollowTheGLBLayout() throws {
        let output = try GLBWriter.write(tinyRoom(), options: GLBOptions(generator: "g"))
        let b = output.bytes
        #expect(Array(b[0..<4]) == Array("glTF".utf8))
        #expect(GLBTestReader.u32(b, 4) == 2)
        #expect(Int(GLBTestReader.u32(b, 8)) == b.count)
        let jsonLength = Int(GLBTestReader.u32(b, 12))
        #expect(jsonLength % 4 == 0)
        #expect(Array(b[16..<20]) == Array("JSON".utf8))
        let json = b[20..<(20 + jsonLength)]
        let end = try #require(json.lastIndex(of: UInt8(ascii: "}")))
        #expect(json[(end + 1)...].allSatisfy { $0 == 0x20 }, "JSON padded with spaces")
        let binHeader = 20 + jsonLength
        #expect(GLBTestReader.u32(b, binHeader) == 80)
        #expect(Array(b[(binHeader + 4)..<(binHeader + 8)]) == [0x42, 0x49, 0x4E, 0x00])
        #expect(binHeader + 8 + 80 == b.count)
    }

    @Test func jsonPaddingUsesSpacesForEveryRemainder() throws {
        // Generators of four different lengths cover every JSON length modulo 4.
        for generator in ["a", "ab", "abc", "abcd"] {
            let output = try GLBWriter.write(tinyRoom(), options: GLBOptions(generator: generator))
            #expect(GLTFStructuralValidator.validate(output.bytes).isEmpty)
            let reader = try GLBTestReader(output.bytes)
            #expect(reader.jsonChunk.count % 4 == 0)
            #expect((reader.json["asset"] as? [String: Any])?["generator"] as? String == generator)
        }
    }

    @Test func sceneWithoutGeometryHasNoBinChunk() throws {
        var b = RoomBuilder()
        let layer = b.addLayer("doors")
        b.addElement("DOOR-1", layer: layer, category: "door", geometry: .none)
        let (output, reader) = try writeAndRead(b.layered)
        #expect(reader.bin == nil)
        #expect(reader.json["buffers"] == nil && reader.json["meshes"] == nil)
        #expect(output.meshCount == 0 && output.nodeIndex.count == 2)
    }

    @Test func emptyLayeredSceneIsStillAValidFile() throws {
        let (output, reader) = try writeAndRead(LayeredScene(scene: Scene()))
        #expect(reader.json["nodes"] == nil)
        #expect((reader.json["scenes"] as? [[String: Any]])?.count == 1)
        #expect(output.bytes.count % 4 == 0)
    }

    @Test func bufferViewsAreAlignedAfterOddLengthIndexData() throws {
        // Two meshes: the first has 3 u16 indices (6 bytes), so the next view must be re-aligned.
        var b = RoomBuilder()
        let t = b.scene.addMesh(Meshes.triangle())
        let q = b.scene.addMesh(Meshes.quad())
        let layer = b.addLayer("walls")
        b.addElement("A", layer: layer, category: "wall", mesh: t)
        b.addElement("B", layer: layer, category: "wall", mesh: q)
        let (_, reader) = try writeAndRead(b.layered)
        let offsets = reader.bufferViews.map { int($0["byteOffset"]) ?? 0 }
        #expect(offsets.allSatisfy { $0 % 4 == 0 })
        #expect(offsets[3] == 80, "the second mesh starts after 78 bytes padded to 80")
        #expect(Array(reader.bin![78..<80]) == [0, 0], "alignment gaps are zero")
    }
}

@Suite struct LimitTests {
    /// Every code is unique, upper case, starts with `GLB_` and reads back as its case.
    @Test func errorCodesAreWellFormed() {
        #expect(errorCodeProblems(GLBWriterError.Code.self, prefix: "GLB_") == [])
    }

    @Test func binaryBufferOverTwoGiBThrowsTooLargeBeforeAllocating() {
        do {
            _ = try GLBContainer.assemble(json: Array("{}".utf8), binLength: GLBContainer.maxBinLength + 4) { _ in
                Issue.record("nothing may be written")
            }
            Issue.record("expected GLB_TOO_LARGE")
        } catch let error as GLBWriterError {
            #expect(error.code == .tooLarge)
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func nonFiniteSmoothingAngleFallsBackToTheDefault() throws {
        let a = try GLBWriter.write(
            singleMeshRoom(Meshes.cube8()), options: GLBOptions(generator: "g", smoothingAngleDegrees: .nan))
        let b = try GLBWriter.write(singleMeshRoom(Meshes.cube8()), options: GLBOptions(generator: "g"))
        #expect(a.bytes == b.bytes && a.vertexCount == 24)
    }
}
