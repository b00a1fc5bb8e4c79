/// Sutherland–Hodgman clipping of one triangle in clip space against the near plane (z ≥ 0) and
/// the guard band (|x| ≤ gx·w, |y| ≤ gy·w), then fan triangulation of the visible polygon.
enum TriangleClipper {
    private struct V {
        var c: SIMD4<Float>
        var b: SIMD3<Float>
    }

    /// Appends the visible pieces of triangle `t` (with their tile rectangles) to `out` and
    /// returns how many were appended.
    static func clip(
        _ t: Int, scene: RenderScene, camera: RenderCamera, pv: ProjectedVertices, grid: TileGrid, cull: Bool,
        into out: inout [(ClippedTriangle, TileBinner.Rect)]
    ) -> Int {
        var poly: [V] = []
        poly.reserveCapacity(9)
        for k in 0..<3 {
            let i = Int(scene.indices[t * 3 + k])
            let p = scene.positions + i * 3
            var b = SIMD3<Float>.zero
            b[k] = 1
            poly.append(V(c: camera.clipFromWorld.transformPoint(p[0], p[1], p[2]), b: b))
        }
        let gx = pv.guardX, gy = pv.guardY
        // Plane distances: near, then the four guard planes.
        let planes: [(SIMD4<Float>) -> Float] = [
            { $0.z },
            { gx * $0.w - $0.x }, { gx * $0.w + $0.x },
            { gy * $0.w - $0.y }, { gy * $0.w + $0.y },
        ]
        for plane in planes {
            guard poly.count >= 3 else { return 0 }
            var next: [V] = []
            next.reserveCapacity(poly.count + 1)
            for i in 0..<poly.count {
                let a = poly[i], b = poly[(i + 1) % poly.count]
                let da = plane(a.c), db = plane(b.c)
                if da >= 0 { next.append(a) }
                if (da >= 0) != (db >= 0) {
                    let s = da / (da - db)
                    guard s.isFinite else { continue }
                    next.append(V(c: a.c + (b.c - a.c) * s, b: a.b + (b.b - a.b) * s))
                }
            }
            poly = next
        }
        guard poly.count >= 3 else { return 0 }
        var screen: [(x: Int32, y: Int32, key: Float, invW: Float)] = []
        for v in poly {
            guard v.c.w > 0, v.c.x.isFinite, v.c.y.isFinite, v.c.z.isFinite, v.c.w.isFinite else { return 0 }
            screen.append(ClipVertex.toScreen(v.c, camera: camera, samplesW: pv.samplesW, samplesH: pv.samplesH))
        }
        var made = 0
        for k in 1..<(poly.count - 1) {
            let a = screen[0], b = screen[k], c = screen[k + 1]
            let x0 = Int64(a.x), y0 = Int64(a.y), x1 = Int64(b.x), y1 = Int64(b.y), x2 = Int64(c.x), y2 = Int64(c.y)
            let area = (x1 - x0) * (y2 - y0) - (y1 - y0) * (x2 - x0)
            if area == 0 || (cull && area > 0) { continue }
            let rect = TileBinner.tileRect(
                minX: min(x0, x1, x2), minY: min(y0, y1, y2), maxX: max(x0, x1, x2), maxY: max(y0, y1, y2), grid: grid)
            if rect.x0 < 0 { continue }
            out.append(
                (
                    ClippedTriangle(
                        x: SIMD3(a.x, b.x, c.x), y: SIMD3(a.y, b.y, c.y), key: SIMD3(a.key, b.key, c.key),
                        invW: SIMD3(a.invW, b.invW, c.invW), weights: (poly[0].b, poly[k].b, poly[k + 1].b),
                        source: UInt32(t)), rect
                ))
            made += 1
        }
        return made
    }
}
