import SceneModel

extension RenderScene {
    /// A node whose mesh is drawn, and which of its vertex streams are.
    struct Plan {
        var node: Int
        var mesh: Int
        var hasNormals: Bool
        var hasUV: Bool
        var hasColors: Bool
    }

    /// What `plan` chose: the meshes drawn, their totals, and the triangles left out for the
    /// renderer's limits.
    struct DrawPlan {
        var plans: [Plan] = []
        var vertices = 0
        var triangles = 0
        var anyUV = false
        var anyColors = false
        var skippedForLimit = 0

        /// The finding about the triangles left out, if any.
        var limitWarning: SceneWarning? {
            guard skippedForLimit > 0 else { return nil }
            return SceneWarning(
                code: ThumbnailWarningCode.triangleLimit,
                message: "\(skippedForLimit) triangles beyond the renderer's limits "
                    + "(\(RenderScene.maxTriangles) triangles, \(RenderScene.maxVertices) vertices) are not drawn")
        }
    }

    /// The drawn nodes' meshes in node order, up to `maxVertices` and `maxTriangles`; UVs only for
    /// textured meshes (`materials` ends with the fallback).
    static func plan(_ src: Source, materials mats: [ShadeMaterial]) -> DrawPlan {
        let scene = src.scene
        var out = DrawPlan()
        for (i, node) in scene.nodes.enumerated() {
            guard i < src.drawNode.count, src.drawNode[i], let mi = node.mesh?.rawValue, mi >= 0,
                mi < scene.meshes.count
            else { continue }
            let mesh = scene.meshes[mi]
            let v = mesh.positions.count / 3, t = mesh.indices.count / 3
            guard v > 0, t > 0 else { continue }
            if out.vertices + v > Self.maxVertices || out.triangles + t > Self.maxTriangles {
                out.skippedForLimit += t
                continue
            }
            let textured = mesh.primitives.contains { p in
                guard let m = p.material?.rawValue, m >= 0, m < mats.count - 1 else { return false }
                return mats[m].texture >= 0
            }
            let plan = Plan(
                node: i, mesh: mi, hasNormals: mesh.normals.count == v * 3,
                hasUV: textured && mesh.uv0.count == v * 2, hasColors: mesh.colors.count == v * 4)
            out.anyUV = out.anyUV || plan.hasUV
            out.anyColors = out.anyColors || plan.hasColors
            out.plans.append(plan)
            out.vertices += v
            out.triangles += t
        }
        return out
    }

    /// The instance drawn by plan `p`: its element (−1: none) and that element's tint.
    static func instance(_ p: Plan, src: Source, firstTriangle: Int, triangleCount t: Int) -> Instance {
        let e = p.node < src.elementOfNode.count ? src.elementOfNode[p.node] : -1
        var tint = SIMD4<Float>.zero
        if e >= 0, Int(e) < src.tintOfElement.count, let c = src.tintOfElement[Int(e)] { tint = SIMD4(c, 1) }
        return Instance(
            element: e, tint: tint, hasNormals: p.hasNormals, hasUV: p.hasUV,
            hasColors: p.hasColors, firstTriangle: firstTriangle, triangleCount: t, node: p.node)
    }

    /// Adds to `bounds` the `count` baked positions at `positions` that are finite and within
    /// `keep` of the origin on every axis.
    static func includeKept(_ positions: UnsafeMutablePointer<Float>, count v: Int, keep: Float, in bounds: inout Bounds) {
        for i in 0..<v {
            let q = SIMD3(Double(positions[i * 3]), Double(positions[i * 3 + 1]), Double(positions[i * 3 + 2]))
            if q.isFinite && abs(q.x) <= Double(keep) && abs(q.y) <= Double(keep) && abs(q.z) <= Double(keep) {
                bounds.include(q)
            }
        }
    }

    /// Writes a mesh's triangles (indices offset by `vertexBase`, wound the other way when
    /// `mirrored`), their materials and their instance; a triangle with an index out of range
    /// gets `invalidMaterial` and vertex 0. Returns how many did.
    @inline(__always)
    static func bakeTriangles(
        _ indices: [UInt32], materials perTri: [UInt32], mirrored: Bool, vertexBase vBase: Int, vertexCount v: Int,
        instance instanceIndex: UInt32, into idxOut: UnsafeMutablePointer<UInt32>,
        materialOut matOut: UnsafeMutablePointer<UInt32>, instanceOut instOut: UnsafeMutablePointer<UInt32>
    ) -> Int {
        var invalidTriangles = 0
        let t = indices.count / 3
        indices.withUnsafeBufferPointer { idx in
            for k in 0..<t {
                var a = idx[k * 3], bb = idx[k * 3 + 1], c = idx[k * 3 + 2]
                var material = perTri[k]
                if Int(a) >= v || Int(bb) >= v || Int(c) >= v {
                    material = Self.invalidMaterial
                    invalidTriangles += 1
                    a = 0; bb = 0; c = 0
                }
                if mirrored { swap(&bb, &c) }
                idxOut[k * 3] = UInt32(vBase) + a
                idxOut[k * 3 + 1] = UInt32(vBase) + bb
                idxOut[k * 3 + 2] = UInt32(vBase) + c
                matOut[k] = material
                instOut[k] = instanceIndex
            }
        }
        return invalidTriangles
    }

    /// The unit normal of every triangle (zero for a degenerate one or one whose indices are out
    /// of range).
    static func faceNormals(
        positions: UnsafeMutablePointer<Float>, indices: UnsafeMutablePointer<UInt32>, triangles: Int, vertices: Int
    ) -> UnsafeMutablePointer<SIMD3<Float>> {
        let out = UnsafeMutablePointer<SIMD3<Float>>.allocate(capacity: max(triangles, 1))
        out.initialize(repeating: .zero, count: max(triangles, 1))
        for t in 0..<triangles {
            let i0 = Int(indices[t * 3]), i1 = Int(indices[t * 3 + 1]), i2 = Int(indices[t * 3 + 2])
            guard i0 < vertices, i1 < vertices, i2 < vertices else { continue }
            let p0 = load3(positions, i0), p1 = load3(positions, i1), p2 = load3(positions, i2)
            out[t] = (p1 - p0).cross(p2 - p0).normalizedOrZero
        }
        return out
    }

    /// Material index of every triangle from the primitives (uncovered triangles: the fallback).
    static func materialPerTriangle(_ mesh: Mesh, materialCount: Int, fallback: UInt32) -> [UInt32] {
        let t = mesh.indices.count / 3
        var out = [UInt32](repeating: fallback, count: t)
        for prim in mesh.primitives {
            guard prim.indexStart >= 0, prim.indexCount > 0 else { continue }
            let first = prim.indexStart / 3
            let (endIndex, overflow) = prim.indexStart.addingReportingOverflow(prim.indexCount)
            let last = min(overflow ? t : endIndex / 3, t)
            guard first < last else { continue }
            var mat = fallback
            if let m = prim.material?.rawValue, m >= 0, m < materialCount { mat = UInt32(m) }
            for k in first..<last { out[k] = mat }
        }
        return out
    }

    /// World positions (minus origin) and unit world normals of a mesh under a transform.
    static func bakeVertices(
        _ mesh: Mesh, transform m: Matrix4, origin: SIMD3<Double>, into pos: UnsafeMutablePointer<Float>,
        normals nrm: UnsafeMutablePointer<Float>, hasNormals: Bool
    ) {
        let a = m.m.count == 16 ? m.m : Matrix4.identity.m
        // Normal matrix: inverse transpose of the upper 3×3 (cofactors; the scale is irrelevant).
        let n0 = SIMD3(a[5] * a[10] - a[6] * a[9], a[6] * a[8] - a[4] * a[10], a[4] * a[9] - a[5] * a[8])
        let n1 = SIMD3(a[9] * a[2] - a[10] * a[1], a[10] * a[0] - a[8] * a[2], a[8] * a[1] - a[9] * a[0])
        let n2 = SIMD3(a[1] * a[6] - a[2] * a[5], a[2] * a[4] - a[0] * a[6], a[0] * a[5] - a[1] * a[4])
        let det = a[0] * n0.x + a[1] * n0.y + a[2] * n0.z
        let sign: Double = det < 0 ? -1 : 1
        let v = mesh.positions.count / 3
        mesh.positions.withUnsafeBufferPointer { p in
            for i in 0..<v {
                let x = Double(p[i * 3]), y = Double(p[i * 3 + 1]), z = Double(p[i * 3 + 2])
                pos[i * 3] = Float(a[0] * x + a[4] * y + a[8] * z + a[12] - origin.x)
                pos[i * 3 + 1] = Float(a[1] * x + a[5] * y + a[9] * z + a[13] - origin.y)
                pos[i * 3 + 2] = Float(a[2] * x + a[6] * y + a[10] * z + a[14] - origin.z)
            }
        }
        guard hasNormals else {
            nrm.initialize(repeating: 0, count: v * 3)
            return
        }
        mesh.normals.withUnsafeBufferPointer { q in
            for i in 0..<v {
                let x = Double(q[i * 3]), y = Double(q[i * 3 + 1]), z = Double(q[i * 3 + 2])
                // (cofactor matrix) × n: columns n0, n1, n2 are the rows of the inverse transpose × det.
                var w = SIMD3(
                    n0.x * x + n1.x * y + n2.x * z, n0.y * x + n1.y * y + n2.y * z, n0.z * x + n1.z * y + n2.z * z)
                w *= sign
                let l = w.length
                if l > 1e-20 && l.isFinite { w /= l } else { w = .zero }
                nrm[i * 3] = Float(w.x)
                nrm[i * 3 + 1] = Float(w.y)
                nrm[i * 3 + 2] = Float(w.z)
            }
        }
    }
}
