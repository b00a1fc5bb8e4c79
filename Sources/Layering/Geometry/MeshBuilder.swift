import SceneModel

/// Accumulates triangles with per-face normals.
struct MeshBuilder {
    var positions: [Float] = []
    var normals: [Float] = []
    var indices: [UInt32] = []

    private mutating func vertex(_ p: SIMD3<Double>, _ n: SIMD3<Double>) -> UInt32 {
        positions += [Float(p.x), Float(p.y), Float(p.z)]
        normals += [Float(n.x), Float(n.y), Float(n.z)]
        return UInt32(positions.count / 3 - 1)
    }

    /// A planar quad a-b-c-d, counter-clockwise seen from the side `n` points to.
    mutating func quad(_ a: SIMD3<Double>, _ b: SIMD3<Double>, _ c: SIMD3<Double>, _ d: SIMD3<Double>, normal n: SIMD3<Double>) {
        let i = [vertex(a, n), vertex(b, n), vertex(c, n), vertex(d, n)]
        indices += [i[0], i[1], i[2], i[0], i[2], i[3]]
    }

    /// An axis-aligned box: 6 faces, 24 vertices, 12 triangles.
    mutating func box(min lo: SIMD3<Double>, max hi: SIMD3<Double>) {
        let (x0, y0, z0, x1, y1, z1) = (lo.x, lo.y, lo.z, hi.x, hi.y, hi.z)
        quad(SIMD3(x0, y0, z1), SIMD3(x1, y0, z1), SIMD3(x1, y1, z1), SIMD3(x0, y1, z1), normal: SIMD3(0, 0, 1))
        quad(SIMD3(x1, y0, z0), SIMD3(x0, y0, z0), SIMD3(x0, y1, z0), SIMD3(x1, y1, z0), normal: SIMD3(0, 0, -1))
        quad(SIMD3(x1, y0, z1), SIMD3(x1, y0, z0), SIMD3(x1, y1, z0), SIMD3(x1, y1, z1), normal: SIMD3(1, 0, 0))
        quad(SIMD3(x0, y0, z0), SIMD3(x0, y0, z1), SIMD3(x0, y1, z1), SIMD3(x0, y1, z0), normal: SIMD3(-1, 0, 0))
        quad(SIMD3(x0, y1, z1), SIMD3(x1, y1, z1), SIMD3(x1, y1, z0), SIMD3(x0, y1, z0), normal: SIMD3(0, 1, 0))
        quad(SIMD3(x0, y0, z0), SIMD3(x1, y0, z0), SIMD3(x1, y0, z1), SIMD3(x0, y0, z1), normal: SIMD3(0, -1, 0))
    }

    /// A prism over a polygon in the XY plane: top at z = 0 (normal +Z), bottom at z = −thickness.
    /// `triangles` are counter-clockwise indices into `pts`.
    mutating func prism(_ pts: [SIMD2<Double>], triangles: [(Int, Int, Int)], thickness: Double) {
        guard !triangles.isEmpty else { return }
        let z1 = 0.0, z0 = -abs(thickness)
        for (a, b, c) in triangles {
            let ia = vertex(SIMD3(pts[a].x, pts[a].y, z1), SIMD3(0, 0, 1))
            let ib = vertex(SIMD3(pts[b].x, pts[b].y, z1), SIMD3(0, 0, 1))
            let ic = vertex(SIMD3(pts[c].x, pts[c].y, z1), SIMD3(0, 0, 1))
            indices += [ia, ib, ic]
            let ja = vertex(SIMD3(pts[a].x, pts[a].y, z0), SIMD3(0, 0, -1))
            let jb = vertex(SIMD3(pts[b].x, pts[b].y, z0), SIMD3(0, 0, -1))
            let jc = vertex(SIMD3(pts[c].x, pts[c].y, z0), SIMD3(0, 0, -1))
            indices += [ja, jc, jb]
        }
        // Sides along the outline, oriented outward for a counter-clockwise outline.
        let ccw = Polygon2D.signedArea(pts) >= 0
        for i in pts.indices {
            var p = pts[i], q = pts[(i + 1) % pts.count]
            if !ccw { swap(&p, &q) }
            let e = q - p
            let len = (e * e).sum().squareRoot()
            guard len > 1e-9 else { continue }
            let n = SIMD3(e.y / len, -e.x / len, 0)
            quad(SIMD3(p.x, p.y, z1), SIMD3(p.x, p.y, z0), SIMD3(q.x, q.y, z0), SIMD3(q.x, q.y, z1), normal: n)
        }
    }

    /// A vertical prism over a plan quad (corners in XZ at y = 0, any winding), from yMin to yMax.
    mutating func extrudedQuad(_ c: [SIMD3<Double>], yMin: Double, yMax: Double) {
        // Winding in plan: make it counter-clockwise seen from +Y (x → −z turn).
        var q = c.map { SIMD2($0.x, -$0.z) }
        if Polygon2D.signedArea(q) < 0 { q.reverse() }
        let p = q.map { SIMD3($0.x, 0, -$0.y) }
        func at(_ v: SIMD3<Double>, _ y: Double) -> SIMD3<Double> { SIMD3(v.x, y, v.z) }
        quad(at(p[0], yMax), at(p[1], yMax), at(p[2], yMax), at(p[3], yMax), normal: SIMD3(0, 1, 0))
        quad(at(p[3], yMin), at(p[2], yMin), at(p[1], yMin), at(p[0], yMin), normal: SIMD3(0, -1, 0))
        for i in 0..<4 {
            let a = p[i], b = p[(i + 1) % 4]
            let e = b - a
            let len = (e * e).sum().squareRoot()
            guard len > 1e-12 else { continue }
            // Outward for a counter-clockwise loop seen from +Y.
            let n = SIMD3(-e.z / len, 0, e.x / len)
            quad(at(a, yMin), at(b, yMin), at(b, yMax), at(a, yMax), normal: n)
        }
    }

    func mesh(name: String) -> Mesh {
        Mesh(
            name: name, positions: positions, normals: normals, indices: indices,
            primitives: indices.isEmpty ? [] : [Mesh.Primitive(indexStart: 0, indexCount: indices.count, material: nil)],
            sourcePath: "")
    }
}
