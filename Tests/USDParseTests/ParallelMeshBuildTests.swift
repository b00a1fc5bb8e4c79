import Foundation
import SceneModel
import Testing

@testable import USDParse

/// Meshes are triangulated and assembled on all cores after the traversal; the scene (mesh order,
/// contents, warnings and their order) must be what a one-mesh-at-a-time build gives.
@Suite struct ParallelMeshBuildTests {
    /// A star polygon with `n` corners (concave; above `PolygonTriangulator.maxEarClippingCorners` it is fanned).
    private func star(_ prim: inout UsdPrim, corners n: Int) {
        var points: [SIMD3<Float>] = []
        for k in 0..<n {
            let a = Float(k) * 2 * .pi / Float(n)
            let r: Float = k % 2 == 0 ? 1 : 0.4
            points.append(SIMD3(r * Float(cos(Double(a))), r * Float(sin(Double(a))), 0))
        }
        prim.mesh(points: points, counts: [Int32(n)], indices: (0..<Int32(n)).map { $0 })
    }

    private func grid(_ prim: inout UsdPrim, size: Int, faceVarying: Bool) {
        var points: [SIMD3<Float>] = []
        for y in 0...size { for x in 0...size { points.append(SIMD3(Float(x), Float(y), 0)) } }
        var counts: [Int32] = []
        var indices: [Int32] = []
        for y in 0..<size {
            for x in 0..<size {
                let i = Int32(y * (size + 1) + x)
                counts.append(4)
                indices += [i, i + 1, i + Int32(size) + 2, i + Int32(size) + 1]
            }
        }
        prim.mesh(points: points, counts: counts, indices: indices)
        if faceVarying {
            let uv = indices.map { i -> SIMD2<Float> in SIMD2(Float(i % 7) / 7, Float(i % 5) / 5) }
            prim.set("primvars:st", "texCoord2f[]", StageValue.float2s(uv), interpolation: "faceVarying")
        }
    }

    private func stage() -> UsdStage {
        let s = TestStage()
        s.prim("/A", "Mesh") { star(&$0, corners: 300) }
        s.prim("/B", "Mesh") { $0.set("points", "point3f[]", StageValue.points([])) }
        for i in 0..<12 { s.prim("/G\(i)", "Mesh") { grid(&$0, size: 8 + i, faceVarying: i % 2 == 0) } }
        s.prim("/C", "Mesh") { star(&$0, corners: 400) }
        s.prim("/D", "Cube")
        return s.build()
    }

    @Test func warningsKeepStageOrder() throws {
        let scene = try buildTestScene(stage())
        let listed = scene.warnings.map { "\($0.code) \($0.primPath ?? "")" }
        #expect(
            listed == ["USD_MESH_CONCAVE_FANNED /A", "USD_MESH_INVALID_TOPOLOGY /B", "USD_MESH_CONCAVE_FANNED /C"], "\(listed)")
    }

    @Test func meshesKeepStageOrderAndMatchTheirPrims() throws {
        let scene = try buildTestScene(stage())
        let names = scene.meshes.map(\.sourcePath)
        #expect(names == ["/A"] + (0..<12).map { "/G\($0)" } + ["/C", "/D"])
        let a = try #require(scene.mesh(of: "A"))
        #expect(a.triangleCount == 298)
        for i in 0..<12 {
            let g = try #require(scene.mesh(of: "G\(i)"))
            #expect(g.triangleCount == 2 * (8 + i) * (8 + i))
            #expect(g.primitives == [Mesh.Primitive(indexStart: 0, indexCount: g.triangleCount * 3, material: nil)])
            #expect(g.indices.allSatisfy { Int($0) < g.vertexCount })
        }
    }

    @Test func repeatedBuildsAreIdentical() throws {
        let first = try buildTestScene(stage())
        for _ in 0..<3 {
            let again = try buildTestScene(stage())
            #expect(again.meshes == first.meshes)
            #expect(again.warnings == first.warnings)
            #expect(again.nodes == first.nodes)
        }
    }

    @Test func reservedWarningSlotsFoldLikeDirectOnes() {
        var direct = WarningAggregator()
        var reserved = WarningAggregator()
        for i in 0..<12 {
            _ = direct.add(code: "X", kind: "Mesh", message: "m \(i)", path: "/P\(i)", maxListed: 10, maxEntries: 100)
            let slot = reserved.reserve()
            reserved.fill(slot: slot, code: "X", kind: "Mesh", message: "m \(i)", path: "/P\(i)", maxListed: 10)
        }
        _ = reserved.reserve()  // never filled: not reported
        #expect(direct.warnings() == reserved.warnings())
        #expect(reserved.warnings().count == 10)
        #expect(reserved.warnings().last?.message == "m 9 (and 2 more like it)")
    }
}
