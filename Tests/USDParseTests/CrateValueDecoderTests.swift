import Testing
@testable import USDParse

/// The ValueRep dispatcher on crafted reps (usd-format.md §8.1–8.3), against the tables and value
/// data of the §10.1 file.
@Suite struct CrateValueDecoderTests {
    static func decoder() throws -> CrateValueDecoder {
        let bytes = try CrateTestSupport.fixture("mesh-0.8.0.usdc")
        let s = try CrateTestSupport.structure(bytes)
        return CrateValueDecoder(view: ByteView(bytes), version: s.bootstrap.version, tables: s.tables,
                                 limits: .default, budget: MemoryBudget(limits: .default))
    }

    static func decode(_ rep: UInt64, _ d: CrateValueDecoder? = nil) throws -> SdfValue {
        try (d ?? decoder()).decodeField(rep, path: SdfPath("/X"), field: "f")
    }

    static func code(_ rep: UInt64) -> USDParseError.Code? {
        CrateTestSupport.parseError { _ = try decode(rep) }?.code
    }

    @Test func inlineEncodingsFromTheFormatDescription() throws {
        #expect(try Self.decode(0x402A_0000_0000_0000) == .specifier(.def))
        #expect(try Self.decode(0x400B_0000_0000_0005) == .token("Mesh"))
        #expect(try Self.decode(0x4001_0000_0000_0001) == .bool(true))
        #expect(try Self.decode(0x4008_0000_3F00_0000) == .float(0.5))
        #expect(try Self.decode(0x4009_0000_3F80_0000) == .double(1))
        #expect(try Self.decode(0x4018_0000_0003_FE01) == .scalar(.float3, .float([1, -2, 3])))
        #expect(try Self.decode(0x400F_0000_0101_0101)
                == .scalar(.matrix4d, .double([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1])))
        #expect(try Self.decode(0x4033_0000_0000_0000) == .valueBlock)
        #expect(try Self.decode(0x403C_0000_0000_0000) == .animationBlock)
        #expect(try Self.decode(0x8003_0000_0000_0000) == .array(.int, .int32([])))
        #expect(try Self.decode(0x4005_0000_FFFF_FFFB) == .scalar(.int64, .int64([-5])))
        #expect(try Self.decode(0x4006_0000_FFFF_FFFF) == .scalar(.uint64, .uint64([4_294_967_295])))
        #expect(try Self.decode(0x4015_0000_3C00_3800) == .scalar(.half2, .half([0x3800, 0x3C00])))
        #expect(try Self.decode(0x4002_0000_0000_00C8) == .scalar(.uchar, .uint8([200])))
        #expect(try Self.decode(0x402C_0000_0000_0002) == .variability(.uniform))
        #expect(try Self.decode(0x402B_0000_0000_0001) == .permission(.private))
        #expect(try Self.decode(0x401F_0000_0000_0000) == .dictionary([:]))
        // Always-inline types ignore a missing inline bit.
        #expect(try Self.decode(0x000B_0000_0000_0002) == .token("M"))
    }

    @Test func outOfLineValuesOfTheExampleFile() throws {
        #expect(try Self.decode(0x0029_0000_0000_0058) == .tokenVector(["M"]))
        #expect(try Self.decode(0x8018_0000_0000_0070) == .array(.float3, .float([0, 0, 0, 1, 0, 0, 0, 1.5, 0])))
    }

    @Test func invalidRepsAreCorrupt() {
        #expect(Self.code(0x0000_0000_0000_0058) == .corrupt)  // type 0
        #expect(Self.code(0x801F_0000_0000_0058) == .corrupt)  // dictionary array
        #expect(Self.code(0x4011_0000_0000_0000) == .corrupt)  // inlined quatf
        #expect(Self.code(0x402A_0000_0000_0003) == .corrupt)  // specifier 3
        #expect(Self.code(0x402C_0000_0000_0003) == .corrupt)  // variability 3
        #expect(Self.code(0x400B_0000_0000_00FF) == .corrupt)  // token index out of range
        #expect(Self.code(0x400A_0000_0000_0000) == .corrupt)  // string index (no strings)
        #expect(Self.code(0x0009_0000_0000_0008) == .corrupt)  // offset inside the bootstrap
        #expect(Self.code(0x0009_0000_0000_1000) == .truncated)  // offset past the end
        #expect(Self.code(0x0009_0000_0000_02B8) == .truncated)  // 8-byte double crossing the end
        #expect(Self.code(0x8018_0000_0000_0040) == .corrupt)  // array header inside the bootstrap
    }

    @Test func unsupportedKindsAreFieldLevelWithAWarning() throws {
        let d = try Self.decoder()
        guard case .unsupported = try Self.decode(0x4063_0000_0000_0000, d) else {
            Issue.record("unknown type 99 should be unsupported")
            return
        }
        guard case .unsupported = try Self.decode(0x1003_0000_0000_0070, d) else {
            Issue.record("array edit should be unsupported")
            return
        }
        guard case .unsupported = try Self.decode(0x003B_0000_0000_0070, d) else {
            Issue.record("spline should be unsupported")
            return
        }
        #expect(d.allWarnings.count == 3)
        #expect(d.allWarnings.allSatisfy { $0.hasPrefix("/X field 'f'") })
    }

    @Test func compressedFlagOnAVectorArrayIsIgnoredWithAWarning() throws {
        let d = try Self.decoder()
        #expect(try Self.decode(0xA018_0000_0000_0070, d) == .array(.float3, .float([0, 0, 0, 1, 0, 0, 0, 1.5, 0])))
        #expect(d.allWarnings == ["compressed flag ignored on a float3[] value (crate 0.8.0)"])
    }

    @Test func cachedValuesCountTheirLogicalSizeOnEveryUse() throws {
        let bytes = try CrateTestSupport.fixture("mesh-0.8.0.usdc")
        let s = try CrateTestSupport.structure(bytes)
        var limits = ParseLimits()
        limits.memoryBudgetBytes = 200
        let d = CrateValueDecoder(view: ByteView(bytes), version: s.bootstrap.version, tables: s.tables,
                                  limits: limits, budget: MemoryBudget(limits: limits))
        var uses = 0
        let e = CrateTestSupport.parseError {
            for _ in 0..<100 {
                _ = try Self.decode(0x8018_0000_0000_0070, d)  // 36 bytes of floats, decoded once
                uses += 1
            }
        }
        #expect(e?.code == .memoryBudgetExceeded)
        #expect(uses > 1 && uses < 10)
    }
}
