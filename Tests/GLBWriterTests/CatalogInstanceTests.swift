import SceneModel
import Testing

@testable import GLBWriter

/// RoomPlan's `.model` export: every object references a catalog model, so each instance brings
/// its own copy of the model's mesh and of its material (the same values under its own prim path).
/// The copies are written as one glTF mesh and one material, and every instance keeps its nodes.
@Suite struct CatalogInstanceTests {
    /// `chairs` chairs laid out as the export does: element node → `model` (a per-instance
    /// non-uniform scale, centimetres to metres) → the catalog mesh, each chair with its own copy of
    /// the mesh and of the material. `tint`: chairs whose material copy has another colour.
    static func furnishedRoom(chairs: Int, tint: Set<Int> = []) -> LayeredScene {
        var b = RoomBuilder()
        let layer = b.addLayer("objects.chair", kind: "objects", category: "chair")
        for k in 0..<chairs {
            let material = b.scene.addMaterial(
                Material(name: "roomplan_matSG_\(k)", baseColor: tint.contains(k) ? SIMD4(0.8, 0.2, 0.2, 1) : SIMD4(0.6, 0.5, 0.4, 1)))
            var mesh = Meshes.sphere()
            mesh.name = "chair_Default"
            mesh.positions = mesh.positions.map { $0 * 31.5 }  // centimetres
            mesh.primitives = [.init(indexStart: 0, indexCount: mesh.indices.count, material: material)]
            let m = b.scene.addMesh(mesh)
            let element = b.addElement(
                "CHAIR-\(k)", layer: layer, category: "chair", transform: .translation(Double(k), 0, 0),
                dimensions: SIMD3(0.63, 0.9, 0.55), attributes: ["ChairType": "dining"])
            var scale = Matrix4.identity
            scale[0, 0] = 0.0099 + 0.0001 * Double(k % 3)
            scale[1, 1] = 0.01
            scale[2, 2] = 0.0098
            let model = b.addChild("model", of: element, transform: scale)
            b.addChild("chair_Default", of: model, mesh: m)
        }
        return b.layered
    }

    @Test func instancesWithTheirOwnMaterialCopiesShareOneMeshAndOneMaterial() throws {
        let chairs = 6
        let layered = Self.furnishedRoom(chairs: chairs)
        for compression in GLBCompression.allCases {
            let output = try GLBWriter.write(layered, options: GLBOptions(generator: "t", compression: compression))
            #expect(GLTFStructuralValidator.validate(output.bytes).isEmpty)
            let reader = try GLBTestReader(output.bytes)
            #expect(output.meshCount == 1 && reader.meshes.count == 1, "\(compression): \(output.meshCount) meshes")
            #expect(output.materialCount == 1 && reader.array("materials").count == 1)
            let sphere = Meshes.sphere()
            #expect(output.triangleCount == sphere.triangleCount, "the mesh is counted once")
            // Every instance keeps its element node, its `model` node with its own scale, and a node
            // drawing the one mesh: 1 layer + 3 nodes per chair.
            #expect(reader.nodes.count == 1 + 3 * chairs)
            let drawing = reader.nodes.filter { $0["mesh"] != nil }
            #expect(drawing.count == chairs && drawing.allSatisfy { int($0["mesh"]) == 0 })
            let names = reader.nodes.compactMap { $0["name"] as? String }
            for k in 0..<chairs { #expect(names.contains("CHAIR-\(k)")) }
            let scales = reader.nodes.filter { ($0["name"] as? String)?.hasPrefix("model") == true }.compactMap {
                ($0["matrix"] as? [Double])?[0]
            }
            #expect(Set(scales).count == 3, "each instance keeps its own scale: \(scales)")
        }
    }

    @Test func aCopyWhoseMaterialDiffersStaysASeparateMesh() throws {
        let layered = Self.furnishedRoom(chairs: 4, tint: [2])
        for compression in GLBCompression.allCases {
            let output = try GLBWriter.write(layered, options: GLBOptions(generator: "t", compression: compression))
            let reader = try GLBTestReader(output.bytes)
            #expect(output.meshCount == 2 && output.materialCount == 2, "\(compression)")
            let meshes = reader.nodes.filter { $0["mesh"] != nil }.map { int($0["mesh"]) ?? -1 }
            #expect(meshes == [0, 0, 1, 0], "\(meshes)")
        }
    }

    @Test func theWrittenModelIsTheSameWhicheverInstanceComesFirst() throws {
        // The first instance's copy is the one written; its name is the mesh's and the material's.
        let output = try GLBWriter.write(
            Self.furnishedRoom(chairs: 3), options: GLBOptions(generator: "t", compression: .meshopt))
        let reader = try GLBTestReader(output.bytes)
        #expect(reader.meshes.first?["name"] as? String == "chair_Default")
        #expect(reader.array("materials").first?["name"] as? String == "roomplan_matSG_0")
        let again = try GLBWriter.write(
            Self.furnishedRoom(chairs: 3), options: GLBOptions(generator: "t", compression: .meshopt))
        #expect(again.bytes == output.bytes)
    }
}
