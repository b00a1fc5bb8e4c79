import SceneModel

/// Splits one mesh face into triangles that keep the face's winding.
///
/// Triangles are kept; quads are split along the diagonal through their reflex corner; larger
/// faces are projected onto the plane of their Newell normal (the axis with the largest normal
/// component is dropped, and the projection is chosen so that the polygon is counter-clockwise)
/// and handed to SceneModel's `PolygonTriangulator`, which fans convex polygons from their first
/// corner and ear-clips the rest. Degenerate faces (zero Newell normal) are fanned. A face of `n`
/// corners always yields exactly `n - 2` triangles.
///
/// The value keeps scratch buffers between calls, so reuse one triangulator per mesh.
struct Triangulator {
    private var xs: [Double] = []
    private var ys: [Double] = []
    private var planar = PolygonTriangulator()
    /// Number of concave polygons that had to be fanned (too large, over the work budget).
    var fannedConcaveCount: Int { planar.fannedConcaveCount }

    init() {}

    /// Appends the triangles of the polygon whose corners are
    /// `faceIndices[start ..< start + count]` (indices into the flat xyz `points`) to `out`, as
    /// triples of corner offsets in `0 ..< count`. The caller has range-checked every index.
    mutating func triangulate(
        points: [Float], faceIndices: [Int32], start: Int, count n: Int, into out: inout [Int32]
    ) {
        if n < 3 { return }
        if n == 3 {
            out.append(0)
            out.append(1)
            out.append(2)
            return
        }
        @inline(__always) func p(_ k: Int) -> SIMD3<Double> {
            let b = Int(faceIndices[start + k]) * 3
            return SIMD3(Double(points[b]), Double(points[b + 1]), Double(points[b + 2]))
        }
        // Newell normal.
        var normal = SIMD3<Double>.zero
        var cur = p(n - 1)
        for k in 0..<n {
            let nx = p(k)
            normal.x += (cur.y - nx.y) * (cur.z + nx.z)
            normal.y += (cur.z - nx.z) * (cur.x + nx.x)
            normal.z += (cur.x - nx.x) * (cur.y + nx.y)
            cur = nx
        }
        let ax = abs(normal.x)
        let ay = abs(normal.y)
        let az = abs(normal.z)
        guard ax + ay + az > 0, (ax + ay + az).isFinite else { return fan(n, into: &out) }
        if n == 4 {
            // Quads: split along the diagonal through the reflex corner, if there is one.
            var reflex = 0
            for k in 0..<4 {
                let a = p((k + 3) & 3)
                let b = p(k)
                let c = p((k + 1) & 3)
                let e1 = b - a
                let e2 = c - b
                let cr = SIMD3(e1.y * e2.z - e1.z * e2.y, e1.z * e2.x - e1.x * e2.z, e1.x * e2.y - e1.y * e2.x)
                if (cr * normal).sum() < 0 {
                    reflex = k
                    break
                }
            }
            let r = Int32(reflex)
            out.append(r)
            out.append((r + 1) & 3)
            out.append((r + 2) & 3)
            out.append(r)
            out.append((r + 2) & 3)
            out.append((r + 3) & 3)
            return
        }
        // Project to 2D so that the polygon winds counter-clockwise.
        xs.removeAll(keepingCapacity: true)
        ys.removeAll(keepingCapacity: true)
        for k in 0..<n {
            let v = p(k)
            let (u, w): (Double, Double)
            if az >= ax && az >= ay {
                (u, w) = normal.z > 0 ? (v.x, v.y) : (v.y, v.x)
            } else if ax >= ay {
                (u, w) = normal.x > 0 ? (v.y, v.z) : (v.z, v.y)
            } else {
                (u, w) = normal.y > 0 ? (v.z, v.x) : (v.x, v.z)
            }
            xs.append(u)
            ys.append(w)
        }
        planar.triangulateCounterClockwise(&xs, &ys, into: &out)
    }

    private func fan(_ n: Int, into out: inout [Int32]) {
        for k in 1..<(n - 1) {
            out.append(0)
            out.append(Int32(k))
            out.append(Int32(k + 1))
        }
    }

    /// Convenience for tests and small inputs: triangulates one polygon given by its corners and
    /// returns corner offsets, three per triangle.
    static func triangulate(_ polygon: [SIMD3<Double>]) -> [Int] {
        var points: [Float] = []
        for v in polygon { points += [Float(v.x), Float(v.y), Float(v.z)] }
        var t = Triangulator()
        var out: [Int32] = []
        t.triangulate(
            points: points, faceIndices: (0..<polygon.count).map { Int32($0) }, start: 0, count: polygon.count,
            into: &out)
        return out.map { Int($0) }
    }
}
