import SceneModel

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Small transform helpers for layering (metres, column-major `Matrix4`).
extension Matrix4 {
    var translation: SIMD3<Double> { SIMD3(m[12], m[13], m[14]) }

    /// Column `i` (0 = local X, 1 = local Y, 2 = local Z) as a direction.
    func axis(_ i: Int) -> SIMD3<Double> { SIMD3(m[i * 4], m[i * 4 + 1], m[i * 4 + 2]) }

    var isFinite: Bool { m.count == 16 && m.allSatisfy { $0.isFinite } }

    /// The same frame with unit-length axes (scale removed, translation kept, bottom row 0 0 0 1).
    /// Returns `self` unchanged when the axes are already unit length within 1e-4 (keeps RoomPlan
    /// matrices bit for bit, including an m[15] of 0.99999994).
    var removingScale: Matrix4 {
        let lengths = (0..<3).map { i -> Double in
            let a = axis(i)
            return (a * a).sum().squareRoot()
        }
        if lengths.allSatisfy({ abs($0 - 1) <= 1e-4 }) { return self }
        var out = Matrix4.identity
        for i in 0..<3 where lengths[i] > 1e-12 && lengths[i].isFinite {
            let a = axis(i) / lengths[i]
            out.m[i * 4] = a.x
            out.m[i * 4 + 1] = a.y
            out.m[i * 4 + 2] = a.z
        }
        out.m[12] = m[12]
        out.m[13] = m[13]
        out.m[14] = m[14]
        return out
    }

    /// Angle in radians of the rotation taking this frame's axes onto `other`'s (scale ignored).
    func rotationAngle(to other: Matrix4) -> Double {
        let a = removingScale, b = other.removingScale
        var trace = 0.0
        for i in 0..<3 { trace += (a.axis(i) * b.axis(i)).sum() }
        let c = max(-1, min(1, (trace - 1) / 2))
        return acos(c)
    }

    /// A usable element frame: `self` when finite and invertible, else its translation only (or identity).
    var sanitizedFrame: Matrix4 {
        if isFinite, abs(determinant3x3) > 1e-12, inverse != nil { return self }
        let t = translation
        if t.x.isFinite && t.y.isFinite && t.z.isFinite { return .translation(t.x, t.y, t.z) }
        return .identity
    }
}

/// Plan-view (XZ) helpers.
enum Plan {
    static func point(_ p: SIMD3<Double>) -> SIMD2<Double> { SIMD2(p.x, p.z) }

    static func distance(_ a: SIMD2<Double>, _ b: SIMD2<Double>) -> Double {
        let d = a - b
        return (d * d).sum().squareRoot()
    }

    /// Distance from `p` to the segment `a`–`b`.
    static func distance(_ p: SIMD2<Double>, segment a: SIMD2<Double>, _ b: SIMD2<Double>) -> Double {
        let ab = b - a
        let len2 = (ab * ab).sum()
        guard len2 > 1e-18 else { return distance(p, a) }
        let t = max(0, min(1, ((p - a) * ab).sum() / len2))
        return distance(p, a + ab * t)
    }

    /// Signed shoelace area (positive when counter-clockwise in the (x, y) of the points).
    static func signedArea(_ pts: [SIMD2<Double>]) -> Double {
        guard pts.count >= 3 else { return 0 }
        var s = 0.0
        for i in pts.indices {
            let a = pts[i], b = pts[(i + 1) % pts.count]
            s += a.x * b.y - b.x * a.y
        }
        return s / 2
    }

    /// Length of the closed polygon's boundary.
    static func perimeter(_ pts: [SIMD2<Double>]) -> Double {
        guard pts.count >= 2 else { return 0 }
        var s = 0.0
        for i in pts.indices { s += distance(pts[i], pts[(i + 1) % pts.count]) }
        return s
    }

    /// Convex hull (monotone chain), counter-clockwise.
    static func convexHull(_ points: [SIMD2<Double>]) -> [SIMD2<Double>] {
        let pts = points.sorted { $0.x != $1.x ? $0.x < $1.x : $0.y < $1.y }
        guard pts.count >= 3 else { return pts }
        func cross(_ o: SIMD2<Double>, _ a: SIMD2<Double>, _ b: SIMD2<Double>) -> Double {
            (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x)
        }
        var lower: [SIMD2<Double>] = []
        for p in pts {
            while lower.count >= 2, cross(lower[lower.count - 2], lower[lower.count - 1], p) <= 0 { lower.removeLast() }
            lower.append(p)
        }
        var upper: [SIMD2<Double>] = []
        for p in pts.reversed() {
            while upper.count >= 2, cross(upper[upper.count - 2], upper[upper.count - 1], p) <= 0 { upper.removeLast() }
            upper.append(p)
        }
        return Array(lower.dropLast() + upper.dropLast())
    }
}
