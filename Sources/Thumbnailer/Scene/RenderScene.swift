import SceneModel

/// The scene flattened once for all views: every drawn mesh instance baked into world space
/// (relative to `origin`, single precision) in flat, manually managed arrays the rasteriser
/// reads without bounds checks. Every index was range-checked here; invalid triangles carry the
/// material `invalidMaterial` and are never drawn.
final class RenderScene: @unchecked Sendable {
    /// One mesh drawn by one node.
    struct Instance: Sendable {
        /// Element index in the layered scene, or −1.
        var element: Int32
        /// Override of the base colour of untextured materials (room-like scenes), w = 1 when set.
        var tint: SIMD4<Float>
        var hasNormals: Bool
        var hasUV: Bool
        var hasColors: Bool
        var firstTriangle: Int
        var triangleCount: Int
        /// The scene node that draws it.
        var node: Int = -1
    }

    static let invalidMaterial = UInt32.max
    static let maxTriangles = 8_000_000
    static let maxVertices = 12_000_000

    let origin: SIMD3<Double>
    /// World bounds of the drawn geometry (absolute coordinates).
    let bounds: Bounds
    let vertexCount: Int
    let triangleCount: Int
    let positions: UnsafeMutablePointer<Float>
    let normals: UnsafeMutablePointer<Float>
    let uvs: UnsafeMutablePointer<Float>
    let colors: UnsafeMutablePointer<Float>
    let indices: UnsafeMutablePointer<UInt32>
    let triMaterial: UnsafeMutablePointer<UInt32>
    let triInstance: UnsafeMutablePointer<UInt32>
    /// Each triangle's unit normal from its positions (zero when degenerate): the same in every
    /// view, so computed once per scene.
    let faceNormals: UnsafeMutablePointer<SIMD3<Float>>
    let instances: [Instance]
    let materials: [ShadeMaterial]
    let sampler: TextureSampler
    let warnings: [SceneWarning]

    deinit {
        positions.deallocate()
        normals.deallocate()
        uvs.deallocate()
        colors.deallocate()
        indices.deallocate()
        triMaterial.deallocate()
        triInstance.deallocate()
        faceNormals.deallocate()
    }

    /// What to draw from a scene.
    struct Source {
        var scene: Scene
        /// Element index of each node (−1: none); nodes with `drawNode[i] == false` are skipped.
        var elementOfNode: [Int32]
        var drawNode: [Bool]
        /// Base-colour override per element (linear RGB), for untextured materials.
        var tintOfElement: [SIMD3<Float>?]
        /// The home's room (index) of nodes added for the views that belong to one (a room's
        /// floor, its walls' caps).
        var roomOfAddedNode: [Int: Int] = [:]
    }

    init(_ src: Source, textureBudget: Int, maxTextureSize: Int) {
        let scene = src.scene
        var warnings: [SceneWarning] = []
        // Textures used by any base colour.
        let usedTextures = Set(scene.materials.compactMap { $0.baseColorTexture?.texture.rawValue })
        let loaded = TextureLoader.load(
            scene.textures, used: Array(usedTextures), budget: textureBudget,
            maxWorkingSize: maxTextureSize)
        warnings += loaded.warnings
        sampler = loaded.sampler
        var mats = scene.materials.map {
            ShadeMaterial($0, entryOfTexture: loaded.entryOfTexture, sampler: loaded.sampler)
        }
        mats.append(.fallback)
        materials = mats
        let defaultMaterial = UInt32(mats.count - 1)

        // Pass 1: what to draw and how much.
        let world = scene.worldTransforms()
        struct Plan { var node: Int; var mesh: Int; var hasNormals: Bool; var hasUV: Bool; var hasColors: Bool }
        var plans: [Plan] = []
        var totalV = 0, totalT = 0
        var anyUV = false, anyColors = false
        var skippedForLimit = 0
        for (i, node) in scene.nodes.enumerated() {
            guard i < src.drawNode.count, src.drawNode[i], let mi = node.mesh?.rawValue, mi >= 0,
                mi < scene.meshes.count
            else { continue }
            let mesh = scene.meshes[mi]
            let v = mesh.positions.count / 3, t = mesh.indices.count / 3
            guard v > 0, t > 0 else { continue }
            if totalV + v > Self.maxVertices || totalT + t > Self.maxTriangles {
                skippedForLimit += t
                continue
            }
            let textured = mesh.primitives.contains { p in
                guard let m = p.material?.rawValue, m >= 0, m < mats.count - 1 else { return false }
                return mats[m].texture >= 0
            }
            let plan = Plan(
                node: i, mesh: mi, hasNormals: mesh.normals.count == v * 3,
                hasUV: textured && mesh.uv0.count == v * 2, hasColors: mesh.colors.count == v * 4)
            anyUV = anyUV || plan.hasUV
            anyColors = anyColors || plan.hasColors
            plans.append(plan)
            totalV += v
            totalT += t
        }
        if skippedForLimit > 0 {
            warnings.append(
                SceneWarning(
                    code: ThumbnailWarningCode.triangleLimit,
                    message: "\(skippedForLimit) triangles beyond the renderer's limits "
                        + "(\(Self.maxTriangles) triangles, \(Self.maxVertices) vertices) are not drawn"))
        }
        vertexCount = totalV
        triangleCount = totalT
        positions = .allocate(capacity: max(totalV * 3, 1))
        normals = .allocate(capacity: max(totalV * 3, 1))
        uvs = .allocate(capacity: anyUV ? totalV * 2 : 1)
        colors = .allocate(capacity: anyColors ? totalV * 4 : 1)
        indices = .allocate(capacity: max(totalT * 3, 1))
        triMaterial = .allocate(capacity: max(totalT, 1))
        triInstance = .allocate(capacity: max(totalT, 1))
        let idxOut = indices, matOut = triMaterial, instOut = triInstance
        uvs.initialize(repeating: 0, count: anyUV ? totalV * 2 : 1)
        colors.initialize(repeating: 1, count: anyColors ? totalV * 4 : 1)

        // The origin and the extent of the geometry, robust to stray vertices: per-axis medians
        // and 10–90 % spreads of (at most 65536) evenly strided vertices; vertices farther than
        // 50 spreads (+1 m) from the median are left out of the bounds (they still draw, clipped).
        let robust = Self.robustCentre(
            plans: plans.map { ($0.node, $0.mesh) }, scene: scene, world: world, total: totalV)
        origin = robust.centre
        let keep = Float(robust.keep)
        var relBounds = Bounds.empty

        // Pass 2: bake.
        var instances: [Instance] = []
        var materialCache: [Int: [UInt32]] = [:]
        var windingCache: [Int: Bool] = [:]
        var vBase = 0, tBase = 0
        var invalidTriangles = 0
        for p in plans {
            let mesh = scene.meshes[p.mesh]
            let m = world[p.node]
            let v = mesh.positions.count / 3, t = mesh.indices.count / 3
            let e = p.node < src.elementOfNode.count ? src.elementOfNode[p.node] : -1
            var tint = SIMD4<Float>.zero
            if e >= 0, Int(e) < src.tintOfElement.count, let c = src.tintOfElement[Int(e)] { tint = SIMD4(c, 1) }
            instances.append(
                Instance(
                    element: e, tint: tint, hasNormals: p.hasNormals, hasUV: p.hasUV,
                    hasColors: p.hasColors, firstTriangle: tBase, triangleCount: t, node: p.node))
            Self.bakeVertices(
                mesh, transform: m, origin: origin, into: positions + vBase * 3, normals: normals + vBase * 3,
                hasNormals: p.hasNormals)
            for i in 0..<v {
                let q = SIMD3(
                    Double(positions[(vBase + i) * 3]), Double(positions[(vBase + i) * 3 + 1]),
                    Double(positions[(vBase + i) * 3 + 2]))
                if q.isFinite && abs(q.x) <= Double(keep) && abs(q.y) <= Double(keep) && abs(q.z) <= Double(keep) {
                    relBounds.include(q)
                }
            }
            if p.hasUV { for i in 0..<(v * 2) { uvs[vBase * 2 + i] = mesh.uv0[i] } }
            if p.hasColors { for i in 0..<(v * 4) { colors[vBase * 4 + i] = mesh.colors[i] } }
            if windingCache[p.mesh] == nil {
                windingCache[p.mesh] = p.hasNormals && Self.windingOpposesNormals(mesh)
            }
            // Mirroring transforms and meshes wound against their own normals are both flipped.
            let mirrored = (m.determinant3x3 < 0) != windingCache[p.mesh]!
            if materialCache[p.mesh] == nil {
                materialCache[p.mesh] = Self.materialPerTriangle(
                    mesh, materialCount: mats.count - 1, fallback: defaultMaterial)
            }
            let perTri = materialCache[p.mesh]!
            let instanceIndex = UInt32(instances.count - 1)
            mesh.indices.withUnsafeBufferPointer { idx in
                for k in 0..<t {
                    var a = idx[k * 3], bb = idx[k * 3 + 1], c = idx[k * 3 + 2]
                    var material = perTri[k]
                    if Int(a) >= v || Int(bb) >= v || Int(c) >= v {
                        material = Self.invalidMaterial
                        invalidTriangles += 1
                        a = 0; bb = 0; c = 0
                    }
                    if mirrored { swap(&bb, &c) }
                    let g = tBase + k
                    idxOut[g * 3] = UInt32(vBase) + a
                    idxOut[g * 3 + 1] = UInt32(vBase) + bb
                    idxOut[g * 3 + 2] = UInt32(vBase) + c
                    matOut[g] = material
                    instOut[g] = instanceIndex
                }
            }
            vBase += v
            tBase += t
        }
        if invalidTriangles > 0 {
            warnings.append(
                SceneWarning(
                    code: ThumbnailWarningCode.invalidGeometry,
                    message: "\(invalidTriangles) triangles with out-of-range vertex indices are not drawn"))
        }
        self.instances = instances
        self.warnings = warnings
        faceNormals = Self.faceNormals(positions: positions, indices: indices, triangles: totalT, vertices: totalV)
        bounds = relBounds.isEmpty ? relBounds : Bounds(min: relBounds.min + origin, max: relBounds.max + origin)
    }

    /// The unit normal of every triangle (zero for a degenerate one or one whose indices are out
    /// of range).
    private static func faceNormals(
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

    /// Median centre and outlier distance of the drawn vertices (see the initialiser).
    private static func robustCentre(
        plans: [(node: Int, mesh: Int)], scene: Scene, world: [Matrix4], total: Int
    )
        -> (centre: SIMD3<Double>, keep: Double)
    {
        let stride = max(1, total / 65536)
        var xs: [Double] = [], ys: [Double] = [], zs: [Double] = []
        var counter = 0
        for p in plans {
            let pos = scene.meshes[p.mesh].positions
            let m = world[p.node]
            let v = pos.count / 3
            var i = (stride - counter % stride) % stride
            counter += v
            while i < v {
                let w = m.transformPoint(SIMD3(Double(pos[i * 3]), Double(pos[i * 3 + 1]), Double(pos[i * 3 + 2])))
                if w.isFinite {
                    xs.append(w.x)
                    ys.append(w.y)
                    zs.append(w.z)
                }
                i += stride
            }
        }
        guard !xs.isEmpty else { return (.zero, 1) }
        xs.sort()
        ys.sort()
        zs.sort()
        func q(_ a: [Double], _ f: Double) -> Double { a[min(a.count - 1, Int(Double(a.count - 1) * f + 0.5))] }
        let centre = SIMD3(q(xs, 0.5), q(ys, 0.5), q(zs, 0.5))
        let spread = max(q(xs, 0.9) - q(xs, 0.1), q(ys, 0.9) - q(ys, 0.1), q(zs, 0.9) - q(zs, 0.1))
        let keep = min(50 * spread + 1, 1e15)
        return (centre, keep.isFinite ? keep : 1e15)
    }

    /// Whether most of a mesh's area is wound clockwise with respect to its authored normals
    /// (exports that negate a coordinate without reversing faces); such meshes are drawn with
    /// their winding reversed so the faces their normals point to are the front faces.
    static func windingOpposesNormals(_ mesh: Mesh) -> Bool {
        let v = mesh.positions.count / 3
        guard mesh.normals.count == v * 3 else { return false }
        var agree = 0.0, oppose = 0.0
        mesh.positions.withUnsafeBufferPointer { p in
            mesh.normals.withUnsafeBufferPointer { n in
                mesh.indices.withUnsafeBufferPointer { idx in
                    var k = 0
                    while k + 2 < idx.count {
                        let a = Int(idx[k]), b = Int(idx[k + 1]), c = Int(idx[k + 2])
                        k += 3
                        guard a < v, b < v, c < v else { continue }
                        func pt(_ i: Int) -> SIMD3<Double> {
                            SIMD3(Double(p[i * 3]), Double(p[i * 3 + 1]), Double(p[i * 3 + 2]))
                        }
                        func nm(_ i: Int) -> SIMD3<Double> {
                            SIMD3(Double(n[i * 3]), Double(n[i * 3 + 1]), Double(n[i * 3 + 2]))
                        }
                        let g = (pt(b) - pt(a)).cross(pt(c) - pt(a))
                        let d = g.dot(nm(a) + nm(b) + nm(c))
                        guard d.isFinite else { continue }
                        if d > 0 { agree += d } else { oppose -= d }
                    }
                }
            }
        }
        return oppose > agree * 1.5
    }

    /// Material index of every triangle from the primitives (uncovered triangles: the fallback).
    private static func materialPerTriangle(_ mesh: Mesh, materialCount: Int, fallback: UInt32) -> [UInt32] {
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
    private static func bakeVertices(
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
