import Foundation
import Testing
@testable import USDParse

/// Hostile-input sweeps: every prefix and thousands of seeded byte flips of small packages must
/// either open or end in a `USDParseError` (typed throws make any other error impossible); a trap
/// would crash the test process.
@Suite struct ZipRobustnessTests {
    static let samples = ["stored_deflated.usdz", "zip64.usdz", "nested.usdz"]

    /// The codes a package can fail to open with: the archive's own, and reading the root layer's
    /// bytes or a nested package. `USD_CORRUPT`, `USD_SYNTAX` and the like belong to layers, which
    /// opening never parses.
    static let openingCodes: Set<USDParseError.Code> = [
        .zipInvalid, .zipUnsafeName, .zipUnsupported, .truncated, .limitExceeded, .noRootLayer,
        .decompressionFailed, .memoryBudgetExceeded,
    ]

    static var limits: ParseLimits {
        var l = ParseLimits()
        l.maxUncompressedBytes = 1 << 20
        return l
    }

    /// Opens `bytes` as an archive and as a package and reads everything reachable.
    /// Returns true when the package opened.
    @discardableResult
    static func exercise(_ bytes: [UInt8]) -> Bool {
        let view = ByteView(bytes)
        if let zip = try? ZipArchive(view, limits: limits, budget: MemoryBudget(limits: limits)) {
            for entry in zip.entries { _ = try? zip.data(of: entry) }
            _ = zip.warnings
        }
        let package: USDZPackage
        do {
            package = try USDZPackage.open(view, limits: limits, budget: MemoryBudget(limits: limits))
        } catch {
            #expect(error.format == .usdz, "a package that does not open fails as a package: \(error)")
            #expect(openingCodes.contains(error.code), "\(error)")
            return false
        }
        for name in package.entryNames {
            _ = try? package.data(at: name)
            if name.hasSuffix(".usdz") {
                for inner in ["textures/in.png", "deeper.usdz[d.png]", "inner.usda"] {
                    let path = name + "[" + inner + "]"
                    if package.contains(path) { _ = try? package.data(at: path) }
                }
            }
        }
        for asset in ["./tex.png", "inner.usdz[deeper.usdz[d.png]]", "../x", "notes.txt", "TEX/OUTER.PNG"] {
            if let p = package.resolve(asset, anchor: package.rootLayerPath) { _ = try? package.data(at: p) }
        }
        _ = try? package.data(at: package.rootLayerPath)
        return true
    }

    @Test(arguments: samples)
    func everyPrefixOpensOrThrows(_ file: String) throws {
        let bytes = try ZipTestFiles.fixture(file)
        var opened = 0
        for length in 0...bytes.count where Self.exercise(Array(bytes[0..<length])) { opened += 1 }
        #expect(opened >= 1, "at least the complete file opens")
        #expect(Self.exercise(bytes))
    }

    @Test func seededByteFlipsOpenOrThrow() throws {
        let files = try Self.samples.map { try ZipTestFiles.fixture($0) } + [try ZipTestFiles.fixture("contains_itself.usdz")]
        var rng = SplitMix64(seed: 0x5EED_2024)
        var opened = 0
        // ZIP_FUZZ_ROUNDS raises the count for a longer local run.
        let rounds = ProcessInfo.processInfo.environment["ZIP_FUZZ_ROUNDS"].flatMap { Int($0) } ?? 2_000
        for round in 0..<rounds {
            var bytes = files[round % files.count]
            let flips = 1 + Int(rng.next() % 3)
            for _ in 0..<flips {
                let at = Int(rng.next() % UInt64(bytes.count))
                if rng.next() % 2 == 0 {
                    bytes[at] ^= UInt8(1) << (rng.next() % 8)
                } else {
                    bytes[at] = UInt8(truncatingIfNeeded: rng.next())
                }
            }
            if Self.exercise(bytes) { opened += 1 }
        }
        #expect(opened > 0 && opened < rounds, "some mutations survive, some are rejected (\(opened))")
    }

    @Test func hostileSizesAndOffsetsAreRejected() throws {
        // Overwrite each 32-bit size/offset field of the central record with extreme values.
        let original = try ZipTestFiles.fixture("stored_deflated.usdz")
        let cd = try #require(Self.lastIndex(of: [0x50, 0x4B, 0x01, 0x02], in: original))
        let nameLength = Int(original[cd + 28]) | Int(original[cd + 29]) << 8
        let name = String(decoding: original[(cd + 46)..<(cd + 46 + nameLength)], as: UTF8.self)
        func field32(_ bytes: [UInt8], _ at: Int) -> UInt32 { (0..<4).reduce(0) { $0 | UInt32(bytes[at + $1]) << (8 * UInt32($1)) } }
        // The entry's data can never be read with a compressed size, size or local header offset
        // other than its own: the archive is refused, or reading the entry throws a typed error.
        var refusals: [String: Int] = [:], tried = 0
        for field in [20, 24, 42] {
            for value: UInt32 in [0, 1, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFE, 0xFFFF_FFFF] where value != field32(original, cd + field) {
                var bytes = original
                for i in 0..<4 { bytes[cd + field + i] = UInt8(truncatingIfNeeded: value >> (8 * UInt32(i))) }
                Self.exercise(bytes)
                tried += 1
                let view = ByteView(bytes)
                do {
                    let package = try USDZPackage.open(view, limits: Self.limits, budget: MemoryBudget(limits: Self.limits))
                    let data = try package.data(at: name)
                    Issue.record("field \(field) = \(value): \(name) read as \(data.count) bytes")
                } catch {
                    refusals[error.code.rawValue, default: 0] += 1
                }
            }
        }
        #expect(tried >= 15 && refusals.values.reduce(0, +) == tried, "\(refusals) of \(tried)")
        let expected: [USDParseError.Code] = [.zipInvalid, .truncated, .decompressionFailed, .limitExceeded, .memoryBudgetExceeded]
        #expect(Set(refusals.keys).isSubset(of: expected.map(\.rawValue)), "\(refusals)")
        // And the end record's count, size and offset.
        let end = original.count - 22
        for field in [8, 10, 12, 16] {
            for value: UInt32 in [0, 0xFFFF, 0xFFFF_FFFF] {
                var bytes = original
                let width = field < 12 ? 2 : 4
                for i in 0..<width { bytes[end + field + i] = UInt8(truncatingIfNeeded: value >> (8 * UInt32(i))) }
                Self.exercise(bytes)
            }
        }
    }

    static func lastIndex(of pattern: [UInt8], in bytes: [UInt8]) -> Int? {
        guard bytes.count >= pattern.count else { return nil }
        for i in stride(from: bytes.count - pattern.count, through: 0, by: -1)
        where Array(bytes[i..<(i + pattern.count)]) == pattern {
            return i
        }
        return nil
    }
}
