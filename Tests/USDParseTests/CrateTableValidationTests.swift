import Testing
@testable import USDParse

/// Cross-table validation (usd-format.md §6.6–6.7). Each test rewrites one structural section of
/// the §10.1 file: the new section body is appended after the TOC and the TOC entry is pointed at
/// it, with integer blocks re-encoded as literal-only LZ4.
@Suite struct CrateTableValidationTests {
    typealias Support = CrateTestSupport
    static let end = Int32(bitPattern: 0xFFFF_FFFF)

    static func u64(_ v: Int) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }

    /// A TfFastCompression stream holding `bytes` as one literal-only LZ4 block.
    static func stream(_ bytes: [UInt8]) -> [UInt8] { [0x00] + LZ4FastCompressionTests.literalBlock(bytes) }

    /// A compressed integer block: u64 size, then the stream of the integer-coded values.
    static func ints(_ values: [Int32]) -> [UInt8] {
        let s = stream(IntegerCodingTests.encode(values))
        return u64(s.count) + s
    }

    /// The example file with section `name` replaced by `body`.
    static func replacing(_ name: String, with body: [UInt8]) throws -> [UInt8] {
        var bytes = try Support.fixture("mesh-0.8.0.usdc")
        let s = try Support.structure(bytes)
        let k = try #require(s.toc.sections.firstIndex { $0.name == name })
        let record = s.bootstrap.tocOffset + 8 + 32 * k
        Support.putU64(&bytes, record + 16, UInt64(bytes.count))
        Support.putU64(&bytes, record + 24, UInt64(body.count))
        return bytes + body
    }

    static func result(_ name: String, _ body: [UInt8]) throws -> (layer: SdfLayer?, error: USDParseError?) {
        let bytes = try replacing(name, with: body)
        do {
            return (try Support.read(bytes), nil)
        } catch let e as USDParseError {
            return (nil, e)
        }
    }

    static func tokens(_ text: [UInt8], count: Int) -> [UInt8] {
        let s = stream(text)
        return u64(count) + u64(text.count) + u64(s.count) + s
    }

    static let exampleText = CrateStructureTests.exampleTokens.flatMap { (t: String) -> [UInt8] in Array(t.utf8) + [0] }

    @Test func rewrittenSectionsReadLikeTheOriginal() throws {
        #expect(try Self.result("TOKENS", Self.tokens(Self.exampleText, count: 11)).layer?.specs.count == 3)
        #expect(try Self.result("SPECS", Self.u64(3) + Self.ints([0, 1, 2]) + Self.ints([0, 2, 6])
                                + Self.ints([7, 6, 1])).layer?.specs.count == 3)
    }

    @Test func tokensMustMatchTheirCountAndMayBeRepairedUTF8() throws {
        #expect(try Self.result("TOKENS", Self.tokens(Self.exampleText, count: 12)).error?.code == .corrupt)
        #expect(try Self.result("TOKENS", Self.tokens(Self.exampleText + [0x41], count: 11)).error?.code == .corrupt)
        #expect(try Self.result("TOKENS", Self.tokens(Array(Self.exampleText.dropLast()), count: 11)).error?.code
                == .corrupt)
        var text = Self.exampleText
        text[0] = 0xFF  // ";-)" becomes invalid UTF-8
        let repaired = try Self.result("TOKENS", Self.tokens(text, count: 11))
        #expect(repaired.layer?.warnings == ["1 tokens are not valid UTF-8 and were repaired"])
    }

    @Test func stringsMustReferToTokens() throws {
        let e = try Self.result("STRINGS", Self.u64(1) + [99, 0, 0, 0]).error
        #expect(e?.code == .corrupt)
        #expect(e?.section == "STRINGS")
        #expect(try Self.result("STRINGS", Self.u64(2) + [1, 0, 0, 0]).error?.code == .truncated)
    }

    @Test func fieldNamesMustReferToTokens() throws {
        let reps = [UInt8](repeating: 0, count: 48)
        let repsStream = Self.stream(reps)
        let e = try Self.result("FIELDS", Self.u64(6) + Self.ints([3, 4, 6, 8, 6, 11]) + Self.u64(repsStream.count)
                                + repsStream).error
        #expect(e?.code == .corrupt)
        #expect(e?.section == "FIELDS")
        // Value reps that decompress to a size other than numFields × 8.
        let shortReps = Self.stream([UInt8](repeating: 0, count: 40))
        #expect(try Self.result("FIELDS", Self.u64(6) + Self.ints([3, 4, 6, 8, 6, 10]) + Self.u64(shortReps.count)
                                + shortReps).error?.code == .decompressionFailed)
    }

    @Test func fieldSetsMustReferToFieldsAndEndWithATerminator() throws {
        let end = Self.end
        #expect(try Self.result("FIELDSETS", Self.u64(9) + Self.ints([0, end, 1, 2, 3, end, 4, 5, end])).layer != nil)
        #expect(try Self.result("FIELDSETS", Self.u64(9) + Self.ints([0, end, 1, 2, 3, end, 4, 6, end])).error?.code
                == .corrupt)
        #expect(try Self.result("FIELDSETS", Self.u64(9) + Self.ints([0, end, 1, 2, 3, end, 4, 5, 5])).error?.code
                == .corrupt)
    }

    @Test func specsAreValidated() throws {
        func specs(_ paths: [Int32], _ sets: [Int32], _ types: [Int32]) throws -> USDParseError? {
            try Self.result("SPECS", Self.u64(paths.count) + Self.ints(paths) + Self.ints(sets) + Self.ints(types)).error
        }
        let cases: [(String, [Int32], [Int32], [Int32])] = [
            ("spec type 12", [0, 1, 2], [0, 2, 6], [7, 6, 12]),
            ("spec type 0", [0, 1, 2], [0, 2, 6], [7, 6, 0]),
            ("field set index inside a run", [0, 1, 2], [0, 3, 6], [7, 6, 1]),
            ("field set index out of range", [0, 1, 2], [0, 2, 9], [7, 6, 1]),
            ("path index out of range", [0, 1, 3], [0, 2, 6], [7, 6, 1]),
            ("duplicate spec path", [0, 1, 1], [0, 2, 6], [7, 6, 1]),
        ]
        for (name, p, f, t) in cases {
            let e = try specs(p, f, t)
            #expect(e?.code == .corrupt, "\(name)")
            #expect(e?.section == "SPECS", "\(name)")
        }
        // Block counts that disagree with numSpecs.
        #expect(try Self.result("SPECS", Self.u64(3) + Self.ints([0, 1, 2, 3, 4]) + Self.ints([0, 2, 6])
                                + Self.ints([7, 6, 1])).error?.code == .corrupt)
    }

    @Test func specsOnTheEmptyPathAreRejected() throws {
        // Four path slots, three encoded: slot 3 stays the empty path.
        let paths = Self.u64(4) + Self.u64(3) + Self.ints([0, 1, 2]) + Self.ints([1, 2, -7]) + Self.ints([-1, -1, -2])
        var bytes = try Self.replacing("PATHS", with: paths)
        #expect(try Support.read(bytes).specs.count == 3)
        let s = try Support.structure(bytes)
        #expect(s.tables.paths.last == .empty)
        let specs = Self.u64(3) + Self.ints([0, 1, 3]) + Self.ints([0, 2, 6]) + Self.ints([7, 6, 1])
        let k = try #require(s.toc.sections.firstIndex { $0.name == "SPECS" })
        Support.putU64(&bytes, s.bootstrap.tocOffset + 8 + 32 * k + 16, UInt64(bytes.count))
        Support.putU64(&bytes, s.bootstrap.tocOffset + 8 + 32 * k + 24, UInt64(specs.count))
        bytes += specs
        let e = CrateTestSupport.parseError { _ = try Support.read(bytes) }
        #expect(e?.code == .corrupt)
        #expect(e?.message.contains("invalid path index 3") == true)
    }
}
