/// A triangle in fixed-point sample coordinates (8 sub-pixel bits), oriented so that its edge
/// functions are non-negative inside, with the source data needed to shade it.
struct RasterTriangle {
    var x0: Int64, y0: Int64, x1: Int64, y1: Int64, x2: Int64, y2: Int64
    /// Depth keys and 1/w at the three vertices.
    var k: SIMD3<Float>
    var w: SIMD3<Float>
    /// Twice the signed area (> 0).
    var area: Int64
    /// Whether the triangle faces the camera (counter-clockwise in world space as seen).
    var front: Bool
    /// Source triangle id (scene triangle index).
    var source: Int
    /// Weights of the source triangle's vertices at each raster vertex.
    var weights: (SIMD3<Float>, SIMD3<Float>, SIMD3<Float>)

    /// The raster triangle of a bin entry; nil when degenerate.
    @inline(__always)
    static func make(_ id: UInt32, scene: RenderScene, pv: ProjectedVertices, bins: TileBins) -> RasterTriangle? {
        var t: RasterTriangle
        let n = bins.triangleCount
        if Int(id) < n {
            let s = Int(id)
            let i0 = Int(scene.indices[s * 3]), i1 = Int(scene.indices[s * 3 + 1]), i2 = Int(scene.indices[s * 3 + 2])
            t = RasterTriangle(
                x0: Int64(pv.x[i0]), y0: Int64(pv.y[i0]), x1: Int64(pv.x[i1]), y1: Int64(pv.y[i1]),
                x2: Int64(pv.x[i2]), y2: Int64(pv.y[i2]), k: SIMD3(pv.key[i0], pv.key[i1], pv.key[i2]),
                w: SIMD3(pv.invW[i0], pv.invW[i1], pv.invW[i2]), area: 0, front: true, source: s,
                weights: (SIMD3(1, 0, 0), SIMD3(0, 1, 0), SIMD3(0, 0, 1)))
        } else {
            let p = bins.pieces[Int(id) - n]
            t = RasterTriangle(
                x0: Int64(p.x.x), y0: Int64(p.y.x), x1: Int64(p.x.y), y1: Int64(p.y.y), x2: Int64(p.x.z),
                y2: Int64(p.y.z),
                k: p.key, w: p.invW, area: 0, front: true, source: Int(p.source), weights: p.weights)
        }
        let area = (t.x1 - t.x0) * (t.y2 - t.y0) - (t.y1 - t.y0) * (t.x2 - t.x0)
        if area == 0 { return nil }
        if area < 0 {
            // Front-facing (counter-clockwise with y up): swap 1 and 2 to get a positive area.
            t.front = true
            swap(&t.x1, &t.x2)
            swap(&t.y1, &t.y2)
            t.k = SIMD3(t.k.x, t.k.z, t.k.y)
            t.w = SIMD3(t.w.x, t.w.z, t.w.y)
            t.weights = (t.weights.0, t.weights.2, t.weights.1)
            t.area = -area
        } else {
            t.front = false
            t.area = area
        }
        return t
    }
}

/// Where samples sit: sample (c, r) is at fixed point (origin + c·step, origin + r·step); the
/// buffer holds columns c0 ..< c0+cols and rows r0 ..< r0+rows.
struct SampleGrid {
    var origin: Int64
    var step: Int64
    var c0: Int
    var r0: Int
    var cols: Int
    var rows: Int
}

/// What a rasteriser does with one covered sample.
protocol SampleShader {
    /// Shades sample `index` of the buffer with barycentric weights `b1`, `b2` (of raster
    /// vertices 1 and 2) and depth key `z`; returns false to discard it (no depth write).
    mutating func shade(index: Int, b1: Float, b2: Float, z: Float) -> Bool
}

/// Edge-function rasterisation with exact integer coverage and the top-left fill rule.
enum Rasterizer {
    enum DepthMode {
        /// Keep samples nearer than the stored depth (strictly) and store theirs.
        case testAndWrite
        /// Keep nearer samples, leave the depth buffer unchanged (transparent surfaces).
        case testOnly
    }

    /// Whether directed edge (dx, dy) is a top or left edge of a positively oriented triangle in
    /// y-down coordinates; samples exactly on such edges belong to the triangle.
    @inline(__always)
    static func isTopLeft(dx: Int64, dy: Int64) -> Bool { dy < 0 || (dy == 0 && dx > 0) }

    /// Whether any sample of `runs` lies in the bounding box of `t` on grid `g`: false means
    /// drawing `t` over `runs` shades nothing, so its set-up can be skipped.
    @inline(__always)
    static func mayTouch(_ t: RasterTriangle, grid g: SampleGrid, runs: SampleRuns) -> Bool {
        guard let box = EdgeSetup.sampleBox(t, grid: g) else { return false }
        // Runs hold buffer columns, relative to the grid's first column.
        let cLo = box.cLo - Int64(g.c0), cHi = box.cHi - Int64(g.c0)
        for r in Int(box.rLo) - g.r0...Int(box.rHi) - g.r0 {
            if let b = runs.bounds(row: r), Int64(b.lo) <= cHi, Int64(b.hi) >= cLo { return true }
        }
        return false
    }

    /// Shades the covered samples of `t` (only those in `runs` when given) through `shader`.
    @inline(__always)
    static func rasterize<S: SampleShader>(
        _ t: RasterTriangle, grid g: SampleGrid, depth: UnsafeMutablePointer<Float>, mode: DepthMode, shader: inout S,
        runs: SampleRuns? = nil
    ) {
        guard let e = EdgeSetup(t, grid: g) else { return }
        let cols = Int64(g.cols)
        let base = e.cLo - Int64(g.c0)
        for r in e.rLo...e.rHi {
            let spans = runs?.range(row: Int(r - Int64(g.r0))) ?? 0..<1
            guard !spans.isEmpty, let (lo, hi, e1, e2) = e.row(r, t, grid: g) else { continue }
            let rowStart = (r - Int64(g.r0)) * cols + base
            guard let runs else {
                shadeSpan(lo, hi, e1, e2, rowStart, e, depth, mode, &shader)
                continue
            }
            for k in spans {
                let s = runs.spans[k]
                let a = max(lo, Int64(s.x) - base), b = min(hi, Int64(s.y) - base)
                if a <= b { shadeSpan(a, b, e1, e2, rowStart, e, depth, mode, &shader) }
            }
        }
    }

    /// Columns lo...hi (relative to the set-up's first column) of one row.
    @inline(__always)
    private static func shadeSpan<S: SampleShader>(
        _ lo: Int64, _ hi: Int64, _ e1: Int64, _ e2: Int64, _ rowStart: Int64, _ e: EdgeSetup,
        _ depth: UnsafeMutablePointer<Float>, _ mode: DepthMode, _ shader: inout S
    ) {
        var f1 = e1 + lo * e.sx1, f2 = e2 + lo * e.sx2
        var index = Int(rowStart + lo)
        var c = lo
        while c <= hi {
            let b1 = Float(f1) * e.invArea, b2 = Float(f2) * e.invArea
            let z = e.k0 + b1 * e.dk1 + b2 * e.dk2
            switch mode {
            case .testAndWrite:
                if z > depth[index], shader.shade(index: index, b1: b1, b2: b2, z: z) { depth[index] = z }
            case .testOnly:
                if z > depth[index] { _ = shader.shade(index: index, b1: b1, b2: b2, z: z) }
            }
            f1 += e.sx1
            f2 += e.sx2
            index += 1
            c += 1
        }
    }

    /// The flat-shaded opaque case without a shader call per sample: depth interpolated
    /// incrementally along each row, colour = `ambient` × occlusion + `direct`.
    @inline(__always)
    static func rasterizeFlat(
        _ t: RasterTriangle, grid g: SampleGrid, buffers b: TileBuffers, ambient: SIMD3<Float>, direct: SIMD3<Float>,
        id: UInt16, runs: SampleRuns, slope: UnsafeMutablePointer<SIMD4<Float>>? = nil
    ) {
        guard let e = EdgeSetup(t, grid: g) else { return }
        let dzdc = (Float(e.sx1) * e.dk1 + Float(e.sx2) * e.dk2) * e.invArea
        let cols = Int64(g.cols)
        let base = e.cLo - Int64(g.c0)
        let depth = b.depth, color = b.color, ids = b.ids, ao = b.ao
        let a4 = SIMD4(ambient, 0), d4 = SIMD4(direct, 1)
        for r in e.rLo...e.rHi {
            let spans = runs.range(row: Int(r - Int64(g.r0)))
            guard !spans.isEmpty, let (lo, hi, e1, e2) = e.row(r, t, grid: g) else { continue }
            let rowStart = (r - Int64(g.r0)) * cols + base
            for k in spans {
                let s = runs.spans[k]
                let a = max(lo, Int64(s.x) - base), h = min(hi, Int64(s.y) - base)
                guard a <= h else { continue }
                var z = e.k0 + (Float(e1 + a * e.sx1) * e.dk1 + Float(e2 + a * e.sx2) * e.dk2) * e.invArea
                var i = Int(rowStart + a)
                let end = Int(rowStart + h)
                while i <= end {
                    if z > depth[i] {
                        depth[i] = z
                        color[i] = a4 * ao[i] + d4
                        ids[i] = id
                        slope?[i] = a4
                    }
                    z += dzdc
                    i &+= 1
                }
            }
        }
    }
}
