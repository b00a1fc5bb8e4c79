import Testing

@testable import SceneModel

/// `LayeredScene.applyCategoryPalette`: what the model's colours become in a room scan, said per
/// rule rather than by a file's hash.
struct CategoryPaletteTests {
    /// One triangle, drawn with `material` (nil: none).
    static func triangle(_ name: String, material: MaterialIndex?) -> Mesh {
        Mesh(name: name, positions: [0, 0, 0, 1, 0, 0, 0, 1, 0], indices: [0, 1, 2],
             primitives: material.map { [Mesh.Primitive(indexStart: 0, indexCount: 3, material: $0)] } ?? [])
    }

    /// A wall and a chair drawing one shared untextured mesh, and a door with a textured material.
    static func room(withWall: Bool = true) -> LayeredScene {
        var scene = Scene()
        let grey = scene.addMaterial(Material(name: "grey", baseColor: SIMD4(0.5, 0.5, 0.5, 0.25), roughness: 0.7))
        let texture = scene.addTexture(Texture(bytes: [1, 2, 3], mimeType: "image/png", sourcePath: "wood.png"))
        let wood = scene.addMaterial(Material(name: "wood", baseColorTexture: TextureRef(texture: texture)))
        let shared = scene.addMesh(triangle("box", material: grey))
        let door = scene.addMesh(triangle("door", material: wood))
        let root = scene.addNode(Node(name: "root"))
        let wallNode = scene.addNode(Node(name: "W", parent: root, mesh: shared))
        let chairNode = scene.addNode(Node(name: "C", parent: root))
        _ = scene.addNode(Node(name: "C part", parent: chairNode, mesh: shared))
        let doorNode = scene.addNode(Node(name: "D", parent: root, mesh: door))
        var elements = [RoomElement(identifier: "C", category: ElementCategory(rawValue: "chair"), layer: LayerID(rawValue: "objects.chair"),
                                    geometry: .usd, node: chairNode),
                        RoomElement(identifier: "D", category: .door, layer: .doors, geometry: .usd, node: doorNode)]
        if withWall {
            elements.insert(RoomElement(identifier: "W", category: .wall, layer: .walls, geometry: .usd, node: wallNode), at: 0)
        }
        return LayeredScene(scene: scene, layers: [RoomLayer(id: .walls, kind: .walls, node: root, elements: [0])],
                            elements: elements)
    }

    func colour(_ layered: LayeredScene, node name: String) -> SIMD4<Float>? {
        guard let node = layered.scene.nodes.first(where: { $0.name == name }), let mesh = node.mesh,
              let material = layered.scene.meshes[mesh.rawValue].primitives.first?.material else { return nil }
        return layered.scene.materials[material.rawValue].baseColor
    }

    @Test func untexturedSurfacesTakeTheirCategorysColourKeepingTheRest() throws {
        var layered = Self.room()
        let colours = layered.applyCategoryPalette()
        let wall = CategoryPalette.linear(try #require(CategoryPalette.surface(.wall)))
        let chair = CategoryPalette.linear(CategoryPalette.object(ElementCategory(rawValue: "chair")))
        #expect(colour(layered, node: "W") == SIMD4(wall, 0.25), "the colour changes, the alpha stays")
        #expect(colour(layered, node: "C part") == SIMD4(chair, 0.25))
        // The mesh the wall and the chair share is copied once for the second category.
        #expect(layered.scene.meshes.count == 3)
        #expect(layered.scene.nodes.first { $0.name == "W" }?.mesh != layered.scene.nodes.first { $0.name == "C part" }?.mesh)
        let wallMaterial = try #require(layered.scene.materials.first { $0.name == "grey wall" })
        #expect(wallMaterial.roughness == 0.7)
        // A textured material is the scan's own picture: it stays.
        #expect(colour(layered, node: "D") == Material(name: "x").baseColor)
        #expect(colours[.walls] == CategoryPalette.layer(.walls))
    }

    @Test func aSceneWithoutAWallIsNotARoomAndStaysAsItIs() {
        var layered = Self.room(withWall: false)
        let before = layered
        #expect(layered.applyCategoryPalette().isEmpty)
        #expect(layered == before)
    }
}
