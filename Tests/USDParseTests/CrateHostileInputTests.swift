import Testing
@testable import USDParse

/// Truncation and corruption sweeps, hostile counts and self-referential values: every input must
/// end in a `USDParseError` (or a successful read) and never trap; a hostile count is refused
/// before the data it announces is decoded (the memory budget's counters show what was charged).
@Suite struct CrateHostileInputTests {
    typealias Support = CrateTestSupport
    static let sweepFixtures = ["mesh-0.8.0.usdc", "rich-0.8.0.usdc", "newer-0.16.0.usdc", "unsupported-0.14.0.usdc",
                                "basic-0.4.0.usdc"]

    static func readError(_ bytes: [UInt8], limits: ParseLimits = .default) -> USDParseError? {
        Support.parseError { _ = try Support.read(bytes, limits: limits) }
    }

    static func section(_ bytes: [UInt8], _ name: String) throws -> CrateSection {
        try #require(try Support.structure(bytes).toc.section(name))
    }

    /// The error reading `bytes`, and the bytes of decoded and of decompressed data the reader
    /// charged to its memory budget before it stopped.
    static func refusal(_ bytes: [UInt8], limits: ParseLimits = .default)
        -> (error: USDParseError?, decoded: Int, decompressed: Int)
    {
        let budget = MemoryBudget(limits: limits)
        let e = Support.parseError { _ = try Support.read(bytes, limits: limits, budget: budget) }
        return (e, budget.used, budget.decompressed)
    }

    /// More than reading a whole fixture charges (basic-0.8.0.usdc, the largest: about 25 KB
    /// decoded, 6 KB decompressed). A count past its cap is refused before its data is decoded,
    /// so refusing it charges no more than this either.
    static let fixtureCharge = 64 << 10

    // MARK: Sweeps

    @Test(arguments: sweepFixtures)
    func everyPrefixThrows(fixture: String) throws {
        let bytes = try Support.fixture(fixture)
        for n in 0..<bytes.count {
            #expect(Self.readError(Array(bytes.prefix(n))) != nil, "\(fixture) prefix \(n)")
        }
    }

    @Test(arguments: sweepFixtures)
    func everyShortenedSectionThrows(fixture: String) throws {
        let bytes = try Support.fixture(fixture)
        let s = try Support.structure(bytes)
        for (k, section) in s.toc.sections.enumerated() {
            let sizeAt = s.bootstrap.tocOffset + 8 + 32 * k + 24
            for size in 0..<section.size {
                var patched = bytes
                Support.putU64(&patched, sizeAt, UInt64(size))
                let e = Self.readError(patched)
                #expect(e != nil, "\(fixture) \(section.name) shortened to \(size)")
                if let e { #expect(e.format == .usdc && e.section == section.name) }
            }
        }
    }

    @Test func seededByteFlipsReadOrThrowTypedErrors() throws {
        let inputs = try Self.sweepFixtures.map { try Support.fixture($0) }
        var rng = SplitMix64(seed: 0xC0FFEE)
        var failures = 0, largestCharge = 0
        for _ in 0..<2_000 {
            var bytes = inputs[Int(rng.next() % UInt64(inputs.count))]
            let at = Int(rng.next() % UInt64(bytes.count))
            bytes[at] ^= UInt8(truncatingIfNeeded: rng.next() % 255 + 1)
            let budget = MemoryBudget(limits: .default)
            do {
                _ = try Support.read(bytes, budget: budget)
            } catch is USDParseError {
                failures += 1
            }
            largestCharge = max(largestCharge, budget.used + budget.decompressed)
        }
        // Most flips land in value data or padding; a good share must still be detected.
        #expect(failures > 100)
        // With this seed no flipped read charges more than a whole fixture's: a change that
        // decoded on a corrupt count's word would show here.
        #expect(largestCharge <= Self.fixtureCharge, "\(largestCharge) bytes charged by one read")
    }

    // MARK: Hostile counts

    @Test func hugeStructuralCountsAreLimitErrors() throws {
        let bytes = try Support.fixture("basic-0.8.0.usdc")
        for name in ["TOKENS", "STRINGS", "FIELDS", "FIELDSETS", "PATHS", "SPECS"] {
            var patched = bytes
            let section = try Self.section(bytes, name)
            Support.putU64(&patched, section.start, UInt64.max)
            let (e, decoded, _) = Self.refusal(patched)
            #expect(e?.code == .limitExceeded, "\(name)")
            #expect(e?.section == name)
            #expect(e?.format == .usdc)
            #expect(e?.layer == "test.usdc")
            #expect(e.flatMap(\.byteOffset).map { (section.start..<(section.start + section.size)).contains($0) } == true,
                    "\(name): the offset reported lies in the section")
            #expect(decoded <= Self.fixtureCharge, "\(name): \(decoded) bytes decoded before the refusal")
        }
        var patched = bytes
        let toc = try Support.structure(bytes).bootstrap.tocOffset
        Support.putU64(&patched, toc, UInt64.max)
        #expect(Self.readError(patched)?.code == .limitExceeded)
        #expect(Self.readError(patched)?.section == "TOC")
    }

    @Test func tokensUncompressedSizeOfTwoToTheFortyIsRefused() throws {
        var bytes = try Support.fixture("mesh-0.8.0.usdc")
        Support.putU64(&bytes, 0x9C + 8, 1 << 40)
        let (e, _, decompressed) = Self.refusal(bytes)
        #expect(e?.code == .decompressionFailed)
        #expect(e?.section == "TOKENS")
        #expect(decompressed <= bytes.count, "refused before inflating: \(decompressed) bytes decompressed")
        var limits = ParseLimits()
        limits.maxUncompressedBytes = 10
        #expect(Self.readError(try Support.fixture("mesh-0.8.0.usdc"), limits: limits)?.code == .limitExceeded)
    }

    @Test func encodedPathCountLargerThanTheTableIsCorrupt() throws {
        var bytes = try Support.fixture("mesh-0.8.0.usdc")
        Support.putU64(&bytes, 0x179 + 8, UInt64.max)
        #expect(Self.readError(bytes)?.code == .corrupt)
    }

    @Test func arrayCountsAreCheckedBeforeAllocating() throws {
        var bytes = try Support.fixture("mesh-0.8.0.usdc")
        Support.putU64(&bytes, 0x70, UInt64.max)  // Vec3f[] count of /M.points
        let (e, decoded, _) = Self.refusal(bytes)
        #expect(e?.code == .limitExceeded)
        #expect(e?.section == "VALUES")
        #expect(e?.primPath == "/M.points")
        #expect(decoded <= Self.fixtureCharge, "\(decoded) bytes decoded before the refusal")
        Support.putU64(&bytes, 0x70, 1_000_000)  // under the cap but past the end of the file
        #expect(Self.readError(bytes)?.code == .truncated)
    }

    // MARK: Dictionaries and time samples

    @Test func dictionaryWithHugeCountOrSelfPointingJumpFails() throws {
        let bytes = try Support.fixture("basic-0.8.0.usdc")
        let rep = try #require(Support.rep(try Support.structure(bytes), "/", "customLayerData"))
        #expect(rep.typeByte == CrateType.dictionary.rawValue)
        let p = Int(rep.payload)

        var huge = bytes
        Support.putU64(&huge, p, UInt64.max)
        let hugeRead = Self.refusal(huge)
        #expect(hugeRead.error?.code == .limitExceeded)
        #expect(hugeRead.decoded <= Self.fixtureCharge, "\(hugeRead.decoded) bytes decoded before the refusal")

        // First entry: u32 key at p + 8, i64 jump at p + 12. A jump of 0 points at itself.
        var selfJump = bytes
        Support.putU64(&selfJump, p + 12, 0)
        let e = Self.readError(selfJump)
        #expect(e?.code == .corrupt)
        #expect(e?.section == "VALUES")
        #expect(e?.primPath == "/")
        var backwards = bytes
        Support.putU64(&backwards, p + 12, UInt64(bitPattern: -12))
        #expect(Self.readError(backwards)?.code == .corrupt)

        // The first entry's value rep replaced by the dictionary's own rep: a self-containing value.
        var cyclic = bytes
        let jump = Int(Support.u64(bytes, p + 12))
        Support.putU64(&cyclic, p + 12 + jump, rep.raw)
        let cycle = Self.readError(cyclic)
        #expect(cycle?.code == .corrupt)
        #expect(cycle?.message.contains("contains itself") == true)
    }

    @Test func valueNestingIsCappedByMaxValueDepth() throws {
        var limits = ParseLimits()
        limits.maxValueDepth = 1
        let e = Self.readError(try Support.fixture("basic-0.8.0.usdc"), limits: limits)
        #expect(e?.code == .limitExceeded)
        #expect(e?.message.contains("maxValueDepth") == true)
    }

    @Test func timeSamplesWithMismatchedCountsOrBadTimesFail() throws {
        let bytes = try Support.fixture("basic-0.8.0.usdc")
        let rep = try #require(Support.rep(try Support.structure(bytes), "/Root.anim", "timeSamples"))
        let p0 = Int(rep.payload)
        let timesRepAt = p0 + Int(Support.u64(bytes, p0))
        let p1 = timesRepAt + 8
        let p2 = p1 + Int(Support.u64(bytes, p1))
        #expect(Support.u64(bytes, p2) == 3)

        var mismatch = bytes
        Support.putU64(&mismatch, p2, 2)
        #expect(Self.readError(mismatch)?.code == .corrupt)
        Support.putU64(&mismatch, p2, UInt64.max)
        #expect(Self.readError(mismatch)?.code == .limitExceeded)

        var notDoubles = bytes
        Support.putU64(&notDoubles, timesRepAt, 0x4003_0000_0000_0005)  // inline int 5
        #expect(Self.readError(notDoubles)?.code == .corrupt)

        // The times DoubleVector: u64 count, then the times 0, 10, 20.
        let times = Int(CrateValueRep(Support.u64(bytes, timesRepAt)).payload)
        #expect(Support.u64(bytes, times) == 3)
        var unsorted = bytes
        Support.putU64(&unsorted, times + 8, (30.0).bitPattern)
        let layer = try Support.read(unsorted)
        #expect(layer[SdfPath("/Root.anim")]?["timeSamples"] == .timeSamples(SdfTimeSamples(
            times: [10, 20, 30], values: [.float(2.5), .valueBlock, .float(1)])))
        #expect(layer.warnings.contains { $0.contains("/Root.anim") && $0.contains("sorted") })
        var nan = bytes
        Support.putU64(&nan, times + 16, Double.nan.bitPattern)
        #expect(Self.readError(nan)?.code == .corrupt)
    }

    // MARK: Bootstrap, TOC, budget

    @Test func versionsOutsideTheSupportedRange() throws {
        let bytes = try Support.fixture("mesh-0.8.0.usdc")
        var old = bytes
        old[9] = 3
        let e = Self.readError(old)
        #expect(e?.code == .unsupportedVersion)
        #expect(e?.message.contains("0.3.0") == true)
        var major = bytes
        major[8] = 1
        #expect(Self.readError(major)?.code == .unsupportedVersion)
        var future = bytes
        future[9] = 17
        let layer = try Support.read(future)
        #expect(layer.specs.count == 3)
        #expect(layer.warnings.contains { $0.contains("0.17.0") })
    }

    @Test func badMagicTocAndSectionsAreTypedErrors() throws {
        let bytes = try Support.fixture("mesh-0.8.0.usdc")
        var magic = bytes
        magic[0] = UInt8(ascii: "Q")
        #expect(Self.readError(magic)?.code == .unrecognizedFormat)
        var tocPastEnd = bytes
        Support.putU64(&tocPastEnd, 16, UInt64(bytes.count))
        #expect(Self.readError(tocPastEnd)?.code == .truncated)
        var tocInHeader = bytes
        Support.putU64(&tocInHeader, 16, 8)
        #expect(Self.readError(tocInHeader)?.code == .corrupt)
        var sectionPastEnd = bytes
        Support.putU64(&sectionPastEnd, 0x1F3 + 8 + 16, UInt64(bytes.count - 4))  // TOKENS start
        #expect(Self.readError(sectionPastEnd)?.code == .truncated)
        var sectionInHeader = bytes
        Support.putU64(&sectionInHeader, 0x1F3 + 8 + 16, 4)
        #expect(Self.readError(sectionInHeader)?.code == .corrupt)
        var negativeSize = bytes
        Support.putU64(&negativeSize, 0x1F3 + 8 + 24, UInt64(bitPattern: -1))
        #expect(Self.readError(negativeSize)?.code == .corrupt)
        var missingSpecs = bytes
        missingSpecs[0x1F3 + 8 + 5 * 32 + 4] = UInt8(ascii: "X")  // "SPECS" → "SPECX"
        #expect(Self.readError(missingSpecs)?.code == .corrupt)
        var missingStrings = bytes  // no string values: a missing STRINGS section is an empty table
        missingStrings[0x1F3 + 8 + 32 + 6] = UInt8(ascii: "X")
        #expect(try Support.read(missingStrings).specs.count == 3)
        var limits = ParseLimits()
        limits.maxSections = 2
        #expect(Self.readError(bytes, limits: limits)?.code == .limitExceeded)
        limits = ParseLimits()
        limits.maxInputBytes = 100
        #expect(Self.readError(bytes, limits: limits)?.code == .limitExceeded)
    }

    @Test func memoryBudgetAppliesToDecodedData() throws {
        var limits = ParseLimits()
        limits.memoryBudgetBytes = 2_000
        let e = Self.readError(try Support.fixture("basic-0.8.0.usdc"), limits: limits)
        #expect(e?.code == .memoryBudgetExceeded)
    }

    @Test func structuralLimitsAreNamed() throws {
        let bytes = try Support.fixture("basic-0.8.0.usdc")
        let caps: [(WritableKeyPath<ParseLimits, Int>, String)] = [
            (\.maxTokens, "maxTokens"), (\.maxFields, "maxFields"), (\.maxFieldSets, "maxFieldSets"),
            (\.maxPaths, "maxPaths"), (\.maxSpecs, "maxSpecs"), (\.maxArrayElements, "maxArrayElements"),
            (\.maxDictionaryEntries, "maxDictionaryEntries"), (\.maxTimeSamples, "maxTimeSamples"),
            (\.maxStringLength, "maxStringLength"),
        ]
        for (path, name) in caps {
            var limits = ParseLimits()
            limits[keyPath: path] = 1
            let e = Self.readError(bytes, limits: limits)
            #expect(e?.code == .limitExceeded, "\(name)")
            #expect(e?.message.contains(name) == true, "\(name): \(String(describing: e))")
        }
    }
}
