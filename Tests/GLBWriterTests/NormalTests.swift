import Foundation
import SceneModel
import Testing

@testable import GLBWriter

/// Normals: generated when absent (smooth within the angle, split across hard edges), normalised
/// when given, +Y for degenerate input.
@Suite struct NormalTests {
    func vec(_ a: [Float], _ i: Int) -> SIMD3<Float> { SIMD3(a[3 * i], a[3 * i + 1], a[3 * i + 2]) }

    @Test func cubeWithoutNormalsGets24VerticesWithAxisAlignedNormals() throws {
        let (output, reader) = try writeAndRead(singleMeshRoom(Meshes.cube8()))
        #expect(output.vertexCount == 24)
        let normals = try reader.floats(attribute(reader, "NORMAL")!)
        let positions = try reader.floats(attribute(reader, "POSITION")!)
        let indices = try reader.integers(indicesAccessor(reader)!)
        #expect(normals.count == 72)
        for v in 0..<24 {
            let n = vec(normals, v)
            #expect(n.x * n.x + n.y * n.y + n.z * n.z == 1 && [n.x, n.y, n.z].filter { $0 == 0 }.count == 2)
        }
        for t in stride(from: 0, to: indices.count, by: 3) {
            let a = vec(positions, Int(indices[t]))
            let b = vec(positions, Int(indices[t + 1]))
            let c = vec(positions, Int(indices[t + 2]))
            let e1 = b - a
            let e2 = c - a
            let face = SIMD3(e1.y * e2.z - e1.z * e2.y, e1.z * e2.x - e1.x * e2.z, e1.x * e2.y - e1.y * e2.x)
            for k in 0..<3 {
                let n = vec(normals, Int(indices[t + k]))
                #expect((n * face).sum() == (face * face).sum().squareRoot(), "corner normal is the face normal")
            }
        }
        // The first normal found at a vertex keeps the vertex's index: no vertex is renumbered.
        #expect(Array(positions[0..<24]) == Meshes.cube8().positions)
    }

    @Test func cubeAtHalfTurnThresholdIsFullySmooth() throws {
        let (output, reader) = try writeAndRead(singleMeshRoom(Meshes.cube8()), smoothingAngle: 180)
        #expect(output.vertexCount == 8)
        #expect(try reader.integers(indicesAccessor(reader)!) == Meshes.cube8().indices)
    }

    @Test func smoothSphereSharesNormals() throws {
        let sphere = Meshes.sphere()
        let (output, reader) = try writeAndRead(singleMeshRoom(sphere))
        #expect(output.vertexCount == sphere.vertexCount, "no vertex split")
        #expect(try reader.integers(indicesAccessor(reader)!) == sphere.indices)
        let normals = try reader.floats(attribute(reader, "NORMAL")!)
        for v in 0..<sphere.vertexCount {
            #expect((vec(normals, v) * vec(sphere.positions, v)).sum() > 0.99, "normal \(v) points outward")
        }
    }

    /// Two triangles folded along the X axis by `degrees`, with the shared edge's vertices duplicated
    /// (as at a UV seam): 6 vertices.
    func fold(_ degrees: Double) -> Mesh {
        let a = Float(degrees * Double.pi / 180)
        let positions: [Float] = [
            0, 0, 0, 1, 0, 0, 0.5, 1, 0,  // flat triangle, normal +Z
            1, 0, 0, 0, 0, 0, 0.5, -cos(a), -sin(a),  // folded triangle
        ]
        return Mesh(
            name: "fold", positions: positions, uv0: [0, 0, 1, 0, 0.5, 1, 1, 0.5, 0, 0.5, 0.5, 1],
            indices: [0, 1, 2, 3, 4, 5], primitives: [.init(indexStart: 0, indexCount: 6, material: nil)])
    }

    @Test func seamVerticesAreSmoothedAcrossWithinTheAngle() throws {
        let (output, reader) = try writeAndRead(texturedRoom(fold(30)))
        #expect(output.vertexCount == 6)
        let n = try reader.floats(attribute(reader, "NORMAL")!)
        #expect(vec(n, 0) == vec(n, 4) && vec(n, 1) == vec(n, 3), "welded by position for smoothing")
        #expect(vec(n, 0) != vec(n, 2), "the far corners keep their own face normal")
        #expect(try reader.floats(attribute(reader, "TEXCOORD_0")!) == fold(30).uv0, "attributes never merged")
    }

    @Test func hardEdgeBeyondTheAngleStaysFlat() throws {
        let (_, reader) = try writeAndRead(singleMeshRoom(fold(50)))
        let n = try reader.floats(attribute(reader, "NORMAL")!)
        #expect(vec(n, 0) == SIMD3(0, 0, 1) && vec(n, 1) == SIMD3(0, 0, 1))
        #expect(vec(n, 3) == vec(n, 5) && vec(n, 3) != vec(n, 0))
    }

    @Test func splitVerticesCopyTheirSourceAttributes() throws {
        var cube = Meshes.cube8()
        cube.uv0 = (0..<8).flatMap { [Float($0) / 8, 1 - Float($0) / 8] }
        cube.colors = (0..<8).flatMap { [Float($0) / 8, 0.5, 0.25, 1] }
        let (_, reader) = try writeAndRead(texturedRoom(cube))
        let positions = try reader.floats(attribute(reader, "POSITION")!)
        let uv = try reader.floats(attribute(reader, "TEXCOORD_0")!)
        let colors = try reader.floats(attribute(reader, "COLOR_0")!)
        for v in 0..<24 {
            let p = vec(positions, v)
            let source = (p.x > 0 ? 1 : 0) + (p.y > 0 ? 2 : 0) + (p.z > 0 ? 4 : 0)
            #expect(uv[2 * v] == cube.uv0[2 * source] && uv[2 * v + 1] == cube.uv0[2 * source + 1])
            #expect(colors[4 * v] == cube.colors[4 * source])
        }
    }

    @Test func degenerateTrianglesGetUpNormals() throws {
        let mesh = Mesh(
            name: "point", positions: [1, 1, 1, 1, 1, 1, 1, 1, 1, 5, 5, 5], indices: [0, 1, 2],
            primitives: [.init(indexStart: 0, indexCount: 3, material: nil)])
        let (_, reader) = try writeAndRead(singleMeshRoom(mesh))
        let n = try reader.floats(attribute(reader, "NORMAL")!)
        #expect(n == [0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0], "degenerate and unused vertices get +Y")
    }

    @Test func givenNormalsAreNormalisedAndZeroOnesRepaired() throws {
        var mesh = Meshes.triangle()
        mesh.normals = [0, 0, 2, 0, 0, 0, 3, 4, 0]
        let (output, reader) = try writeAndRead(singleMeshRoom(mesh))
        let n = try reader.floats(attribute(reader, "NORMAL")!)
        #expect(n == [0, 0, 1, 0, 1, 0, 0.6, 0.8, 0])
        #expect(output.warnings.map(\.code) == ["GLB_VERTEX_DATA_REPAIRED"])
    }

    @Test func nonFiniteTexcoordsAreRepaired() throws {
        var mesh = Meshes.quad()
        mesh.uv0[3] = .nan
        let (output, reader) = try writeAndRead(texturedRoom(mesh))
        #expect(try reader.floats(attribute(reader, "TEXCOORD_0")!)[3] == 0)
        #expect(output.warnings.map(\.code) == ["GLB_VERTEX_DATA_REPAIRED"])
    }
}
