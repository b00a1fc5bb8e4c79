/// Occlusion factors computed at a coarse resolution (one per `factor` × `factor` image pixels,
/// 2 or 4), read back per image pixel with bilinear interpolation: image pixel x, centred at
/// x + ½, sits at coarse coordinate (x + ½) / factor − ½ (x/2 − ¼ at half resolution). The
/// arithmetic is exact in Float for images up to 2²² pixels a side (the factor is a power of two).
struct CoarseOcclusion {
    let values: UnsafePointer<Float>
    /// Image size.
    let width: Int
    let height: Int
    let factor: Int
    var coarseWidth: Int { (width + factor - 1) / factor }
    var coarseHeight: Int { (height + factor - 1) / factor }
    /// 1 / factor and the coordinate's offset ½ / factor − ½.
    private var scale: Float { 1 / Float(factor) }
    private var offset: Float { 0.5 / Float(factor) - 0.5 }

    @inline(__always)
    func at(x: Int, y: Int) -> Float {
        let w2 = coarseWidth, h2 = coarseHeight, src = values
        let fy = max(Float(y) * scale + offset, 0)
        let y0 = min(Int(fy), h2 - 1), y1 = min(y0 + 1, h2 - 1)
        let ty = fy - Float(y0)
        let fx = max(Float(x) * scale + offset, 0)
        let x0 = min(Int(fx), w2 - 1), x1 = min(x0 + 1, w2 - 1)
        let tx = fx - Float(x0)
        let top = src[y0 * w2 + x0] + (src[y0 * w2 + x1] - src[y0 * w2 + x0]) * tx
        let bottom = src[y1 * w2 + x0] + (src[y1 * w2 + x1] - src[y1 * w2 + x0]) * tx
        return top + (bottom - top) * ty
    }

    /// `at(x:y:)` of the pixels x0 ..< x0 + width, y0 ..< y0 + height (coordinates clamped to
    /// the image), row by row into `out`; `scratch` holds 3 × width floats.
    func fill(
        _ out: UnsafeMutablePointer<Float>, x0: Int, y0: Int, width w: Int, height h: Int,
        scratch: UnsafeMutablePointer<Float>
    ) {
        let w2 = coarseWidth, h2 = coarseHeight, src = values
        let scale = self.scale, offset = self.offset
        // Per column: the two coarse columns and the weight, as `at` computes them.
        let c0 = UnsafeMutableRawPointer(scratch).bindMemory(to: Int32.self, capacity: 2 * w)
        let c1 = c0 + w
        let tx = scratch + 2 * w
        for i in 0..<w {
            let x = min(max(x0 + i, 0), width - 1)
            let fx = max(Float(x) * scale + offset, 0)
            let a = min(Int(fx), w2 - 1)
            c0[i] = Int32(a)
            c1[i] = Int32(min(a + 1, w2 - 1))
            tx[i] = fx - Float(a)
        }
        for j in 0..<h {
            let y = min(max(y0 + j, 0), height - 1)
            let fy = max(Float(y) * scale + offset, 0)
            let ya = min(Int(fy), h2 - 1), yb = min(ya + 1, h2 - 1)
            let ty = fy - Float(ya)
            let ra = src + ya * w2, rb = src + yb * w2, dst = out + j * w
            for i in 0..<w {
                let a = Int(c0[i]), b = Int(c1[i]), t = tx[i]
                let top = ra[a] + (ra[b] - ra[a]) * t
                let bottom = rb[a] + (rb[b] - rb[a]) * t
                dst[i] = top + (bottom - top) * ty
            }
        }
    }
}
