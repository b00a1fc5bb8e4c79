/// Splits one polygon into triangles that keep the polygon's winding.
///
/// Triangles and convex polygons are fanned from their first corner. Concave polygons are
/// ear-clipped in 2D after projecting onto the plane of their Newell normal (the axis with the
/// largest normal component is dropped, and the projection is chosen so that the polygon is
/// counter-clockwise). The ear clipper always terminates: when a full pass finds no ear
/// (self-intersecting or degenerate input) it clips the most convex corner; degenerate polygons
/// (zero Newell normal) and polygons above `maxEarClippingCorners` are fanned. A polygon of `n`
/// corners always yields exactly `n - 2` triangles.
///
/// The value keeps scratch buffers between calls, so reuse one triangulator per mesh.
struct Triangulator {
    /// Concave polygons with more corners than this are fanned (ear clipping is quadratic).
    static let maxEarClippingCorners = 256
    /// Total ear-clipping work (inner-loop steps) allowed per triangulator; past it, concave
    /// polygons are fanned. Bounds the cost of hostile meshes made of many large concave faces.
    static let maxEarClippingWork = 200_000_000

    private var xs: [Double] = []
    private var ys: [Double] = []
    private var prev: [Int] = []
    private var next: [Int] = []
    private var work = 0
    /// Number of concave polygons that had to be fanned (too large, over the work budget).
    private(set) var fannedConcaveCount = 0

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
        earClipProjected(count: n, into: &out)
    }

    /// Triangulates a 2D polygon already loaded in `xs`/`ys` (counter-clockwise expected).
    private mutating func earClipProjected(count n: Int, into out: inout [Int32]) {
        // Scale-aware tolerance for "strictly convex" and "inside" tests.
        var minX = Double.infinity
        var maxX = -Double.infinity
        var minY = Double.infinity
        var maxY = -Double.infinity
        for k in 0..<n {
            minX = min(minX, xs[k])
            maxX = max(maxX, xs[k])
            minY = min(minY, ys[k])
            maxY = max(maxY, ys[k])
        }
        let extent = max(maxX - minX, maxY - minY)
        let eps = extent * extent * 1e-12
        if isConvex(n, eps: eps) { return fan(n, into: &out) }
        if n > Triangulator.maxEarClippingCorners || work > Triangulator.maxEarClippingWork {
            fannedConcaveCount += 1
            return fan(n, into: &out)
        }
        prev.removeAll(keepingCapacity: true)
        next.removeAll(keepingCapacity: true)
        for k in 0..<n {
            prev.append(k == 0 ? n - 1 : k - 1)
            next.append(k == n - 1 ? 0 : k + 1)
        }
        var remaining = n
        var i = 0
        var stalled = 0
        while remaining > 3 {
            let a = prev[i]
            let c = next[i]
            if isEar(a, i, c, eps: eps) {
                emit(a, i, c, into: &out)
                next[a] = c
                prev[c] = a
                remaining -= 1
                stalled = 0
                i = a
                continue
            }
            i = c
            stalled += 1
            if stalled >= remaining {
                // No ear in a whole pass: clip the most convex corner to guarantee progress.
                var best = i
                var bestCross = -Double.infinity
                var k = i
                for _ in 0..<remaining {
                    let cr = cross(prev[k], k, next[k])
                    if cr > bestCross {
                        bestCross = cr
                        best = k
                    }
                    k = next[k]
                }
                let pa = prev[best]
                let pc = next[best]
                emit(pa, best, pc, into: &out)
                next[pa] = pc
                prev[pc] = pa
                remaining -= 1
                stalled = 0
                i = pa
            }
        }
        emit(prev[i], i, next[i], into: &out)
    }

    @inline(__always)
    private func cross(_ a: Int, _ b: Int, _ c: Int) -> Double {
        (xs[b] - xs[a]) * (ys[c] - ys[a]) - (ys[b] - ys[a]) * (xs[c] - xs[a])
    }

    private func isConvex(_ n: Int, eps: Double) -> Bool {
        for k in 0..<n {
            let a = k == 0 ? n - 1 : k - 1
            let c = k == n - 1 ? 0 : k + 1
            if cross(a, k, c) < -eps { return false }
        }
        return true
    }

    private mutating func isEar(_ a: Int, _ b: Int, _ c: Int, eps: Double) -> Bool {
        guard cross(a, b, c) > eps else { return false }
        var k = next[c]
        while k != a {
            work += 1
            // Only corners that could poke into the triangle matter; skip duplicates of its corners.
            let same =
                (xs[k] == xs[a] && ys[k] == ys[a]) || (xs[k] == xs[b] && ys[k] == ys[b])
                || (xs[k] == xs[c] && ys[k] == ys[c])
            if !same && cross(a, b, k) >= -eps && cross(b, c, k) >= -eps && cross(c, a, k) >= -eps {
                return false
            }
            k = next[k]
        }
        return true
    }

    @inline(__always)
    private func emit(_ a: Int, _ b: Int, _ c: Int, into out: inout [Int32]) {
        out.append(Int32(a))
        out.append(Int32(b))
        out.append(Int32(c))
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
