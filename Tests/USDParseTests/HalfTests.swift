import Testing
@testable import USDParse

@Suite struct HalfTests {
    @Test func halfConversionRoundTripsEveryFiniteValue() {
        for bits in UInt16.min...UInt16.max {
            let f = Half.toFloat(bits)
            if f.isNaN { continue }
            #expect(Half.fromFloat(f) == bits || (f == 0 && Half.fromFloat(f) & 0x7FFF == 0))
        }
    }

    @Test func knownHalfValues() {
        #expect(Half.toFloat(0x3C00) == 1)
        #expect(Half.toFloat(0xC000) == -2)
        #expect(Half.toFloat(0x0001) == Float(bitPattern: 0x3380_0000))
        #expect(Half.toFloat(0x7C00) == .infinity)
    }
}
