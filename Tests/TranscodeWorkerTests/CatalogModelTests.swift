import Foundation
import Testing

@testable import GLBWriter
@testable import JobPipeline

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
