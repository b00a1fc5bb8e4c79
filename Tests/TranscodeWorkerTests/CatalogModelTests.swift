import Foundation
import Testing

@testable import GLBWriter
@testable import JobPipeline
import SourceFiles
import USDParse

/// A `.model` export (`samples/roomplan/model_catalog`): two chairs reference one embedded catalog
/// crate file with faceVarying normals and `st`. Each chair composes its own copy of the catalog
/// mesh and material; the model stores the chair once and both chairs keep their element nodes.
@Suite struct CatalogModelTests {
    /// The glTF JSON of the sample's model, written with `compression`.
    static func model(_ compression: GLBCompression) throws -> [String: Any] {
        var input = try ConvertTests().input(
            usd: "samples/roomplan/model_catalog.usdz", json: "samples/roomplan/model_catalog.json")
        input.thumbnails = nil
        input.plan = nil
        input.glbCompression = compression
        let result = try TranscodePipeline.run(input)
        let glb = try #require(result.files.first { $0.path == "model.glb" }?.bytes)
        let length = Int(glb[12]) | Int(glb[13]) << 8 | Int(glb[14]) << 16 | Int(glb[15]) << 24
        return try #require(try JSONSerialization.jsonObject(with: Data(glb[20..<(20 + length)])) as? [String: Any])
    }

    /// The glTF meshes drawn in the subtree of the node named `name`.
    static func meshes(below name: String, in json: [String: Any]) -> [Int] {
        let nodes = json["nodes"] as? [[String: Any]] ?? []
        guard var stack = nodes.firstIndex(where: { $0["name"] as? String == name }).map({ [$0] }) else { return [] }
        var out: [Int] = []
        while let n = stack.popLast() {
            if let m = nodes[n]["mesh"] as? Int { out.append(m) }
            stack += nodes[n]["children"] as? [Int] ?? []
        }
        return out
    }

    /// Apple's catalog chair from the corpus (`roomplan/catalog/`, centimetres, faceVarying normals
    /// and `st`) referenced by three chairs, each with its own scale to metres, as a `.model` export
    /// places it.
    static func catalogChairs() throws -> PipelineInput {
        let catalog = try #require(CorpusAgreementTests.corpus) + "/roomplan/catalog"
        var layer = "#usda 1.0\n(\n    defaultPrim = \"Room\"\n    metersPerUnit = 1\n    upAxis = \"Y\"\n)\n\n"
        layer += "def Xform \"Room\"\n{\n"
        for (k, scale) in ["0.0099, 0.01, 0.0098", "0.0101, 0.0099, 0.01", "0.0097, 0.0102, 0.0099"].enumerated() {
            layer += """
                    def Xform "Chair\(k)"
                    {
                        double3 xformOp:translate = (\(k), 0, 0)
                        uniform token[] xformOpOrder = ["xformOp:translate"]
                        def Xform "model" (prepend references = @./DefaultChair.rooms.usdc@)
                        {
                            double3 xformOp:scale = (\(scale))
                            uniform token[] xformOpOrder = ["xformOp:scale"]
                        }
                    }

                """
        }
        layer += "}\n"
        var input = PipelineInput()
        input.usd = .init(name: "room.usda", bytes: ByteView(Array(layer.utf8)),
                          siblings: DirectoryAssetProvider(root: catalog, maxBytes: 1 << 24))
        input.thumbnails = nil
        input.plan = nil
        return input
    }

    @Test(.enabled(if: CorpusAgreementTests.corpus != nil, "../shared/corpus is absent"))
    func appleCatalogChairsAreOneMeshOnTheGridOfTheirDrawnSize() throws {
        let input = try Self.catalogChairs()
        let result = try TranscodePipeline.run(input)
        let json = try ConvertTests().glbJSON(try #require(result.files.first { $0.path == "model.glb" }?.bytes))
        let meshes = json["meshes"] as? [[String: Any]] ?? []
        let nodes = json["nodes"] as? [[String: Any]] ?? []
        #expect(meshes.count == 1, "\(meshes.compactMap { $0["name"] as? String })")
        #expect(nodes.filter { $0["mesh"] as? Int == 0 }.count == 3)
        // Each chair keeps its own nodes (here a group layer each, the input being plain USD).
        #expect((0..<3).allSatisfy { k in nodes.contains { $0["name"] as? String == "layer_group_Chair\(k)" } },
                "\(nodes.compactMap { $0["name"] as? String })")
        // The chair spans ±31.97 cm: drawn at about 0.01, its positions are on a 2⁻³ grid (1.25 mm
        // in the room), where at its own size they would be on 2⁻⁹ (31.974609375).
        let accessors = json["accessors"] as? [[String: Any]] ?? []
        let attributes = ((meshes.first?["primitives"] as? [[String: Any]])?.first?["attributes"] as? [String: Any]) ?? [:]
        let position = try #require(attributes["POSITION"] as? Int)
        let bounds = ((accessors[position]["min"] as? [Double]) ?? []) + ((accessors[position]["max"] as? [Double]) ?? [])
        #expect(bounds.count == 6 && bounds.allSatisfy { ($0 * 8).rounded() == $0 * 8 }, "\(bounds)")
        #expect(abs(bounds[3] - 31.974842) <= 0.0625, "\(bounds)")
    }

    @Test func bothChairsDrawTheOneStoredCatalogMesh() throws {
        for compression in GLBCompression.allCases {
            let json = try Self.model(compression)
            let nodes = json["nodes"] as? [[String: Any]] ?? []
            let chairs = nodes.filter {
                let extras = ($0["extras"] as? [String: Any])?["crowdroom"] as? [String: Any]
                return extras?["kind"] as? String == "element" && extras?["category"] as? String == "chair"
            }.compactMap { $0["name"] as? String }
            #expect(chairs.count == 2, "\(compression): \(chairs)")
            let drawn = chairs.map { Self.meshes(below: $0, in: json) }
            #expect(drawn.count == 2 && drawn[0].count == 1 && drawn[0] == drawn[1], "\(compression): \(drawn)")
            // Walls, floor, door, window, the table and one chair.
            let meshes = json["meshes"] as? [[String: Any]] ?? []
            #expect(meshes.filter { ($0["name"] as? String)?.hasPrefix("DiningChair") == true }.count == 1,
                    "\(compression): \(meshes.compactMap { $0["name"] as? String })")
        }
    }
}
