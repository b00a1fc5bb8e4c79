#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// sRGB ↔ linear conversions through fixed tables (deterministic, no per-pixel `pow`).
enum ColorSpace {
    /// Linear value of each 8-bit sRGB code.
    static let srgbToLinear: [Float] = (0..<256).map { i in
        let c = Double(i) / 255
        let l = c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
        return Float(l)
    }

    /// Size of the encode table: linear [0, 1] quantised to this many steps.
    static let encodeSteps = 16384

    /// 8-bit sRGB code of each quantised linear value.
    static let linearToSRGBTable: [UInt8] = (0...encodeSteps).map { i in
        let l = Double(i) / Double(encodeSteps)
        let c = l <= 0.0031308 ? l * 12.92 : 1.055 * pow(l, 1 / 2.4) - 0.055
        return UInt8(max(0, min(255, (c * 255).rounded())))
    }

    /// Encodes a linear value (clamped to [0, 1]; NaN gives 0) as an 8-bit sRGB code.
    @inline(__always)
    static func encode(_ v: Float, table: UnsafePointer<UInt8>) -> UInt8 {
        let x = v > 0 ? (v < 1 ? v : 1) : 0  // NaN fails `v > 0` → 0
        return table[Int(x * Float(encodeSteps) + 0.5)]
    }

    /// The RGBA8 pixel of a linear colour, as four bytes in memory order (alpha 255): each
    /// channel exactly as `encode(_:table:)` gives it, four channels at a time. The index is
    /// truncated with the 2²³ trick: adding 2²³ rounds to the nearest integer, one less where
    /// that went up (indices stay below 2²³).
    @inline(__always)
    static func encodePixel(_ c: SIMD4<Float>, table: UnsafePointer<UInt8>) -> UInt32 {
        let zero = SIMD4<Float>.zero, one = SIMD4<Float>(repeating: 1)
        var x = c.replacing(with: zero, where: .!(c .> zero))  // NaN fails `c > 0` → 0
        x = x.replacing(with: one, where: .!(x .< one))
        let y = x * Float(encodeSteps) + 0.5
        let magic = SIMD4<Float>(repeating: 8_388_608)
        var r = (y + magic) - magic
        r = r.replacing(with: r - 1, where: r .> y)
        let index = unsafeBitCast(r + magic, to: SIMD4<UInt32>.self) &- 0x4B00_0000
        let rgba = UInt32(table[Int(index[0])]) | UInt32(table[Int(index[1])]) << 8
            | UInt32(table[Int(index[2])]) << 16 | 0xFF00_0000
        return rgba.littleEndian
    }

    /// Linear RGB of an sRGB hex colour such as 0xF3F4F6.
    static func linear(hex: UInt32) -> SIMD3<Float> {
        SIMD3(
            srgbToLinear[Int((hex >> 16) & 0xFF)], srgbToLinear[Int((hex >> 8) & 0xFF)], srgbToLinear[Int(hex & 0xFF)])
    }
}
