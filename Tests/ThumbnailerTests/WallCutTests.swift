import SceneModel
import Testing
@testable import Thumbnailer

/// The dollhouse cut of a home's walls: a wall box clipped by a horizontal plane keeps its part
/// below the plane with every stream, and its cap covers the wall's solid length less the doors
/// it hosts.
struct WallCutTests {
    /// A 4 m wall, 2.5 m tall and 0.16 m thick, standing at x = 1 (its box from the JSON plane
    /// toward local −z), as a mesh with normals and one material.
    static func wall() -> (mesh: Mesh, transform: Matrix4) {
        let b = RoomFixture.box(SIMD3(-2, -1.25, -0.16), SIMD3(2, 1.25, 0))
        let mesh = Mesh(
            name: "wall", positions: b.positions, normals: b.normals, indices: b.indices,
            primitives: [Mesh.Primitive(indexStart: 0, indexCount: b.indices.count, material: MaterialIndex(0))])
        return (mesh, Matrix4(columnMajor: [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 1, 1.25, 0, 1]))
    }

    @Test func aWallIsClippedAtTheCutWithItsStreamsAndMaterial() {
        let (mesh, transform) = Self.wall()
        let out = WallCut.clip(mesh, transform: transform, cutY: 0.9)
        #expect(out.changed)
        let v = out.mesh.positions.count / 3
        #expect(out.mesh.normals.count == v * 3)
        let heights = (0..<v).map { Double(out.mesh.positions[$0 * 3 + 1]) + 1.25 }
        #expect(heights.allSatisfy { $0 <= 0.9 + 1e-6 } && heights.contains { abs($0 - 0.9) < 1e-6 })
        #expect(out.mesh.indices.allSatisfy { Int($0) < v })
        #expect(out.mesh.primitives == [Mesh.Primitive(indexStart: 0, indexCount: out.mesh.indices.count, material: MaterialIndex(0))])
        // The four sides meet the plane, two triangles each; top and bottom do not.
        #expect(out.segments.count == 8)
        #expect(out.segments.allSatisfy { abs($0.0.y - 0.9) < 1e-6 && abs($0.1.y - 0.9) < 1e-6 })
        // Nothing above the cut: the mesh is kept as it is.
        #expect(!WallCut.clip(mesh, transform: transform, cutY: 3).changed)
    }

    @Test func theCapCoversTheWallLessItsDoors() throws {
        let (mesh, transform) = Self.wall()
        let segments = WallCut.clip(mesh, transform: transform, cutY: 0.9).segments
        let wall = RoomElement(
            identifier: "W", category: .wall, layer: LayerID("walls"), dimensions: SIMD3(4, 2.5, 0), transform: transform,
            geometry: .usd, node: NodeIndex(0))
        var door = RoomElement(
            identifier: "D", category: .door, layer: LayerID("doors"), dimensions: SIMD3(0.9, 2, 0),
            transform: Matrix4(columnMajor: [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 1.5, 1, 0, 1]), parentIdentifier: "W",
            geometry: .synthesized, node: NodeIndex(1))
        var cap = CapBuilder()
        cap.addCaps(element: wall, cutY: 0.9, segments: segments, passages: [door])
        // Two pieces either side of the door (x from −1 to 3, the door from 1.05 to 1.95), up-facing.
        #expect(cap.indices.count == 12 && cap.normals.count == cap.positions.count)
        let xs = stride(from: 0, to: cap.positions.count, by: 3).map { Double(cap.positions[$0]) }
        for x in [-1.0, 1.05, 1.95, 3.0] { #expect(xs.contains { abs($0 - x) < 1e-5 }, "\(x) in \(xs)") }
        let ys = stride(from: 1, to: cap.positions.count, by: 3).map { cap.positions[$0] }
        #expect(ys.allSatisfy { $0 == 0.9 })
        // Its thickness is the wall's.
        let zs = stride(from: 2, to: cap.positions.count, by: 3).map { Double(cap.positions[$0]) }
        #expect(abs((zs.max() ?? 0) - (zs.min() ?? 0) - 0.16) < 1e-5)
        door.dimensions = SIMD3(9, 2, 0)
        var none = CapBuilder()
        none.addCaps(element: wall, cutY: 0.9, segments: segments, passages: [door])
        #expect(none.indices.isEmpty)
    }
}
