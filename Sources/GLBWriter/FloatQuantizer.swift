/// Puts positions on an absolute grid of a power-of-two step, so that each value moves by at most a
/// stated bound, and writes them in the form of the `EXPONENTIAL` filter of
/// `EXT_meshopt_compression` (an 8-bit exponent and a 24-bit signed integer mantissa per value).
/// With one exponent for every value on the grid, the mantissas are plain integers whose
/// differences from vertex to vertex are small, which is what the vertex codec compresses well;
/// the decoded values are float32 again and equal the grid values exactly, so no dequantisation
/// transform is needed and the node tree is unchanged.
enum FloatQuantizer {
    /// The largest mantissa magnitude the filter holds (24-bit two's complement, symmetric).
    static let mantissaLimit: Int32 = (1 << 23) - 1

    /// The grid exponent `e` for an error bound in metres: the step `2^e` is the largest power of two
    /// with `2^(e-1) ≤ error` (rounding to the nearest step moves a value by at most half a step),
    /// kept within -100…20 so that the filter's exponent byte and float32 hold it.
    static func gridExponent(error: Double) -> Int {
        guard error.isFinite, error > 0 else { return -100 }
        var e = 20
        while e > -100 && Double(sign: .plus, exponent: e - 1, significand: 1) > error { e -= 1 }
        return e
    }

    /// `v` rounded to the nearest multiple of `2^exponent` (ties away from zero). A value too large
    /// for the grid (|v| ≥ 2^(23+exponent)) is rounded to 23 significant bits instead, as close as
    /// the filter can hold it; non-finite values are returned unchanged.
    static func snap(_ v: Float, exponent: Int) -> Float {
        guard v.isFinite else { return v }
        let step = Float(sign: .plus, exponent: exponent, significand: 1)
        let scaled = (v / step).rounded(.toNearestOrAwayFromZero)
        if abs(scaled) <= Float(mantissaLimit) { return scaled * step }
        // 22 stored mantissa bits plus the implicit one: 23 significant bits.
        let shift: UInt32 = 1
        let half = UInt32(1) << (shift - 1)
        let r = Float(bitPattern: (v.bitPattern &+ half) & ~((UInt32(1) << shift) - 1))
        return r.isFinite ? r : v
    }

    /// The filter's 32-bit form of `v` (exponent in the top byte, mantissa in the low 24 bits) with
    /// exponent `exponent`, or the smallest larger exponent at which `v` is an integer multiple that
    /// fits; nil when `v` is not finite or needs more than 23 significant bits (a value `snap` did
    /// not produce).
    static func exponentialBits(_ v: Float, exponent: Int) -> UInt32? {
        guard v.isFinite else { return nil }
        var e = exponent
        if v != 0 {
            // The exponent of v's lowest set significand bit bounds how fine a step divides v.
            let lowest = v.exponent - Int(v.significandWidth)
            let highest = Int(v.exponent)
            if lowest < e { return nil }
            e = max(e, highest - 22)
        }
        guard e >= -126, e <= 127 else { return nil }
        let m = Int32(v / Float(sign: .plus, exponent: e, significand: 1))
        guard abs(m) <= mantissaLimit else { return nil }
        return (UInt32(bitPattern: Int32(e)) << 24) | (UInt32(bitPattern: m) & 0x00FF_FFFF)
    }
}
