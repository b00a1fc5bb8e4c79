/// A 4×4 affine or projective transform in double precision, stored **column-major** with column
/// vectors (`p' = M × p`): elements 12, 13, 14 are the translation, as in glTF and simd.
public struct Matrix4: Hashable, Sendable {
    /// 16 elements, column-major.
    public var m: [Double]

    public init(columnMajor m: [Double]) {
        precondition(m.count == 16, "Matrix4 needs 16 elements")
        self.m = m
    }

    /// Builds from USD's row-vector convention (row-major, translation in the last row). The
    /// element layout is identical to column-major with column vectors, so this is a plain copy.
    public init(usdRowMajor r: [Double]) { self.init(columnMajor: r) }

    public static let identity = Matrix4(columnMajor: [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1])

    public subscript(row: Int, col: Int) -> Double {
        get { m[col * 4 + row] }
        set { m[col * 4 + row] = newValue }
    }

    public var isIdentity: Bool { m == Matrix4.identity.m }

    /// `self × other` (apply `other` first, then `self`).
    public static func * (a: Matrix4, b: Matrix4) -> Matrix4 {
        var out = [Double](repeating: 0, count: 16)
        for c in 0..<4 {
            for r in 0..<4 {
                var s = 0.0
                for k in 0..<4 { s += a.m[k * 4 + r] * b.m[c * 4 + k] }
                out[c * 4 + r] = s
            }
        }
        return Matrix4(columnMajor: out)
    }

    public static func translation(_ x: Double, _ y: Double, _ z: Double) -> Matrix4 {
        var t = Matrix4.identity
        t.m[12] = x; t.m[13] = y; t.m[14] = z
        return t
    }

    public static func scale(_ x: Double, _ y: Double, _ z: Double) -> Matrix4 {
        Matrix4(columnMajor: [x, 0, 0, 0, 0, y, 0, 0, 0, 0, z, 0, 0, 0, 0, 1])
    }

    /// Rotation about a principal axis (0 = X, 1 = Y, 2 = Z) by `degrees`, right-handed.
    public static func rotation(axis: Int, degrees: Double) -> Matrix4 {
        let a = degrees * Double.pi / 180
        let c = cos(a), s = sin(a)
        switch axis {
        case 0: return Matrix4(columnMajor: [1, 0, 0, 0, 0, c, s, 0, 0, -s, c, 0, 0, 0, 0, 1])
        case 1: return Matrix4(columnMajor: [c, 0, -s, 0, 0, 1, 0, 0, s, 0, c, 0, 0, 0, 0, 1])
        default: return Matrix4(columnMajor: [c, s, 0, 0, -s, c, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1])
        }
    }

    /// Rotation from a quaternion (imaginary `x, y, z`, real `w`), normalised first unless
    /// `normalizing` is false; then the unit-quaternion formula is applied to the values as given
    /// (what USD does for PointInstancer orientations, whose half-precision values are rarely of
    /// exactly unit length). A zero or non-finite quaternion gives the identity.
    public static func rotation(
        quaternionX x: Double, y: Double, z: Double, w: Double, normalizing: Bool = true
    ) -> Matrix4 {
        let n = (x * x + y * y + z * z + w * w).squareRoot()
        guard n > 0, n.isFinite else { return .identity }
        let (qx, qy, qz, qw) = normalizing ? (x / n, y / n, z / n, w / n) : (x, y, z, w)
        return Matrix4(columnMajor: [
            1 - 2 * (qy * qy + qz * qz), 2 * (qx * qy + qz * qw), 2 * (qx * qz - qy * qw), 0,
            2 * (qx * qy - qz * qw), 1 - 2 * (qx * qx + qz * qz), 2 * (qy * qz + qx * qw), 0,
            2 * (qx * qz + qy * qw), 2 * (qy * qz - qx * qw), 1 - 2 * (qx * qx + qy * qy), 0,
            0, 0, 0, 1,
        ])
    }

    /// Transforms a point (w = 1).
    public func transformPoint(_ p: SIMD3<Double>) -> SIMD3<Double> {
        SIMD3(
            m[0] * p.x + m[4] * p.y + m[8] * p.z + m[12],
            m[1] * p.x + m[5] * p.y + m[9] * p.z + m[13],
            m[2] * p.x + m[6] * p.y + m[10] * p.z + m[14])
    }

    /// Transforms a direction (w = 0).
    public func transformVector(_ v: SIMD3<Double>) -> SIMD3<Double> {
        SIMD3(
            m[0] * v.x + m[4] * v.y + m[8] * v.z,
            m[1] * v.x + m[5] * v.y + m[9] * v.z,
            m[2] * v.x + m[6] * v.y + m[10] * v.z)
    }

    /// Determinant of the upper-left 3×3 block (negative ⇒ the transform mirrors).
    public var determinant3x3: Double {
        m[0] * (m[5] * m[10] - m[9] * m[6]) - m[4] * (m[1] * m[10] - m[9] * m[2])
            + m[8] * (m[1] * m[6] - m[5] * m[2])
    }

    /// General inverse; `nil` when singular or not finite.
    public var inverse: Matrix4? {
        let a = m
        var inv = [Double](repeating: 0, count: 16)
        inv[0] = a[5] * a[10] * a[15] - a[5] * a[11] * a[14] - a[9] * a[6] * a[15] + a[9] * a[7] * a[14] + a[13] * a[6] * a[11] - a[13] * a[7] * a[10]
        inv[4] = -a[4] * a[10] * a[15] + a[4] * a[11] * a[14] + a[8] * a[6] * a[15] - a[8] * a[7] * a[14] - a[12] * a[6] * a[11] + a[12] * a[7] * a[10]
        inv[8] = a[4] * a[9] * a[15] - a[4] * a[11] * a[13] - a[8] * a[5] * a[15] + a[8] * a[7] * a[13] + a[12] * a[5] * a[11] - a[12] * a[7] * a[9]
        inv[12] = -a[4] * a[9] * a[14] + a[4] * a[10] * a[13] + a[8] * a[5] * a[14] - a[8] * a[6] * a[13] - a[12] * a[5] * a[10] + a[12] * a[6] * a[9]
        inv[1] = -a[1] * a[10] * a[15] + a[1] * a[11] * a[14] + a[9] * a[2] * a[15] - a[9] * a[3] * a[14] - a[13] * a[2] * a[11] + a[13] * a[3] * a[10]
        inv[5] = a[0] * a[10] * a[15] - a[0] * a[11] * a[14] - a[8] * a[2] * a[15] + a[8] * a[3] * a[14] + a[12] * a[2] * a[11] - a[12] * a[3] * a[10]
        inv[9] = -a[0] * a[9] * a[15] + a[0] * a[11] * a[13] + a[8] * a[1] * a[15] - a[8] * a[3] * a[13] - a[12] * a[1] * a[11] + a[12] * a[3] * a[9]
        inv[13] = a[0] * a[9] * a[14] - a[0] * a[10] * a[13] - a[8] * a[1] * a[14] + a[8] * a[2] * a[13] + a[12] * a[1] * a[10] - a[12] * a[2] * a[9]
        inv[2] = a[1] * a[6] * a[15] - a[1] * a[7] * a[14] - a[5] * a[2] * a[15] + a[5] * a[3] * a[14] + a[13] * a[2] * a[7] - a[13] * a[3] * a[6]
        inv[6] = -a[0] * a[6] * a[15] + a[0] * a[7] * a[14] + a[4] * a[2] * a[15] - a[4] * a[3] * a[14] - a[12] * a[2] * a[7] + a[12] * a[3] * a[6]
        inv[10] = a[0] * a[5] * a[15] - a[0] * a[7] * a[13] - a[4] * a[1] * a[15] + a[4] * a[3] * a[13] + a[12] * a[1] * a[7] - a[12] * a[3] * a[5]
        inv[14] = -a[0] * a[5] * a[14] + a[0] * a[6] * a[13] + a[4] * a[1] * a[14] - a[4] * a[2] * a[13] - a[12] * a[1] * a[6] + a[12] * a[2] * a[5]
        inv[3] = -a[1] * a[6] * a[11] + a[1] * a[7] * a[10] + a[5] * a[2] * a[11] - a[5] * a[3] * a[10] - a[9] * a[2] * a[7] + a[9] * a[3] * a[6]
        inv[7] = a[0] * a[6] * a[11] - a[0] * a[7] * a[10] - a[4] * a[2] * a[11] + a[4] * a[3] * a[10] + a[8] * a[2] * a[7] - a[8] * a[3] * a[6]
        inv[11] = -a[0] * a[5] * a[11] + a[0] * a[7] * a[9] + a[4] * a[1] * a[11] - a[4] * a[3] * a[9] - a[8] * a[1] * a[7] + a[8] * a[3] * a[5]
        inv[15] = a[0] * a[5] * a[10] - a[0] * a[6] * a[9] - a[4] * a[1] * a[10] + a[4] * a[2] * a[9] + a[8] * a[1] * a[6] - a[8] * a[2] * a[5]
        let det = a[0] * inv[0] + a[1] * inv[4] + a[2] * inv[8] + a[3] * inv[12]
        guard det != 0, det.isFinite else { return nil }
        return Matrix4(columnMajor: inv.map { $0 / det })
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
