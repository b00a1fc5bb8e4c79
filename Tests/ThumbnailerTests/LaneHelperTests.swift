import Testing
@testable import Thumbnailer

/// The mask helpers the hot loops use instead of the standard library's `any`, `all` and lane
/// conversions agree with those on every mask of eight lanes.
struct LaneHelperTests {
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
}
