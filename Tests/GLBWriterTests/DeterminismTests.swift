import SceneModel
import Testing

@testable import GLBWriter

@Suite struct DeterminismTests {
    @Test func twoWritesGiveIdenticalBytes() throws {
        let options = GLBOptions(generator: "CrowdRoom transcode-worker 0.1.0")
        var room = RoundTripTests.room()
        room.scene.meshes.append(Meshes.sphere())
        let chairs = room.layers[2].node
        room.scene.addNode(Node(name: "ball", parent: chairs, mesh: MeshIndex(room.scene.meshes.count - 1)))
        let a = try GLBWriter.write(room, options: options)
        let b = try GLBWriter.write(room, options: options)
        #expect(a.bytes == b.bytes)
        #expect(a.nodeIndex == b.nodeIndex)
        #expect(a.warnings == b.warnings)
    }

    @Test func attributeInsertionOrderDoesNotChangeTheBytes() throws {
        func room(_ pairs: [(String, String)]) -> LayeredScene {
            var b = RoomBuilder()
            let layer = b.addLayer("objects.table", kind: "objects", category: "table")
            var attributes: [String: String] = [:]
            for (k, v) in pairs { attributes[k] = v }
            b.addElement("T", layer: layer, category: "table", attributes: attributes)
            return b.layered
        }
        let pairs = (0..<40).map { ("key\($0)", "value\($0)") }
        let a = try GLBWriter.write(room(pairs), options: GLBOptions(generator: "g"))
        let b = try GLBWriter.write(room(pairs.reversed()), options: GLBOptions(generator: "g"))
        #expect(a.bytes == b.bytes)
    }

    @Test func generatedNormalsAreDeterministic() throws {
        let room = singleMeshRoom(Meshes.sphere(rings: 20, segments: 37))
        let a = try GLBWriter.write(room, options: GLBOptions(generator: "g", smoothingAngleDegrees: 10))
        let b = try GLBWriter.write(room, options: GLBOptions(generator: "g", smoothingAngleDegrees: 10))
        #expect(a.bytes == b.bytes)
    }
}
