import Testing

@testable import SceneModel

/// `Scene.merging`: every index moved by the counts before it, roots kept, metadata of the first.
@Suite struct SceneMergingTests {
    static func scene(_ name: String) -> Scene {
        var s = Scene(metadata: SceneMetadata(sourceUpAxis: .y, sourceMetersPerUnit: 1, defaultPrim: name, sourceFormat: "usdz"))
        let t = s.addTexture(Texture(bytes: [1, 2, 3], mimeType: "image/png", sourcePath: "/" + name + ".png"))
        var m = Material(name: name + "-mat")
        m.baseColorTexture = TextureRef(texture: t)
        let mat = s.addMaterial(m)
        let mesh = s.addMesh(Mesh(name: name, positions: [0, 0, 0, 1, 0, 0, 0, 0, 1], indices: [0, 1, 2],
                                  primitives: [Mesh.Primitive(indexStart: 0, indexCount: 3, material: mat)]))
        let root = s.addNode(Node(name: name, sourcePath: "/" + name, kind: "group"))
        s.addNode(Node(name: name + "-child", parent: root, mesh: mesh, sourcePath: "/" + name + "/c"))
        s.warnings = [SceneWarning(code: "W", message: name)]
        return s
    }

    @Test func indicesMoveAndRootsStayRoots() {
        let merged = Scene.merging([Self.scene("a"), Self.scene("b")])
        #expect(merged.nodes.count == 4 && merged.meshes.count == 2 && merged.materials.count == 2 && merged.textures.count == 2)
        #expect(merged.nodes[3].parent == NodeIndex(2) && merged.nodes[3].mesh == MeshIndex(1))
        #expect(merged.roots == [NodeIndex(0), NodeIndex(2)])
        #expect(merged.meshes[1].primitives[0].material == MaterialIndex(1))
        #expect(merged.materials[1].baseColorTexture?.texture == TextureIndex(1))
        #expect(merged.metadata.defaultPrim == "a" && merged.warnings.map(\.message) == ["a", "b"])
        #expect(Scene.merging([]) == Scene())
        #expect(Scene.merging([Self.scene("a")]) == Self.scene("a"))
    }
}
