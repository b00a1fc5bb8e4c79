/// Portable IEEE-754 binary16 → binary32 conversion (exact for every half value, including
/// subnormals, infinities and NaN payload class).
public enum Half {
    @inline(__always)
    public static func toFloat(_ h: UInt16) -> Float {
        let sign = UInt32(h & 0x8000) << 16
        let exp = Int((h >> 10) & 0x1F)
        let mant = UInt32(h & 0x3FF)
        if exp == 0 {
            if mant == 0 { return Float(bitPattern: sign) }
            // Subnormal: value = mant × 2^-24.
            let v = Float(mant) * Float(bitPattern: 0x3380_0000)  // 2^-24
            return sign != 0 ? -v : v
        }
        if exp == 31 { return Float(bitPattern: sign | 0x7F80_0000 | (mant << 13)) }
        return Float(bitPattern: sign | UInt32(exp - 15 + 127) << 23 | (mant << 13))
    }

    /// Nearest half (round to nearest even) for a float; used when text authors half values.
    public static func fromFloat(_ f: Float) -> UInt16 {
        let bits = f.bitPattern
        let sign = UInt16((bits >> 16) & 0x8000)
        if f.isNaN { return sign | 0x7E00 }
        let a = abs(f)
        if a >= 65520 { return sign | 0x7C00 }
        if a < Float(bitPattern: 0x3300_0000) { return sign }  // < 2^-25 rounds to zero
        if a < Float(bitPattern: 0x3880_0000) {  // subnormal half range (< 2^-14)
            let m = (a / Float(bitPattern: 0x3380_0000)).rounded(.toNearestOrEven)
            return sign | UInt16(m)
        }
        let e = Int((a.bitPattern >> 23) & 0xFF) - 127 + 15
        var m = a.bitPattern & 0x7F_FFFF
        var he = UInt32(e)
        // Round the 23-bit mantissa to 10 bits, nearest even.
        let rem = m & 0x1FFF
        m >>= 13
        if rem > 0x1000 || (rem == 0x1000 && (m & 1) == 1) {
            m += 1
            if m == 0x400 { m = 0; he += 1 }
        }
        if he >= 31 { return sign | 0x7C00 }
        return sign | UInt16(he << 10) | UInt16(m)
    }
}
