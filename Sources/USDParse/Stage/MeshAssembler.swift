/// The per-vertex attributes a mesh carries into the scene, already validated against the
/// topology (`Primvar.validate`).
struct VertexAttributes {
    /// Normals (3 components, any interpolation), already unit length.
    var normals: Primvar?
    /// Texture coordinates (2 components) in USD convention (v up); flipped on output.
    var uv: Primvar?
    /// Colour stream: RGB primvar (3 components) and/or opacity primvar (1 component); used only
    /// when `emitColors` is true. Missing parts use `constantRGB` / `constantAlpha`.
    var color: Primvar?
    var opacity: Primvar?
    var emitColors = false
    var constantRGB = SIMD3<Float>(1, 1, 1)
    var constantAlpha: Float = 1

    /// True when every stream depends on the point alone (no uniform / faceVarying data), so
    /// points can pass through without welding.
    var isPerPoint: Bool {
        (normals?.isPerPoint ?? true) && (uv?.isPerPoint ?? true)
            && (!emitColors || ((color?.isPerPoint ?? true) && (opacity?.isPerPoint ?? true)))
    }
}

/// Output vertex streams of one mesh.
struct VertexStreams {
    var positions: [Float] = []
    var normals: [Float] = []
    var uv0: [Float] = []
    var colors: [Float] = []
}

/// Turns triangulated corners plus primvars into shared vertices.
///
/// Fast path (every stream per point): positions pass through unchanged, streams are expanded
/// per point, and triangle indices are the face-vertex indices. Otherwise corners are welded:
/// two corners share a vertex when they use the same point and all attribute values are equal.
/// Welding walks a short per-point chain of the vertices already created for that point (no
/// hashing; insertion order, so output is deterministic); chains longer than
/// `maxChainSteps` stop searching and add a vertex, which only costs sharing.
enum MeshAssembler {
    static let maxChainSteps = 64

    /// Charges `ctx`'s budget for what `assemble` will allocate for a mesh of `topology` whose
    /// triangulation has `cornerCount` corners (`3 × triangleCount`). Call before `assemble`, in
    /// stage order, so a budget breach names the same mesh whatever the thread count.
    /// - Throws: `USD_MEMORY_BUDGET_EXCEEDED`.
    static func charge(
        topology: MeshTopology, cornerCount: Int, attributes a: VertexAttributes, ctx: StageBuildContext,
        path: SdfPath
    ) throws(USDParseError) {
        var perVertex = 0
        if a.normals != nil { perVertex += 12 }
        if a.uv != nil { perVertex += 8 }
        if a.emitColors { perVertex += 16 }
        if a.isPerPoint {
            try ctx.charge(StageBuildContext.bytes(topology.pointCount, perVertex), "vertex streams of \(path)")
            return
        }
        let needFace = [a.normals, a.uv, a.color, a.opacity].contains { $0?.interpolation == .uniform }
        let worstVertices = min(topology.cornerCount, cornerCount)
        try ctx.charge(
            StageBuildContext.bytes(topology.cornerCount, needFace ? 8 : 4)
                + StageBuildContext.bytes(topology.pointCount, 4)
                + StageBuildContext.bytes(worstVertices, perVertex + 16), "welding \(path)")
    }

    /// Rewrites `corners` (positions in `faceVertexIndices`) into vertex indices and returns the
    /// vertex streams. Touches no shared state (safe to run for several meshes at once); the
    /// budget is charged beforehand by `charge`.
    static func assemble(
        topology: MeshTopology, corners: inout [UInt32], attributes a: VertexAttributes
    ) -> VertexStreams {
        let fvi = topology.indices
        if a.isPerPoint {
            let n = topology.pointCount
            for k in 0..<corners.count { corners[k] = UInt32(fvi[Int(corners[k])]) }
            var out = VertexStreams(positions: topology.points)
            if let nv = a.normals { out.normals = expand(nv, count: n, fallback: [0, 1, 0]) }
            if let uv = a.uv {
                out.uv0 = expand(uv, count: n, fallback: [0, 0])
                var k = 1
                while k < out.uv0.count {
                    out.uv0[k] = 1 - out.uv0[k]
                    k += 2
                }
            }
            if a.emitColors {
                out.colors.reserveCapacity(n * 4)
                for p in 0..<n {
                    let c = color(a, corner: 0, face: 0, point: p)
                    out.colors.append(c.x)
                    out.colors.append(c.y)
                    out.colors.append(c.z)
                    out.colors.append(c.w)
                }
            }
            return out
        }
        return weld(topology: topology, corners: &corners, attributes: a)
    }

    /// Expands a per-point primvar to one element per point.
    private static func expand(_ pv: Primvar, count n: Int, fallback: [Float]) -> [Float] {
        let comps = pv.components
        if pv.interpolation == .vertex && pv.indices == nil && pv.values.count == n * comps { return pv.values }
        var out = [Float]()
        out.reserveCapacity(n * comps)
        for p in 0..<n {
            let e = pv.element(corner: 0, face: 0, point: p)
            if e < 0 {
                out.append(contentsOf: fallback)
            } else {
                for c in 0..<comps { out.append(pv.values[e * comps + c]) }
            }
        }
        return out
    }

    @inline(__always)
    private static func color(_ a: VertexAttributes, corner: Int, face: Int, point: Int) -> SIMD4<Float> {
        var rgb = a.constantRGB
        var alpha = a.constantAlpha
        if let c = a.color {
            let e = c.element(corner: corner, face: face, point: point)
            if e >= 0 { rgb = SIMD3(c.values[e * 3], c.values[e * 3 + 1], c.values[e * 3 + 2]) }
        }
        if let o = a.opacity {
            let e = o.element(corner: corner, face: face, point: point)
            if e >= 0 { alpha = o.values[e] }
        }
        return SIMD4(clamp01(rgb.x), clamp01(rgb.y), clamp01(rgb.z), clamp01(alpha))
    }

    private static func weld(
        topology: MeshTopology, corners: inout [UInt32], attributes a: VertexAttributes
    ) -> VertexStreams {
        let fvi = topology.indices
        let points = topology.points
        let cornerCount = topology.cornerCount
        let needFace = [a.normals, a.uv, a.color, a.opacity].contains { $0?.interpolation == .uniform }
        let worstVertices = min(cornerCount, corners.count)

        var faceOfCorner: [Int32] = []
        if needFace {
            faceOfCorner = [Int32](repeating: 0, count: cornerCount)
            var start = 0
            for (f, c) in topology.counts.enumerated() {
                for k in start..<(start + Int(c)) { faceOfCorner[k] = Int32(f) }
                start += Int(c)
            }
        }
        var cornerVertex = [Int32](repeating: -1, count: cornerCount)
        var head = [Int32](repeating: -1, count: topology.pointCount)
        var chain: [Int32] = []
        chain.reserveCapacity(worstVertices)
        var out = VertexStreams()
        out.positions.reserveCapacity(worstVertices * 3)
        if a.normals != nil { out.normals.reserveCapacity(worstVertices * 3) }
        if a.uv != nil { out.uv0.reserveCapacity(worstVertices * 2) }
        if a.emitColors { out.colors.reserveCapacity(worstVertices * 4) }

        for k in 0..<corners.count {
            let c = Int(corners[k])
            let existing = cornerVertex[c]
            if existing >= 0 {
                corners[k] = UInt32(existing)
                continue
            }
            let p = Int(fvi[c])
            let f = needFace ? Int(faceOfCorner[c]) : 0
            // Attribute values of this corner.
            var n = SIMD3<Float>(0, 1, 0)
            if let nv = a.normals {
                let e = nv.element(corner: c, face: f, point: p)
                if e >= 0 { n = SIMD3(nv.values[e * 3], nv.values[e * 3 + 1], nv.values[e * 3 + 2]) }
            }
            var t = SIMD2<Float>(0, 0)
            if let uv = a.uv {
                let e = uv.element(corner: c, face: f, point: p)
                if e >= 0 { t = SIMD2(uv.values[e * 2], 1 - uv.values[e * 2 + 1]) }
            }
            let col = a.emitColors ? color(a, corner: c, face: f, point: p) : .zero
            // Search the vertices already made for this point.
            var candidate = head[p]
            var steps = 0
            var found: Int32 = -1
            while candidate >= 0 && steps < maxChainSteps {
                let v = Int(candidate)
                var same = true
                if a.normals != nil {
                    same = out.normals[v * 3] == n.x && out.normals[v * 3 + 1] == n.y && out.normals[v * 3 + 2] == n.z
                }
                if same && a.uv != nil { same = out.uv0[v * 2] == t.x && out.uv0[v * 2 + 1] == t.y }
                if same && a.emitColors {
                    same =
                        out.colors[v * 4] == col.x && out.colors[v * 4 + 1] == col.y
                        && out.colors[v * 4 + 2] == col.z && out.colors[v * 4 + 3] == col.w
                }
                if same {
                    found = candidate
                    break
                }
                candidate = chain[v]
                steps += 1
            }
            if found < 0 {
                found = Int32(chain.count)
                chain.append(head[p])
                head[p] = found
                out.positions.append(points[p * 3])
                out.positions.append(points[p * 3 + 1])
                out.positions.append(points[p * 3 + 2])
                if a.normals != nil {
                    out.normals.append(n.x)
                    out.normals.append(n.y)
                    out.normals.append(n.z)
                }
                if a.uv != nil {
                    out.uv0.append(t.x)
                    out.uv0.append(t.y)
                }
                if a.emitColors {
                    out.colors.append(col.x)
                    out.colors.append(col.y)
                    out.colors.append(col.z)
                    out.colors.append(col.w)
                }
            }
            cornerVertex[c] = found
            corners[k] = UInt32(found)
        }
        return out
    }
}
