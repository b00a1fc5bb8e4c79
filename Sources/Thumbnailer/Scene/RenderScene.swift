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
    /// Textures decoded for this scene (those taken from a `SharedTextureDecodes` not counted).
    let texturesDecoded: Int

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

    /// - Parameter sharing: images other consumers of the scene already decoded (see
    ///   `SharedTextureDecodes`); the default shares nothing.
    init(
        _ src: Source, textureBudget: Int, maxTextureSize: Int,
        sharing: consuming SharedTextureDecodes = SharedTextureDecodes(capacity: 0)
    ) {
        let scene = src.scene
        var warnings: [SceneWarning] = []
        // Textures used by any base colour.
        let usedTextures = Set(scene.materials.compactMap { $0.baseColorTexture?.texture.rawValue })
        var shared = consume sharing
        let loaded = TextureLoader.load(
            scene.textures, used: Array(usedTextures), budget: textureBudget,
            maxWorkingSize: maxTextureSize, sharing: &shared)
        texturesDecoded = loaded.decoded
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
        let drawn = Self.plan(src, materials: mats)
        let plans = drawn.plans
        let totalV = drawn.vertices, totalT = drawn.triangles
        let anyUV = drawn.anyUV, anyColors = drawn.anyColors
        if let warning = drawn.limitWarning { warnings.append(warning) }
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
            instances.append(Self.instance(p, src: src, firstTriangle: tBase, triangleCount: t))
            Self.bakeVertices(
                mesh, transform: m, origin: origin, into: positions + vBase * 3, normals: normals + vBase * 3,
                hasNormals: p.hasNormals)
            Self.includeKept(positions + vBase * 3, count: v, keep: keep, in: &relBounds)
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
            invalidTriangles += Self.bakeTriangles(
                mesh.indices, materials: perTri, mirrored: mirrored, vertexBase: vBase, vertexCount: v,
                instance: instanceIndex, into: idxOut + tBase * 3, materialOut: matOut + tBase,
                instanceOut: instOut + tBase)
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
}
