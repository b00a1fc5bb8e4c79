import Testing
@testable import Thumbnailer

/// The vector helpers of the hot loops agree with the plain code they replace: the mask helpers
/// with the standard library's `any`, `all` and lane conversions on every mask of eight lanes,
/// and the four-channel sRGB encoding with the one-channel encoding.
struct VectorHelperTests {
    static func mask32(_ bits: Int) -> SIMDMask<SIMD8<Int32>> {
        var lanes = SIMD8<Int32>.zero
        for i in 0..<8 where bits >> i & 1 == 1 { lanes[i] = 1 }
        return lanes .== 1
    }

    static func mask16(_ bits: Int) -> SIMDMask<SIMD8<Int16>> {
        var lanes = SIMD8<Int16>.zero
        for i in 0..<8 where bits >> i & 1 == 1 { lanes[i] = 1 }
        return lanes .== 1
    }

    @Test func everyEightLaneMaskAgreesWithTheStandardLibrary() {
        for bits in 0..<256 {
            let m = Self.mask32(bits), h = Self.mask16(bits)
            #expect(anyLane(m) == any(m), "any of \(bits)")
            #expect(allLanes(m) == all(m), "all of \(bits)")
            #expect(allLanes(h) == all(h), "all (16-bit lanes) of \(bits)")
            let expected = SIMD8<UInt8>(truncatingIfNeeded: SIMD8<Int32>.zero.replacing(with: 1, where: m))
            #expect(laneBytes(m) == expected, "bytes of \(bits)")
            #expect(laneBytes(h) == expected, "bytes (16-bit lanes) of \(bits)")
        }
    }

    @Test func positivePartIsTheMaximumWithZero() {
        let v = SIMD4<Float>(-1.5, 0, 2.25, .nan)
        let p = positivePart(v)
        #expect(p[0] == 0 && p[1] == 0 && p[2] == 2.25 && p[3] == 0)
        #expect(positivePart(SIMD4(-0.0, 1, -2, 3)) == SIMD4(0, 1, 0, 3))
    }

    @Test func theFourChannelEncodingMatchesTheOneChannelEncoding() {
        var values: [Float] = [
            0, -0.0, 1, -1, 2, .infinity, -.infinity, .nan, .leastNonzeroMagnitude, 1e-9, 0.0031308,
            1 - .ulpOfOne, 1 + .ulpOfOne, .greatestFiniteMagnitude,
        ]
        // Every table step's boundaries (where x·steps + 0.5 crosses an integer) and neighbours.
        let steps = Float(ColorSpace.encodeSteps)
        for i in 0...ColorSpace.encodeSteps {
            let edge = (Float(i) + 0.5) / steps
            values += [edge.nextDown, edge, edge.nextUp, Float(i) / steps]
        }
        ColorSpace.linearToSRGBTable.withUnsafeBufferPointer { t in
            let table = t.baseAddress!
            var mismatches = 0
            for (k, v) in values.enumerated() {
                let w = values[(k * 7 + 3) % values.count], z = values[(k * 13 + 5) % values.count]
                let packed = UInt32(littleEndian: ColorSpace.encodePixel(SIMD4(v, w, z, .nan), table: table))
                let expected = UInt32(ColorSpace.encode(v, table: table)) | UInt32(ColorSpace.encode(w, table: table)) << 8
                    | UInt32(ColorSpace.encode(z, table: table)) << 16 | 0xFF00_0000
                if packed != expected { mismatches += 1 }
            }
            #expect(mismatches == 0, "\(mismatches) of \(values.count) colours encode differently")
        }
    }
}
