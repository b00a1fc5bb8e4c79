import Testing
@testable import USDParse

/// TfFastCompression framing over liblz4 (usd-format.md §5.2–5.3).
@Suite struct LZ4FastCompressionTests {
    /// A literal-only LZ4 block holding `bytes` (valid LZ4: one final sequence).
    static func literalBlock(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        if bytes.count < 15 {
            out.append(UInt8(bytes.count) << 4)
        } else {
            out.append(0xF0)
            var rest = bytes.count - 15
            while rest >= 255 {
                out.append(255)
                rest -= 255
            }
            out.append(UInt8(rest))
        }
        return out + bytes
    }

    static func decompress(
        _ stream: [UInt8], capacity: Int, exact: Bool = true, limits: ParseLimits = .default
    ) throws -> [UInt8] {
        try FastCompression.decompress(
            ByteView(stream), offset: 0, length: stream.count, capacity: capacity, exact: exact, what: "test",
            budget: MemoryBudget(limits: limits))
    }

    static func code(_ body: () throws -> Void) -> USDParseError.Code? { CrateTestSupport.parseError(body)?.code }

    @Test func workedExampleSingleChunkLiterals() throws {
        // §5.3: integer-coded bytes 01 00 00 00 01 00 stored as 00 60 01 00 00 00 01 00.
        #expect(try Self.decompress([0x00, 0x60, 0x01, 0x00, 0x00, 0x00, 0x01, 0x00], capacity: 6)
                == [0x01, 0x00, 0x00, 0x00, 0x01, 0x00])
    }

    @Test func workedExampleMatchWithOverlappingCopyFromARealFile() throws {
        // The FIELDS reps stream of the §10.1 file contains `20 58 00 01 00`: two literals, then a
        // 4-byte match at offset 1 (the byte 00 repeated by overlapping copy).
        let bytes = try CrateTestSupport.fixture("mesh-0.8.0.usdc")
        let fields = try #require(try CrateTestSupport.structure(bytes).toc.section("FIELDS"))
        // numFields, then the name-token block (u64 size + stream), then the reps block.
        let repsAt = fields.start + 16 + Int(CrateTestSupport.u64(bytes, fields.start + 8))
        let size = Int(CrateTestSupport.u64(bytes, repsAt))
        let stream = Array(bytes[(repsAt + 8)..<(repsAt + 8 + size)])
        #expect(stream.starts(with: [0x00, 0x20, 0x58, 0x00, 0x01, 0x00]))
        let out = try Self.decompress(stream, capacity: 48)
        let reps: [UInt64] = [0x0029_0000_0000_0058, 0x402A_0000_0000_0000, 0x400B_0000_0000_0005,
                              0x0029_0000_0000_0064, 0x400B_0000_0000_0009, 0x8018_0000_0000_0070]
        #expect(out == reps.flatMap { r in (0..<8).map { UInt8(truncatingIfNeeded: r >> (8 * UInt64($0))) } })
    }

    @Test func tokensStreamOfTheWorkedExample() throws {
        let bytes = try CrateTestSupport.fixture("mesh-0.8.0.usdc")
        // TOKENS at 0x9C: numTokens, uncompressedSize 80, compressedSize, then the stream.
        #expect(CrateTestSupport.u64(bytes, 0x9C) == 11)
        #expect(CrateTestSupport.u64(bytes, 0xA4) == 80)
        let size = Int(CrateTestSupport.u64(bytes, 0xAC))
        let text = try Self.decompress(Array(bytes[0xB4..<(0xB4 + size)]), capacity: 80)
        let expected: [UInt8] = CrateStructureTests.exampleTokens.flatMap { (t: String) -> [UInt8] in Array(t.utf8) + [0] }
        #expect(text == expected)
    }

    @Test func longLiteralRunsAndLongMatches() throws {
        // 8 literals, a match of 15 + 5 + 4 = 24 at offset 1, then 5 final literals.
        let block: [UInt8] = [0x8F] + Array("ABCDEFGH".utf8) + [0x01, 0x00, 0x05, 0x50] + Array("vwxyz".utf8)
        let out = try Self.decompress([0x00] + block, capacity: 37)
        #expect(out == Array("ABCDEFGH".utf8) + Array(repeating: UInt8(ascii: "H"), count: 24) + Array("vwxyz".utf8))
        let big = (0..<1000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        #expect(try Self.decompress([0x00] + Self.literalBlock(big), capacity: 1000) == big)
    }

    @Test func emptyInputIsTheSingleTokenBlock() throws {
        #expect(try Self.decompress([0x00, 0x00], capacity: 0) == [])
    }

    @Test func chunkedFramingConcatenatesIndependentBlocks() throws {
        let a = Self.literalBlock(Array("hello ".utf8)), b = Self.literalBlock(Array("world".utf8))
        func le32(_ v: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
        let stream: [UInt8] = [0x02] + le32(a.count) + a + le32(b.count) + b
        #expect(try Self.decompress(stream, capacity: 11) == Array("hello world".utf8))
        // Truncated chunk header, oversized chunk, zero-size chunk, trailing bytes.
        #expect(Self.code { _ = try Self.decompress(Array(stream.prefix(3)), capacity: 11) } == .decompressionFailed)
        #expect(Self.code { _ = try Self.decompress([0x01] + le32(100) + a, capacity: 11) } == .decompressionFailed)
        #expect(Self.code { _ = try Self.decompress([0x01] + le32(0) + a, capacity: 11) } == .decompressionFailed)
        #expect(Self.code { _ = try Self.decompress([0x01] + le32(-5) + a, capacity: 11) } == .decompressionFailed)
        #expect(Self.code { _ = try Self.decompress(stream + [0], capacity: 11) } == .decompressionFailed)
    }

    @Test func rejectsBadMarkersAndMalformedBlocks() {
        // Chunk-count byte ≥ 128 (a signed-char reader would see a negative count).
        #expect(Self.code { _ = try Self.decompress([0x80, 0, 0, 0, 0], capacity: 4) } == .decompressionFailed)
        // Empty stream.
        #expect(Self.code { _ = try Self.decompress([], capacity: 0) } == .decompressionFailed)
        // Match offset 0 and match offset beyond the produced output.
        let offsetZero: [UInt8] = [0x00, 0x8F] + Array("ABCDEFGH".utf8) + [0x00, 0x00, 0x05, 0x50] + Array("vwxyz".utf8)
        #expect(Self.code { _ = try Self.decompress(offsetZero, capacity: 37) } == .decompressionFailed)
        let offsetFar: [UInt8] = [0x00, 0x8F] + Array("ABCDEFGH".utf8) + [0x40, 0x00, 0x05, 0x50] + Array("vwxyz".utf8)
        #expect(Self.code { _ = try Self.decompress(offsetFar, capacity: 37) } == .decompressionFailed)
        // Literal run longer than the input.
        #expect(Self.code { _ = try Self.decompress([0x00, 0x90, 1, 2], capacity: 9) } == .decompressionFailed)
    }

    @Test func producedSizeMustEqualTheExpectedSize() throws {
        let stream = [0x00] + Self.literalBlock([1, 2, 3, 4])
        #expect(Self.code { _ = try Self.decompress(stream, capacity: 5) } == .decompressionFailed)
        #expect(Self.code { _ = try Self.decompress(stream, capacity: 3) } == .decompressionFailed)
        // Non-exact (integer blocks): capacity is an upper bound.
        #expect(try Self.decompress(stream, capacity: 100, exact: false) == [1, 2, 3, 4])
    }

    @Test func declaredSizesAreBoundedBeforeAllocating() {
        let stream = [0x00] + Self.literalBlock([1, 2, 3, 4])
        // More than 255 × compressed + 16 bytes cannot be produced: refused before allocation.
        #expect(Self.code { _ = try Self.decompress(stream, capacity: 1 << 40) } == .decompressionFailed)
        var limits = ParseLimits()
        limits.maxUncompressedBytes = 3
        #expect(Self.code { _ = try Self.decompress(stream, capacity: 4, limits: limits) } == .limitExceeded)
        limits = ParseLimits()
        limits.memoryBudgetBytes = 3
        #expect(Self.code { _ = try Self.decompress(stream, capacity: 4, limits: limits) } == .memoryBudgetExceeded)
        // A stream that claims to extend past the view.
        #expect(Self.code {
            _ = try FastCompression.decompress(
                ByteView(stream), offset: 2, length: stream.count, capacity: 4, exact: true, what: "t",
                budget: MemoryBudget(limits: .default))
        } == .truncated)
    }
}
