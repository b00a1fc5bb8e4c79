import SceneModel

/// Plan-view (XZ) helpers.
enum Plan {
    static func point(_ p: SIMD3<Double>) -> SIMD2<Double> { SIMD2(p.x, p.z) }

    /// Distance from `p` to the segment `a`–`b`.
    static func distance(_ p: SIMD2<Double>, segment a: SIMD2<Double>, _ b: SIMD2<Double>) -> Double {
        let ab = b - a
        let len2 = (ab * ab).sum()
        guard len2 > 1e-18 else { return Polygon2D.distance(p, a) }
        let t = max(0, min(1, ((p - a) * ab).sum() / len2))
        return Polygon2D.distance(p, a + ab * t)
    }
}
