import SceneModel

/// How a node transform is written. glTF requires a node `matrix` to be decomposable into
/// translation × rotation × scale (no shear, no projection).
///
/// Rule:
/// 1. Elements within 1e-12 of 0, 1 or −1 are snapped to them (double-precision noise from
///    composing and inverting transforms, far below what any reader stores).
/// 2. A matrix that is then the identity is omitted.
/// 3. Any other matrix that is affine (bottom row 0, 0, 0, 1 within 1e-6: the float32 noise of
///    RoomPlan's `simd_float4x4` transforms, which `Matrix4.transformPoint` ignores too) and whose
///    basis columns are pairwise orthogonal (|cos| ≤ 1e-5 between non-zero columns) is written as
///    `matrix`, column-major, with the bottom row written exactly as 0, 0, 0, 1. A negative
///    determinant (a mirror) is decomposable (negative scale) and is kept.
/// 4. Everything else (shear, projection) is not decomposable and is baked into the vertices of a
///    dedicated mesh copy.
enum TransformRule {
    enum Decision: Equatable {
        case identity
        case matrix(Matrix4)
        case bake
    }

    static let snapTolerance = 1e-12
    static let bottomRowTolerance = 1e-6
    static let orthogonalityTolerance = 1e-5

    static func decide(_ matrix: Matrix4) -> Decision {
        if matrix.isIdentity { return .identity }
        let m = Matrix4(columnMajor: matrix.m.map(snapped))
        let e = m.m
        guard abs(e[3]) <= bottomRowTolerance, abs(e[7]) <= bottomRowTolerance, abs(e[11]) <= bottomRowTolerance,
            abs(e[15] - 1) <= bottomRowTolerance
        else { return .bake }
        let columns = [SIMD3(e[0], e[1], e[2]), SIMD3(e[4], e[5], e[6]), SIMD3(e[8], e[9], e[10])]
        let lengths = columns.map { ($0 * $0).sum().squareRoot() }
        for (i, j) in [(0, 1), (0, 2), (1, 2)] where lengths[i] > 0 && lengths[j] > 0 {
            let cosine = (columns[i] * columns[j]).sum() / (lengths[i] * lengths[j])
            if !(abs(cosine) <= orthogonalityTolerance) { return .bake }
        }
        var cleaned = m
        cleaned.m[3] = 0
        cleaned.m[7] = 0
        cleaned.m[11] = 0
        cleaned.m[15] = 1
        return cleaned.isIdentity ? .identity : .matrix(cleaned)
    }

    /// `x`, or exactly 0, 1 or −1 when within `snapTolerance` of it.
    static func snapped(_ x: Double) -> Double {
        for target in [0.0, 1, -1] where abs(x - target) <= snapTolerance { return target }
        return x
    }
}
