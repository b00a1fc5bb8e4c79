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

    /// Linear RGB of an sRGB hex colour such as 0xF3F4F6.
    static func linear(hex: UInt32) -> SIMD3<Float> {
        SIMD3(
            srgbToLinear[Int((hex >> 16) & 0xFF)], srgbToLinear[Int((hex >> 8) & 0xFF)], srgbToLinear[Int(hex & 0xFF)])
    }
}
