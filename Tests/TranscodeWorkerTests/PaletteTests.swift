import Foundation
import SceneModel
import Testing
import SourceFiles

@testable import TranscodeWorker
import TestSupport
@testable import JobPipeline

/// The web model's colours: in room scans, untextured materials take their category's palette
/// colour (the thumbnails' colours) unless `--materials source`; the manifest records each layer's.
@Suite struct PaletteTests {
    static func run(_ usdz: String, json: String?, _ configure: (inout PipelineInput) -> Void = { _ in }) throws
        -> (glb: [String: Any], manifest: [String: Any])
    {
        let path = TestPaths.path(usdz)
        var input = PipelineInput(thumbnails: nil)
        input.usd = .init(name: (path as NSString).lastPathComponent, bytes: try FileReader.map(path, maxBytes: 1 << 28),
                          siblings: nil)
        if let json { input.roomPlanJSON = ("room.json", try FileReader.read(TestPaths.path(json), maxBytes: 1 << 26)) }
        input.glbCompression = .none
        configure(&input)
        let r = try TranscodePipeline.run(input)
        let glb = try TextureReencodeTests.chunks(try TextureReencodeTests.glb(r)).0
        let manifestFile = try #require(r.files.first { $0.path == "layer_manifest.json" })
        let manifest = try #require(try JSONSerialization.jsonObject(with: Data(manifestFile.bytes)) as? [String: Any])
        return (glb, manifest)
    }

    /// Base colour factors (RGB) of the materials the element node's subtree draws.
    static func colours(of identifier: String, in glb: [String: Any]) -> Set<[Float]> {
        let nodes = glb["nodes"] as? [[String: Any]] ?? [], meshes = glb["meshes"] as? [[String: Any]] ?? []
        let materials = glb["materials"] as? [[String: Any]] ?? []
        guard let start = nodes.firstIndex(where: { $0["name"] as? String == identifier }) else { return [] }
        var out = Set<[Float]>(), stack = [start]
        while let n = stack.popLast() {
            stack += nodes[n]["children"] as? [Int] ?? []
            guard let m = nodes[n]["mesh"] as? Int else { continue }
            for p in meshes[m]["primitives"] as? [[String: Any]] ?? [] {
                let material = materials[p["material"] as? Int ?? 0]
                let factor = ((material["pbrMetallicRoughness"] as? [String: Any])?["baseColorFactor"] as? [Double]) ?? [1, 1, 1, 1]
                out.insert(factor.prefix(3).map { Float($0) })
            }
        }
        return out
    }

    static func rgb(_ hex: UInt32) -> [Float] { let l = CategoryPalette.linear(hex); return [l.x, l.y, l.z] }

    @Test func roomScanElementsTakeTheirCategoryColour() throws {
        let (glb, manifest) = try Self.run("samples/roomplan/parametric_two_sections.usdz",
                                           json: "samples/roomplan/parametric_two_sections.json")
        let elements = manifest["elements"] as? [[String: Any]] ?? []
        var checked = 0
        for e in elements {
            guard let id = e["identifier"] as? String, let category = e["category"] as? String,
                let hex = CategoryPalette.surface(ElementCategory(category))
            else { continue }
            let got = Self.colours(of: id, in: glb)
            #expect(got == [Self.rgb(hex)], "\(category) \(id): \(got)")
            checked += 1
        }
        #expect(checked >= 10)
        let layers = manifest["layers"] as? [[String: Any]] ?? []
        let palette = Dictionary(uniqueKeysWithValues: layers.map { ($0["id"] as! String, $0["palette"] as? String) })
        #expect(palette["walls"] == "#ECEAE6" && palette["doors"] == "#B07F58")
        #expect(layers.allSatisfy { $0["palette"] is String }, "every layer of a room scan has a colour")
    }

    @Test func sourceKeepsTheScansOwnMaterials() throws {
        let (glb, manifest) = try Self.run("samples/roomplan/parametric_two_sections.usdz",
                                           json: "samples/roomplan/parametric_two_sections.json") { $0.materials = .source }
        let wall = try #require((manifest["elements"] as? [[String: Any]])?.first { $0["category"] as? String == "wall" })
        #expect(!Self.colours(of: wall["identifier"] as! String, in: glb).contains(Self.rgb(CategoryPalette.surface(.wall)!)))
        #expect((manifest["layers"] as? [[String: Any]] ?? []).allSatisfy { $0["palette"] is NSNull })
    }

    @Test func scenesThatAreNotRoomsAreLeftAlone() throws {
        let (_, manifest) = try Self.run("samples/textured/textured_box.usdz", json: nil)
        #expect((manifest["layers"] as? [[String: Any]] ?? []).allSatisfy { $0["palette"] is NSNull })
    }

    @Test func texturedMaterialsStayAndSharedMeshesAreCopiedPerCategory() throws {
        var scene = Scene()
        let plain = scene.addMaterial(Material(name: "white"))
        let texture = scene.addTexture(Texture(bytes: [1], mimeType: "image/png", sourcePath: "t.png"))
        let textured = scene.addMaterial(Material(name: "wood", baseColorTexture: TextureRef(texture: texture)))
        let shared = scene.addMesh(Mesh(
            name: "panel", positions: [0, 0, 0, 1, 0, 0, 0, 1, 0], indices: [0, 1, 2, 0, 2, 1],
            primitives: [Mesh.Primitive(indexStart: 0, indexCount: 3, material: plain),
                         Mesh.Primitive(indexStart: 3, indexCount: 3, material: textured)]))
        let walls = scene.addNode(Node(name: NodeName.layer(.walls)))
        let doors = scene.addNode(Node(name: NodeName.layer(.doors)))
        let wallNode = scene.addNode(Node(name: "W", parent: walls, mesh: shared))
        let doorNode = scene.addNode(Node(name: "D", parent: doors, mesh: shared))
        var layered = LayeredScene(
            scene: scene,
            layers: [RoomLayer(id: .walls, kind: .walls, node: walls, elements: [0]),
                     RoomLayer(id: .doors, kind: .doors, node: doors, elements: [1])],
            elements: [RoomElement(identifier: "W", category: .wall, layer: .walls, geometry: .usd, node: wallNode),
                       RoomElement(identifier: "D", category: .door, layer: .doors, geometry: .usd, node: doorNode)])
        let colours = layered.applyCategoryPalette()
        #expect(colours == [.walls: 0xECEAE6, .doors: 0xB07F58])
        let s = layered.scene
        let wallMesh = try #require(s.nodes[wallNode.rawValue].mesh), doorMesh = try #require(s.nodes[doorNode.rawValue].mesh)
        #expect(wallMesh != doorMesh, "the door draws its own copy")
        for (mesh, hex) in [(wallMesh, UInt32(0xECEAE6)), (doorMesh, 0xB07F58)] {
            let prims = s.meshes[mesh.rawValue].primitives
            let first = s.materials[prims[0].material!.rawValue]
            #expect(first.baseColor == SIMD4(CategoryPalette.linear(hex), 1))
            #expect(prims[1].material == textured, "a textured material keeps its texture and colour")
        }
        #expect(s.materials[plain.rawValue] == Material(name: "white"), "the scan's material itself is unchanged")
    }
}
