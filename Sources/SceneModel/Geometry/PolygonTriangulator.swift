/// The one 2D polygon triangulator: ear clipping with a bounded cost that always terminates.
///
/// Two entry points:
/// - `triangulateCounterClockwise(_:_:into:)` takes `n` corners that already wind
///   counter-clockwise (a mesh face projected onto its plane) and always yields exactly `n - 2`
///   triangles: convex polygons are fanned from their first corner; concave ones are ear-clipped,
///   and when a whole pass finds no ear (self-intersecting or degenerate input) the most convex
///   corner is clipped. Concave polygons above `maxEarClippingCorners`, or past the work budget
///   `maxEarClippingWork`, are fanned and counted in `fannedConcaveCount`.
/// - `triangulate(_:)` takes any simple polygon (a floor outline): it drops corners with a NaN or
///   infinite coordinate, repeated corners and collinear corners (so no zero-area slivers come
///   out), accepts either winding, returns every triangle counter-clockwise, and reports in
///   `Result.usedFallback` when the outline could not be cut cleanly (it crosses itself) or was
///   fanned.
///
/// Cost is O(n²) per polygon. The value keeps scratch buffers between calls, so reuse one per mesh.
public struct PolygonTriangulator: Sendable {
    /// Concave polygons with more corners than this are fanned (ear clipping is quadratic).
    public static let maxEarClippingCorners = 256
    /// Total ear-clipping work (inner-loop steps) allowed per triangulator; past it, concave
    /// polygons are fanned. Bounds the cost of hostile meshes made of many large concave faces.
    public static let maxEarClippingWork = 200_000_000

    public struct Result: Sendable {
        /// Triangles as indices into the input array, counter-clockwise in (x, y).
        public var triangles: [(Int, Int, Int)]
        /// True when a pass found no ear, or the polygon was fanned as too large.
        public var usedFallback: Bool
    }

    private var xs: [Double] = []
    private var ys: [Double] = []
    private var prev: [Int] = []
    private var next: [Int] = []
    private var work = 0
    /// Number of concave polygons that had to be fanned (too large, over the work budget).
    public private(set) var fannedConcaveCount = 0
    /// Number of times the clipper could not cut cleanly: a pass found no ear and the most convex
    /// corner was clipped instead, or the last triangle turned clockwise (self-intersecting input).
    public private(set) var forcedClipCount = 0

    public init() {}

    /// Triangulates the simple polygon `points` (either winding). See the type's documentation.
    public static func triangulate(_ points: [SIMD2<Double>]) -> Result {
        var t = PolygonTriangulator()
        return t.triangulate(points)
    }

    /// Triangulates the simple polygon `points` (either winding), reusing this value's buffers.
    public mutating func triangulate(_ points: [SIMD2<Double>]) -> Result {
        var ring = Self.cleanRing(points)
        guard ring.count >= 3 else { return Result(triangles: [], usedFallback: false) }
        if Polygon2D.signedArea(ring.map { points[$0] }) < 0 { ring.reverse() }
        let fanned = fannedConcaveCount, forced = forcedClipCount
        var out: [Int32] = []
        out.reserveCapacity((ring.count - 2) * 3)
        var px = ring.map { points[$0].x }, py = ring.map { points[$0].y }
        triangulateCounterClockwise(&px, &py, into: &out)
        var triangles: [(Int, Int, Int)] = []
        triangles.reserveCapacity(out.count / 3)
        for k in stride(from: 0, to: out.count, by: 3) {
            let a = ring[Int(out[k])], b = ring[Int(out[k + 1])], c = ring[Int(out[k + 2])]
            // Only a self-intersecting outline yields a clockwise triangle; it is turned over.
            triangles.append(Polygon2D.turn(points[a], points[b], points[c]) >= 0 ? (a, b, c) : (a, c, b))
        }
        return Result(triangles: triangles, usedFallback: fannedConcaveCount != fanned || forcedClipCount != forced)
    }

    /// The corners to keep, as indices into `points`: finite, no corner equal (within 1e-9) to the
    /// one before it (the last compared with the first too), and no collinear corner.
    static func cleanRing(_ points: [SIMD2<Double>]) -> [Int] {
        var ring: [Int] = []
        for i in points.indices where points[i].isFinite {
            if let last = ring.last, Polygon2D.distance(points[last], points[i]) < 1e-9 { continue }
            ring.append(i)
        }
        while ring.count > 1, let f = ring.first, let l = ring.last, Polygon2D.distance(points[f], points[l]) < 1e-9 {
            ring.removeLast()
        }
        var scale = 1e-12
        for i in ring { scale = max(scale, abs(points[i].x), abs(points[i].y)) }
        let eps = 1e-12 * scale * scale
        // Remove collinear corners (and zero-width spikes) until none is left; each pass that
        // changes nothing ends the loop, and each pass that changes something shortens the ring.
        var changed = true
        while changed && ring.count >= 3 {
            changed = false
            var kept: [Int] = []
            kept.reserveCapacity(ring.count)
            for k in ring.indices {
                let a = kept.last ?? ring[ring.count - 1], b = ring[k], c = ring[(k + 1) % ring.count]
                if abs(Polygon2D.turn(points[a], points[b], points[c])) <= eps {
                    changed = true
                    continue
                }
                kept.append(b)
            }
            ring = kept
        }
        return ring
    }

    /// Appends the `n - 2` triangles of the counter-clockwise polygon with corners
    /// `(xs[k], ys[k])`, `k < n = xs.count`, to `out`, as triples of corner offsets. The arrays
    /// are borrowed (swapped in and back, not copied) and come back unchanged.
    public mutating func triangulateCounterClockwise(_ xs: inout [Double], _ ys: inout [Double], into out: inout [Int32]) {
        swap(&self.xs, &xs)
        swap(&self.ys, &ys)
        defer {
            swap(&self.xs, &xs)
            swap(&self.ys, &ys)
        }
        let n = min(self.xs.count, self.ys.count)
        if n < 3 { return }
        // Scale-aware tolerance for "strictly convex" and "inside" tests.
        var minX = Double.infinity, maxX = -Double.infinity, minY = Double.infinity, maxY = -Double.infinity
        for k in 0..<n {
            minX = min(minX, self.xs[k])
            maxX = max(maxX, self.xs[k])
            minY = min(minY, self.ys[k])
            maxY = max(maxY, self.ys[k])
        }
        let extent = max(maxX - minX, maxY - minY)
        let eps = extent * extent * 1e-12
        if isConvex(n, eps: eps) { return fan(n, into: &out) }
        if n > Self.maxEarClippingCorners || work > Self.maxEarClippingWork {
            fannedConcaveCount += 1
            return fan(n, into: &out)
        }
        earClip(n, eps: eps, into: &out)
    }

    private mutating func earClip(_ n: Int, eps: Double, into out: inout [Int32]) {
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
            let a = prev[i], c = next[i]
            if isEar(a, i, c, eps: eps) {
                clip(i, into: &out)
                remaining -= 1
                stalled = 0
                i = a
                continue
            }
            i = c
            stalled += 1
            if stalled >= remaining {
                // No ear in a whole pass: clip the most convex corner to guarantee progress.
                var best = i, bestCross = -Double.infinity, k = i
                for _ in 0..<remaining {
                    let cr = cross(prev[k], k, next[k])
                    if cr > bestCross {
                        bestCross = cr
                        best = k
                    }
                    k = next[k]
                }
                forcedClipCount += 1
                let pa = prev[best]
                clip(best, into: &out)
                remaining -= 1
                stalled = 0
                i = pa
            }
        }
        // A last triangle that turns clockwise means the outline crosses itself.
        if cross(prev[i], i, next[i]) < -eps { forcedClipCount += 1 }
        emit(prev[i], i, next[i], into: &out)
    }

    /// Emits the triangle at corner `b` and unlinks `b`.
    private mutating func clip(_ b: Int, into out: inout [Int32]) {
        let a = prev[b], c = next[b]
        emit(a, b, c, into: &out)
        next[a] = c
        prev[c] = a
    }

    @inline(__always)
    private func cross(_ a: Int, _ b: Int, _ c: Int) -> Double {
        (xs[b] - xs[a]) * (ys[c] - ys[a]) - (ys[b] - ys[a]) * (xs[c] - xs[a])
    }

    private func isConvex(_ n: Int, eps: Double) -> Bool {
        for k in 0..<n where cross(k == 0 ? n - 1 : k - 1, k, k == n - 1 ? 0 : k + 1) < -eps { return false }
        return true
    }

    private mutating func isEar(_ a: Int, _ b: Int, _ c: Int, eps: Double) -> Bool {
        guard cross(a, b, c) > eps else { return false }
        var k = next[c]
        while k != a {
            work += 1
            // Only corners that could poke into the triangle matter; skip duplicates of its corners.
            let same = (xs[k] == xs[a] && ys[k] == ys[a]) || (xs[k] == xs[b] && ys[k] == ys[b])
                || (xs[k] == xs[c] && ys[k] == ys[c])
            if !same && cross(a, b, k) >= -eps && cross(b, c, k) >= -eps && cross(c, a, k) >= -eps { return false }
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
        for k in 1..<(n - 1) { emit(0, k, k + 1, into: &out) }
    }
}
