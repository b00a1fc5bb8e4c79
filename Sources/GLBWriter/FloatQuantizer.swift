/// Rounds float32 values to fewer mantissa bits, so that the vertex codec finds runs of equal
/// low bytes while each value moves by at most a stated bound (the values stay float32, so no
/// dequantisation transform is needed and the node tree is unchanged).
enum FloatQuantizer {
    /// Mantissa bits (1…23) that keep every value of magnitude up to `maxMagnitude` within `error`:
    /// rounding to `b` bits moves `v` by at most `|v| · 2^-(b+1)`.
    static func mantissaBits(maxMagnitude: Float, error: Double) -> Int {
        guard maxMagnitude.isFinite, maxMagnitude > 0, error > 0 else { return 23 }
        var bits = 1
        while bits < 23 && Double(maxMagnitude) * Double(sign: .plus, exponent: -(bits + 1), significand: 1) > error {
            bits += 1
        }
        return bits
    }

    /// `v` rounded to `bits` mantissa bits (to nearest; a carry may step the exponent). Non-finite
    /// values and `bits` ≥ 23 return `v` unchanged.
    @inline(__always)
    static func round(_ v: Float, bits: Int) -> Float {
        guard bits < 23, v.isFinite else { return v }
        let shift = UInt32(23 - bits)
        let half = UInt32(1) << (shift - 1)
        let mask = ~((UInt32(1) << shift) - 1)
        let r = Float(bitPattern: (v.bitPattern &+ half) & mask)
        return r.isFinite ? r : v
    }
}
