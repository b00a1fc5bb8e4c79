import SceneModel

/// Applies a transform to a mesh's vertices, for nodes whose transform glTF cannot express.
enum MeshBaker {
    /// A copy of `mesh` in the parent frame of a node whose transform is `m`.
    ///
    /// Positions go through the full 4×4 (with the perspective divide when w ≠ 0); normals through
    /// the inverse transpose of the upper 3×3 (left unnormalised; the encoder normalises); when the
    /// 3×3 mirrors, triangle winding is reversed so front faces stay front faces. Positions that
    /// become non-finite are set to 0 and counted in `repaired`.
    static func bake(_ mesh: Mesh, transform m: Matrix4) -> (mesh: Mesh, repaired: Int) {
        var out = mesh
        let e = m.m
        var repaired = 0
        let vertexCount = mesh.positions.count / 3
        out.positions.withUnsafeMutableBufferPointer { p in
            for v in 0..<vertexCount {
                let x = Double(p[3 * v])
                let y = Double(p[3 * v + 1])
                let z = Double(p[3 * v + 2])
                var r = SIMD3(
                    e[0] * x + e[4] * y + e[8] * z + e[12],
                    e[1] * x + e[5] * y + e[9] * z + e[13],
                    e[2] * x + e[6] * y + e[10] * z + e[14])
                let w = e[3] * x + e[7] * y + e[11] * z + e[15]
                if w != 1, abs(w) > 1e-12 { r /= w }
                let f = SIMD3<Float>(Float(r.x), Float(r.y), Float(r.z))
                if f.x.isFinite && f.y.isFinite && f.z.isFinite {
                    p[3 * v] = f.x
                    p[3 * v + 1] = f.y
                    p[3 * v + 2] = f.z
                } else {
                    p[3 * v] = 0
                    p[3 * v + 1] = 0
                    p[3 * v + 2] = 0
                    repaired += 1
                }
            }
        }
        let det = m.determinant3x3
        if !mesh.normals.isEmpty {
            // The cofactor matrix (columns c1×c2, c2×c0, c0×c1 of the basis columns) is
            // det · inverse-transpose; multiplying by sign(det) gives the inverse-transpose
            // direction and still works for singular matrices.
            let s: Double = det < 0 ? -1 : 1
            let c0 = SIMD3(e[0], e[1], e[2])
            let c1 = SIMD3(e[4], e[5], e[6])
            let c2 = SIMD3(e[8], e[9], e[10])
            let k0 = c1.cross(c2) * s
            let k1 = c2.cross(c0) * s
            let k2 = c0.cross(c1) * s
            out.normals.withUnsafeMutableBufferPointer { n in
                for v in 0..<(n.count / 3) {
                    let r = k0 * Double(n[3 * v]) + k1 * Double(n[3 * v + 1]) + k2 * Double(n[3 * v + 2])
                    n[3 * v] = Float(r.x)
                    n[3 * v + 1] = Float(r.y)
                    n[3 * v + 2] = Float(r.z)
                }
            }
        }
        if det < 0 {
            out.indices.withUnsafeMutableBufferPointer { idx in
                var t = 0
                while t + 2 < idx.count {
                    idx.swapAt(t + 1, t + 2)
                    t += 3
                }
            }
        }
        return (out, repaired)
    }
}
