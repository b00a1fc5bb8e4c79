#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A 4×4 single-precision matrix, column-major with column vectors (`p' = M × p`).
struct Mat4f: Sendable {
    var c0: SIMD4<Float>, c1: SIMD4<Float>, c2: SIMD4<Float>, c3: SIMD4<Float>

    static let identity = Mat4f(
        c0: SIMD4(1, 0, 0, 0), c1: SIMD4(0, 1, 0, 0), c2: SIMD4(0, 0, 1, 0), c3: SIMD4(0, 0, 0, 1))

    /// Rows given as arrays of four doubles (row-major reading order).
    init(rows r: [[Double]]) {
        c0 = SIMD4(Float(r[0][0]), Float(r[1][0]), Float(r[2][0]), Float(r[3][0]))
        c1 = SIMD4(Float(r[0][1]), Float(r[1][1]), Float(r[2][1]), Float(r[3][1]))
        c2 = SIMD4(Float(r[0][2]), Float(r[1][2]), Float(r[2][2]), Float(r[3][2]))
        c3 = SIMD4(Float(r[0][3]), Float(r[1][3]), Float(r[2][3]), Float(r[3][3]))
    }

    init(c0: SIMD4<Float>, c1: SIMD4<Float>, c2: SIMD4<Float>, c3: SIMD4<Float>) {
        self.c0 = c0
        self.c1 = c1
        self.c2 = c2
        self.c3 = c3
    }

    @inline(__always)
    func transformPoint(_ x: Float, _ y: Float, _ z: Float) -> SIMD4<Float> {
        c0 * x + c1 * y + c2 * z + c3
    }
}

/// Floor division for possibly negative numerators.
@inline(__always) func floorDiv(_ a: Int, _ b: Int) -> Int {
    let q = a / b
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
}
