/// The per-triangle set-up of the edge-function rasterizer, shared by the shaded and the flat
/// loops: the triangle's sample rectangle clipped to the grid, the three edge functions and
/// their steps, and the depth-key interpolation.
///
/// Edge i is opposite vertex i: E0 on v1→v2, E1 on v2→v0, E2 on v0→v1.
/// E(p) = dx·(p.y − a.y) − dy·(p.x − a.x), minus 1 off the top-left edges.
struct EdgeSetup {
    let cLo: Int64, cHi: Int64, rLo: Int64, rHi: Int64
    let dx0: Int64, dy0: Int64, dx1: Int64, dy1: Int64, dx2: Int64, dy2: Int64
    let bias0: Int64, bias1: Int64, bias2: Int64
    /// Change of each edge function from one sample column to the next.
    let sx0: Int64, sx1: Int64, sx2: Int64
    /// x of the first sample column.
    let px: Int64
    let invArea: Float
    let dk1: Float, dk2: Float, k0: Float

    /// The grid's columns and rows (absolute, inclusive) that `t`'s bounding box holds samples
    /// of; nil when it holds none.
    @inline(__always)
    static func sampleBox(_ t: RasterTriangle, grid g: SampleGrid) -> (cLo: Int64, cHi: Int64, rLo: Int64, rHi: Int64)? {
        let minX = min(t.x0, t.x1, t.x2), maxX = max(t.x0, t.x1, t.x2)
        let minY = min(t.y0, t.y1, t.y2), maxY = max(t.y0, t.y1, t.y2)
        let cLo = max(ceilDiv64(minX - g.origin, g.step), Int64(g.c0))
        let cHi = min(floorDiv64(maxX - g.origin, g.step), Int64(g.c0 + g.cols - 1))
        let rLo = max(ceilDiv64(minY - g.origin, g.step), Int64(g.r0))
        let rHi = min(floorDiv64(maxY - g.origin, g.step), Int64(g.r0 + g.rows - 1))
        guard cLo <= cHi, rLo <= rHi else { return nil }
        return (cLo, cHi, rLo, rHi)
    }

    /// Nil when the triangle covers no sample of the grid.
    @inline(__always)
    init?(_ t: RasterTriangle, grid g: SampleGrid) {
        guard let box = Self.sampleBox(t, grid: g) else { return nil }
        cLo = box.cLo
        cHi = box.cHi
        rLo = box.rLo
        rHi = box.rHi
        dx0 = t.x2 - t.x1
        dy0 = t.y2 - t.y1
        dx1 = t.x0 - t.x2
        dy1 = t.y0 - t.y2
        dx2 = t.x1 - t.x0
        dy2 = t.y1 - t.y0
        bias0 = Rasterizer.isTopLeft(dx: dx0, dy: dy0) ? 0 : -1
        bias1 = Rasterizer.isTopLeft(dx: dx1, dy: dy1) ? 0 : -1
        bias2 = Rasterizer.isTopLeft(dx: dx2, dy: dy2) ? 0 : -1
        sx0 = -dy0 * g.step
        sx1 = -dy1 * g.step
        sx2 = -dy2 * g.step
        px = g.origin + cLo * g.step
        invArea = 1 / Float(t.area)
        dk1 = t.k.y - t.k.x
        dk2 = t.k.z - t.k.x
        k0 = t.k.x
    }

    /// Row `r`: the columns (relative to `cLo`) where all three edge functions are non-negative,
    /// and E1, E2 at the row's first sample column; nil when the row misses the triangle.
    @inline(__always)
    func row(_ r: Int64, _ t: RasterTriangle, grid g: SampleGrid) -> (lo: Int64, hi: Int64, e1: Int64, e2: Int64)? {
        let py = g.origin + r * g.step
        let e0 = dx0 * (py - t.y1) - dy0 * (px - t.x1) + bias0
        let e1 = dx1 * (py - t.y2) - dy1 * (px - t.x2) + bias1
        let e2 = dx2 * (py - t.y0) - dy2 * (px - t.x0) + bias2
        var lo: Int64 = 0, hi = cHi - cLo
        if !Self.span(e0, sx0, &lo, &hi) || !Self.span(e1, sx1, &lo, &hi) || !Self.span(e2, sx2, &lo, &hi) { return nil }
        return (lo, hi, e1, e2)
    }

    /// Narrows [lo, hi] to the c where e + c·s ≥ 0; false when empty.
    @inline(__always)
    private static func span(_ e: Int64, _ s: Int64, _ lo: inout Int64, _ hi: inout Int64) -> Bool {
        if s > 0 {
            lo = max(lo, ceilDiv64(-e, s))
        } else if s < 0 {
            hi = min(hi, floorDiv64(e, -s))
        } else if e < 0 {
            return false
        }
        return lo <= hi
    }
}
