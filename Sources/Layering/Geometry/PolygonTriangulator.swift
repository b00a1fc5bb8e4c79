/// Ear-clipping triangulation of a simple polygon in the plane (floor `polygonCorners`, e.g. the
/// 8-corner L-shapes RoomPlan reports).
///
/// Robustness: consecutive duplicate corners (including last = first) are dropped, clockwise input
/// is handled, collinear corners are removed without emitting slivers, and the loop is bounded.
/// A polygon that has no ear left (self-intersecting input) is finished with a fan and reported
/// through `usedFallback`. Cost is O(n³) in the worst case; callers cap n
/// (`CapturedRoomDecoder.Limits.maxPolygonCorners`).
enum PolygonTriangulator {
    struct Result {
        /// Triangles as indices into the input array, counter-clockwise in (x, y).
        var triangles: [(Int, Int, Int)]
        var usedFallback: Bool
    }

    static func triangulate(_ points: [SIMD2<Double>]) -> Result {
        // Drop consecutive duplicates.
        var ring: [Int] = []
        for i in points.indices where points[i].x.isFinite && points[i].y.isFinite {
            if let last = ring.last, Plan.distance(points[last], points[i]) < 1e-9 { continue }
            ring.append(i)
        }
        while ring.count > 1, let f = ring.first, let l = ring.last, Plan.distance(points[f], points[l]) < 1e-9 {
            ring.removeLast()
        }
        guard ring.count >= 3 else { return Result(triangles: [], usedFallback: false) }
        if Plan.signedArea(ring.map { points[$0] }) < 0 { ring.reverse() }

        func cross(_ a: Int, _ b: Int, _ c: Int) -> Double {
            let p = points[a], q = points[b], r = points[c]
            return (q.x - p.x) * (r.y - p.y) - (q.y - p.y) * (r.x - p.x)
        }
        func scale() -> Double {
            var m = 1e-12
            for i in ring { m = max(m, abs(points[i].x), abs(points[i].y)) }
            return m
        }
        let eps = 1e-12 * scale() * scale()
        /// p inside or on triangle abc (counter-clockwise).
        func inside(_ p: Int, _ a: Int, _ b: Int, _ c: Int) -> Bool {
            cross(a, b, p) >= -eps && cross(b, c, p) >= -eps && cross(c, a, p) >= -eps
        }

        var triangles: [(Int, Int, Int)] = []
        var budget = ring.count * ring.count + 16
        var i = 0
        var sinceLastClip = 0
        while ring.count > 3 && budget > 0 {
            budget -= 1
            let n = ring.count
            let a = ring[(i + n - 1) % n], b = ring[i % n], c = ring[(i + 1) % n]
            let turn = cross(a, b, c)
            if abs(turn) <= eps {
                // Collinear (or a zero-width spike): removing the corner does not change the area.
                ring.remove(at: i % n)
                sinceLastClip = 0
                i = i % max(ring.count, 1)
                continue
            }
            var isEar = turn > 0
            if isEar {
                for k in ring where k != a && k != b && k != c {
                    let pk = points[k]
                    if pk == points[a] || pk == points[b] || pk == points[c] { continue }
                    if inside(k, a, b, c) {
                        isEar = false
                        break
                    }
                }
            }
            if isEar {
                triangles.append((a, b, c))
                ring.remove(at: i % n)
                sinceLastClip = 0
                i = i % max(ring.count, 1)
                continue
            }
            sinceLastClip += 1
            i = (i + 1) % n
            if sinceLastClip > n {
                // No ear: self-intersecting input. Finish with a fan.
                for k in 1..<(ring.count - 1) { triangles.append(orient(ring[0], ring[k], ring[k + 1], points)) }
                return Result(triangles: triangles, usedFallback: true)
            }
        }
        if ring.count == 3 {
            if abs(cross(ring[0], ring[1], ring[2])) > eps { triangles.append(orient(ring[0], ring[1], ring[2], points)) }
        } else if ring.count > 3 {
            for k in 1..<(ring.count - 1) { triangles.append(orient(ring[0], ring[k], ring[k + 1], points)) }
            return Result(triangles: triangles, usedFallback: true)
        }
        return Result(triangles: triangles, usedFallback: false)
    }

    /// The triangle with counter-clockwise winding.
    private static func orient(_ a: Int, _ b: Int, _ c: Int, _ p: [SIMD2<Double>]) -> (Int, Int, Int) {
        let t = (p[b].x - p[a].x) * (p[c].y - p[a].y) - (p[b].y - p[a].y) * (p[c].x - p[a].x)
        return t >= 0 ? (a, b, c) : (a, c, b)
    }
}
