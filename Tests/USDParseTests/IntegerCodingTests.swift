import Testing
@testable import USDParse

/// Integer coding (usd-format.md §5.4–5.5), including the worked examples of §5.4 and §10.1.
@Suite struct IntegerCodingTests {
    static func code(_ body: () throws -> Void) -> USDParseError.Code? { CrateTestSupport.parseError(body)?.code }

    /// A straightforward encoder written from the format description, for round trips.
    static func encode<S: FixedWidthInteger & SignedInteger>(_ values: [S]) -> [UInt8] {
        if values.isEmpty { return [] }
        let width = S.bitWidth / 8
        var deltas: [S] = []
        var prev: S = 0
        for v in values {
            deltas.append(v &- prev)
            prev = v
        }
        var counts: [S: Int] = [:]
        for d in deltas { counts[d, default: 0] += 1 }
        let common = counts.max { a, b in a.value < b.value || (a.value == b.value && a.key < b.key) }!.key
        func le<T: FixedWidthInteger>(_ v: T) -> [UInt8] {
            (0..<(T.bitWidth / 8)).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) }
        }
        var codes = [UInt8](repeating: 0, count: (values.count + 3) / 4)
        var vints: [UInt8] = []
        for (i, d) in deltas.enumerated() {
            var c: UInt8 = 0
            if d != common {
                if width == 4 {
                    if let v = Int8(exactly: d) { c = 1; vints += le(v) }
                    else if let v = Int16(exactly: d) { c = 2; vints += le(v) }
                    else { c = 3; vints += le(Int32(truncatingIfNeeded: d)) }
                } else {
                    if let v = Int16(exactly: d) { c = 1; vints += le(v) }
                    else if let v = Int32(exactly: d) { c = 2; vints += le(v) }
                    else { c = 3; vints += le(Int64(truncatingIfNeeded: d)) }
                }
            }
            codes[i / 4] |= c << (2 * UInt8(i % 4))
        }
        return le(common) + codes + vints
    }

    @Test func workedExamplesFromSection5() throws {
        #expect(try IntegerCoding.decode32([0x01, 0, 0, 0, 0x01, 0x00], count: 3) == [0, 1, 2])
        #expect(try IntegerCoding.decode32([0x01, 0, 0, 0, 0x10, 0xF7], count: 3) == [1, 2, -7])
        #expect(try IntegerCoding.decode32([0x02, 0, 0, 0, 0x05, 0x05, 0x03, 0x01, 0xFE, 0x04], count: 6)
                == [3, 4, 6, 8, 6, 10])
    }

    @Test func workedExamplesFromSection10() throws {
        // PATHS jumps, SPECS field-set indexes (tie → largest delta is common), SPECS spec types.
        #expect(try IntegerCoding.decode32([0xFF, 0xFF, 0xFF, 0xFF, 0x04, 0x00], count: 3) == [-1, -1, -2])
        #expect(try IntegerCoding.decode32([0x04, 0, 0, 0, 0x05, 0x00, 0x02], count: 3) == [0, 2, 6])
        #expect(try IntegerCoding.decode32([0x07, 0, 0, 0, 0x14, 0xFF, 0xFB], count: 3) == [7, 6, 1])
        // And the encoder used below agrees with the writer on them.
        #expect(Self.encode([Int32(3), 4, 6, 8, 6, 10]) == [0x02, 0, 0, 0, 0x05, 0x05, 0x03, 0x01, 0xFE, 0x04])
        #expect(Self.encode([Int32(0), 2, 6]) == [0x04, 0, 0, 0, 0x05, 0x00, 0x02])
    }

    @Test func sixtyFourBitVariantUsesWiderDeltas() throws {
        let values: [Int64] = [1 << 40, (1 << 40) + 1, (1 << 40) + 2, -5, 70_000, 70_000 + 300, Int64.min, Int64.max]
        let coded = Self.encode(values)
        #expect(try IntegerCoding.decode64(coded, count: values.count) == values)
        #expect(try IntegerCoding.decode(coded, count: values.count, as: UInt64.self)
                == values.map { UInt64(bitPattern: $0) })
    }

    @Test func deltasWrapAroundTheElementWidth() throws {
        let values: [Int32] = [Int32.max, Int32.min, Int32.max, 0, -1]
        #expect(try IntegerCoding.decode32(Self.encode(values), count: values.count) == values)
        let unsigned: [UInt32] = [4_000_000_000, 1, 4_294_967_295]
        let coded = Self.encode(unsigned.map { Int32(bitPattern: $0) })
        #expect(try IntegerCoding.decode(coded, count: 3, as: UInt32.self) == unsigned)
    }

    @Test(arguments: [0, 1, 3, 4, 5, 15, 16, 17, 1_000, 10_001])
    func randomRoundTripsBothWidths(count: Int) throws {
        var rng = SplitMix64(seed: UInt64(count) &+ 17)
        let small = (0..<count).map { _ in Int32(truncatingIfNeeded: rng.next() % 3) }
        let mixed32 = (0..<count).map { i -> Int32 in
            let r = rng.next()
            switch r % 4 {
            case 0: return Int32(i)
            case 1: return Int32(truncatingIfNeeded: r >> 40) - 5_000
            case 2: return Int32(truncatingIfNeeded: r)
            default: return Int32(truncatingIfNeeded: r >> 20) & 0xFF
            }
        }
        let mixed64 = (0..<count).map { _ -> Int64 in
            let r = rng.next()
            return r % 3 == 0 ? Int64(bitPattern: r) : Int64(truncatingIfNeeded: r >> 44)
        }
        for values in [small, mixed32] {
            #expect(try IntegerCoding.decode32(Self.encode(values), count: count) == values)
        }
        #expect(try IntegerCoding.decode64(Self.encode(mixed64), count: count) == mixed64)
    }

    /// Long runs of the common delta (code bytes of zero, which read no delta bytes) between
    /// deltas of every size, with the last deltas in the buffer's final bytes, where decoding must
    /// switch from whole code bytes to reading byte by byte: every run length 0…40 and every
    /// delta size, at both widths, against a reference decoder.
    @Test func commonRunsBetweenDeltasOfEverySize() throws {
        let deltas32: [Int32] = [1, -1, 127, -128, 300, -30_000, 70_000, Int32.min, Int32.max]
        let deltas64: [Int64] = [1, -1, 300, -30_000, 70_000, -3_000_000_000, Int64.min, Int64.max]
        for run in 0...40 {
            for tail in 0...5 {
                var v32: [Int32] = []
                var v64: [Int64] = []
                var p32: Int32 = 0
                var p64: Int64 = 0
                for (d32, d64) in zip(deltas32, deltas64) {
                    for _ in 0..<run { v32.append(p32 &+ 3); p32 = v32.last!; v64.append(p64 &+ 3); p64 = v64.last! }
                    v32.append(p32 &+ d32); p32 = v32.last!
                    v64.append(p64 &+ d64); p64 = v64.last!
                }
                for _ in 0..<tail { v32.append(p32 &+ 3); p32 = v32.last!; v64.append(p64 &+ 3); p64 = v64.last! }
                #expect(try IntegerCoding.decode32(Self.encode(v32), count: v32.count) == v32, "run \(run), tail \(tail)")
                #expect(try IntegerCoding.decode64(Self.encode(v64), count: v64.count) == v64, "run \(run), tail \(tail)")
            }
        }
        // A long array whose only deltas are the common one and a few at the very end.
        let flat = [Int32](repeating: 3, count: 100_003) + [4, -7, 100_000]
        #expect(try IntegerCoding.decode32(Self.encode(flat), count: flat.count) == flat)
    }

    @Test func rejectsShortAndOverlongBuffers() throws {
        // Codes announce an i8 delta that is missing.
        #expect(Self.code { _ = try IntegerCoding.decode32([0x01, 0, 0, 0, 0x01], count: 3) } == .corrupt)
        // A 4-byte delta with only 3 bytes present.
        #expect(Self.code { _ = try IntegerCoding.decode32([0, 0, 0, 0, 0x03, 1, 2, 3], count: 1) } == .corrupt)
        // Bytes left over after the last value.
        #expect(Self.code { _ = try IntegerCoding.decode32([0x01, 0, 0, 0, 0x01, 0x00, 0x00], count: 3) } == .corrupt)
        // No room for the common value or the codes.
        #expect(Self.code { _ = try IntegerCoding.decode32([0x01, 0, 0], count: 1) } == .corrupt)
        #expect(Self.code { _ = try IntegerCoding.decode32([0x01, 0, 0, 0], count: 5) } == .corrupt)
        #expect(Self.code { _ = try IntegerCoding.decode64([0x01, 0, 0, 0, 0, 0, 0, 0, 0x02, 0x01], count: 1) } == .corrupt)
        // Zero values: the buffer must be empty.
        #expect(try IntegerCoding.decode32([], count: 0) == [])
        #expect(Self.code { _ = try IntegerCoding.decode32([0], count: 0) } == .corrupt)
    }

    @Test func compressedIntegerBlockThroughTheCursor() throws {
        let coded: [UInt8] = [0x02, 0, 0, 0, 0x05, 0x05, 0x03, 0x01, 0xFE, 0x04]
        let stream = [0x00] + LZ4FastCompressionTests.literalBlock(coded)
        var bytes = [UInt8](repeating: 0, count: 8)
        CrateTestSupport.putU64(&bytes, 0, UInt64(stream.count))
        bytes += stream + [0xAB]
        var c = try CrateCursor(ByteView(bytes), at: 0)
        let values = try c.compressedIntegers(6, as: Int32.self, what: "t", budget: MemoryBudget(limits: .default))
        #expect(values == [3, 4, 6, 8, 6, 10])
        #expect(c.offset == bytes.count - 1)
        // An empty block (n = 0) as the writer emits it: size 2, stream 00 00.
        var empty = try CrateCursor(ByteView([2, 0, 0, 0, 0, 0, 0, 0, 0, 0]), at: 0)
        #expect(try empty.compressedIntegers(0, as: UInt32.self, what: "t", budget: MemoryBudget(limits: .default)) == [])
        // A compressed size past the section end, and a count the bytes cannot encode.
        var short = try CrateCursor(ByteView(bytes), offset: 0, end: 12)
        #expect(Self.code {
            _ = try short.compressedIntegers(6, as: Int32.self, what: "t", budget: MemoryBudget(limits: .default))
        } == .truncated)
        var tooMany = try CrateCursor(ByteView(bytes), at: 0)
        #expect(Self.code {
            _ = try tooMany.compressedIntegers(1 << 30, as: Int32.self, what: "t", budget: MemoryBudget(limits: .default))
        } == .corrupt)
    }
}
