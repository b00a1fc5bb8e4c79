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
