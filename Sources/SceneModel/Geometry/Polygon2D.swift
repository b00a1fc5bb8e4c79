/// Measures of polygons in the plane (any unit; areas in that unit squared).
public enum Polygon2D {
    /// Twice the signed area of the triangle `o`, `a`, `b`: positive when counter-clockwise.
    @inlinable
    public static func turn(_ o: SIMD2<Double>, _ a: SIMD2<Double>, _ b: SIMD2<Double>) -> Double {
        (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x)
    }

    /// Signed shoelace area: positive when the corners run counter-clockwise; 0 below three corners.
    public static func signedArea(_ pts: [SIMD2<Double>]) -> Double {
        guard pts.count >= 3 else { return 0 }
        var s = 0.0
        for i in pts.indices {
            let a = pts[i], b = pts[(i + 1) % pts.count]
            s += a.x * b.y - b.x * a.y
        }
        return s / 2
    }

    /// The distance between two points.
    public static func distance(_ a: SIMD2<Double>, _ b: SIMD2<Double>) -> Double {
        let d = a - b
        return (d * d).sum().squareRoot()
    }

    /// The length of the closed boundary; 0 below two corners.
    public static func perimeter(_ pts: [SIMD2<Double>]) -> Double {
        guard pts.count >= 2 else { return 0 }
        var s = 0.0
        for i in pts.indices { s += distance(pts[i], pts[(i + 1) % pts.count]) }
        return s
    }

    /// The convex hull (monotone chain), counter-clockwise, without collinear corners; points
    /// with a NaN or infinite coordinate are ignored. Fewer than three points come back sorted.
    public static func convexHull(_ points: [SIMD2<Double>]) -> [SIMD2<Double>] {
        let p = points.filter { $0.x.isFinite && $0.y.isFinite }.sorted { ($0.x, $0.y) < ($1.x, $1.y) }
        guard p.count >= 3 else { return p }
        var lower: [SIMD2<Double>] = [], upper: [SIMD2<Double>] = []
        for q in p {
            while lower.count >= 2 && turn(lower[lower.count - 2], lower[lower.count - 1], q) <= 0 { lower.removeLast() }
            lower.append(q)
        }
        for q in p.reversed() {
            while upper.count >= 2 && turn(upper[upper.count - 2], upper[upper.count - 1], q) <= 0 { upper.removeLast() }
            upper.append(q)
        }
        return Array(lower.dropLast() + upper.dropLast())
    }
}
