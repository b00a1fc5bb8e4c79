import Foundation
import Testing
@testable import USDParse
import TestSupport

/// Paths and loaders shared by the zip and package tests.
enum ZipTestFiles {
    /// The package root (`…/Tests/USDParseTests/<file>` → three levels up).
    static let packageRoot = TestPaths.packageRoot
    static let fixtures = packageRoot.appendingPathComponent("Tests/Fixtures/zip")
    static let corpus = packageRoot.appendingPathComponent("../shared/corpus").standardizedFileURL
    static let corpusAvailable = FileManager.default.fileExists(
        atPath: corpus.appendingPathComponent("USD_CORE_ANALYSIS.json").path)

    static func bytes(_ url: URL) throws -> [UInt8] { Array(try Data(contentsOf: url)) }
    static func fixture(_ name: String) throws -> [UInt8] { try bytes(fixtures.appendingPathComponent(name)) }

    static func archive(_ name: String, limits: ParseLimits = .default) throws -> ZipArchive {
        try ZipArchive(ByteView(try fixture(name)), limits: limits, budget: MemoryBudget(limits: limits))
    }

    static func package(_ name: String, limits: ParseLimits = .default) throws -> USDZPackage {
        try USDZPackage.open(ByteView(try fixture(name)), limits: limits, budget: MemoryBudget(limits: limits))
    }

    static func text(_ view: ByteView) -> String { String(decoding: view.array, as: UTF8.self) }
}

/// Runs `body` and returns the `USDParseError` it throws (nil, and a test failure, when it does not).
@discardableResult
func expectZipError(
    _ code: USDParseError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
) -> USDParseError? {
    do {
        try body()
        Issue.record("expected \(code), nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as USDParseError {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected USDParseError \(code), got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

@Suite struct ZipArchiveFixtureTests {
    @Test func storedAndDeflatedEntries() throws {
        let zip = try ZipTestFiles.archive("stored_deflated.usdz")
        #expect(zip.entries.map(\.name) == ["root.usda", "notes.txt"])
        #expect(zip.entries.map(\.method) == [0, 8])
        #expect(zip.warnings.contains { $0.hasPrefix("ZIP_DEFLATED_ENTRY: 'notes.txt'") })
        #expect(!zip.warnings.contains { $0.hasPrefix("ZIP_MISALIGNED_ENTRY") })
        let root = try zip.data(of: zip.entries[0])
        #expect(root.base == zip.entries[0].dataOffset, "stored entries are zero-copy slices")
        #expect(ZipTestFiles.text(root).hasPrefix("#usda 1.0"))
        let notes = try zip.data(of: #require(zip.entry(named: "notes.txt")))
        #expect(ZipTestFiles.text(notes) == String(repeating: "deflate me, ", count: 40))
        #expect(!zip.warnings.contains { $0.hasPrefix("ZIP_CRC_MISMATCH") })
    }

    @Test func zip64RecordsAndExtras() throws {
        let zip = try ZipTestFiles.archive("zip64.usdz")
        #expect(zip.entries.map(\.name) == ["root.usda", "tex.png"])
        #expect(zip.entries.map(\.uncompressedSize) == [24, 9])
        #expect(zip.warnings.contains { $0.hasPrefix("ZIP_ZIP64") })
        #expect(!zip.warnings.contains { $0.hasPrefix("ZIP_MISALIGNED_ENTRY") })
        #expect(ZipTestFiles.text(try zip.data(of: zip.entries[1])) == "PNG:zip64")
    }

    @Test func misalignedEntryIsAcceptedWithWarning() throws {
        let zip = try ZipTestFiles.archive("misaligned.usdz")
        #expect(zip.entries.first?.dataOffset == 39)
        #expect(zip.warnings.contains { $0.hasPrefix("ZIP_MISALIGNED_ENTRY: 'root.usda'") })
    }

    @Test(arguments: [
        ("dotdot_name.usdz", USDParseError.Code.zipUnsafeName, "../evil.usda"),
        ("absolute_name.usdz", .zipUnsafeName, "/etc/evil.usda"),
        ("duplicate_names.usdz", .zipUnsafeName, "root.usda"),
        ("overlapping.usdz", .zipInvalid, "b.png"),
        ("past_eof.usdz", .zipInvalid, "root.usda"),
        ("encrypted.usdz", .zipUnsupported, "root.usda"),
        ("bad_method.usdz", .zipUnsupported, "root.usda"),
        ("name_mismatch.usdz", .zipInvalid, "other.usda"),
    ])
    func invalidArchivesFailWithTypedErrors(file: String, code: USDParseError.Code, entry: String) throws {
        let error = expectZipError(code) { _ = try ZipTestFiles.archive(file) }
        #expect(error?.format == .usdz)
        #expect(error?.section == entry)
        #expect(error?.byteOffset != nil)
        // The package level reports the same error.
        expectZipError(code) { _ = try ZipTestFiles.package(file) }
    }

    @Test func multiDiskArchivesAreUnsupported() throws {
        let error = expectZipError(.zipUnsupported) { _ = try ZipTestFiles.archive("multi_disk.usdz") }
        #expect(error?.format == .usdz)
    }

    @Test func zipBombIsStoppedBeforeAllocation() throws {
        let zip = try ZipTestFiles.archive("zip_bomb.usdz")
        let bomb = try #require(zip.entry(named: "bomb.bin"))
        #expect(bomb.uncompressedSize == 4_000_000_000)
        let error = expectZipError(.limitExceeded) { _ = try zip.data(of: bomb) }
        #expect(error?.section == "bomb.bin")

        // With the decompression cap lifted, the impossible ratio still stops it without allocating.
        var limits = ParseLimits()
        limits.maxUncompressedBytes = Int.max
        let budget = MemoryBudget(limits: limits)
        let open = try ZipArchive(ByteView(try ZipTestFiles.fixture("zip_bomb.usdz")), limits: limits, budget: budget)
        expectZipError(.decompressionFailed) { _ = try open.data(of: bomb) }
    }

    @Test func deflateStreamShorterThanDeclaredFails() throws {
        let zip = try ZipTestFiles.archive("short_deflate.usdz")
        let error = expectZipError(.decompressionFailed) { _ = try zip.data(of: #require(zip.entry(named: "short.txt"))) }
        #expect(error?.section == "short.txt")
        #expect(error?.format == .usdz)
    }

    @Test func missingEndRecordIsRefusedAsTruncated() throws {
        let error = expectZipError(.zipInvalid) { _ = try ZipTestFiles.archive("no_eocd.usdz") }
        #expect(error?.message.contains("truncated") == true)
    }

    @Test func entryCountIsCappedBeforeReading() throws {
        var limits = ParseLimits()
        limits.maxZipEntries = 2
        expectZipError(.limitExceeded) { _ = try ZipTestFiles.archive("nested.usdz", limits: limits) }
    }

    @Test func dataDescriptorUsesCentralSizes() throws {
        let zip = try ZipTestFiles.archive("data_descriptor.usdz")
        #expect(zip.entries.first?.uncompressedSize == 24)
        #expect(zip.warnings.contains { $0.hasPrefix("ZIP_DATA_DESCRIPTOR") })
        #expect(ZipTestFiles.text(try zip.data(of: zip.entries[0])).hasPrefix("#usda"))
    }

    @Test func crcMismatchIsAWarningFoundOnRead() throws {
        let zip = try ZipTestFiles.archive("crc_mismatch.usdz")
        #expect(!zip.warnings.contains { $0.hasPrefix("ZIP_CRC_MISMATCH") })
        let copy = zip
        _ = try zip.data(of: zip.entries[0])
        _ = try zip.data(of: zip.entries[0])
        let crcWarnings = copy.warnings.filter { $0.hasPrefix("ZIP_CRC_MISMATCH: 'root.usda'") }
        #expect(crcWarnings.count == 1, "checked once, visible from every copy")
    }

    @Test func emptyArchiveAndLeadingBytes() throws {
        #expect(try ZipTestFiles.archive("empty.usdz").entries.isEmpty)
        let junk = try ZipTestFiles.archive("junk_prefix.usdz")
        #expect(junk.entries.first?.localHeaderOffset == 64)
        #expect(junk.warnings.contains { $0.hasPrefix("ZIP_LEADING_BYTES") })
    }

    @Test func foreignEntriesAreRefused() throws {
        let zip = try ZipTestFiles.archive("stored_deflated.usdz")
        var forged = zip.entries[0]
        forged.compressedSize = 1 << 40
        expectZipError(.zipInvalid) { _ = try zip.data(of: forged) }
    }

    @Test func inputSizeIsCapped() throws {
        var limits = ParseLimits()
        limits.maxInputBytes = 100
        expectZipError(.limitExceeded) { _ = try ZipTestFiles.archive("nested.usdz", limits: limits) }
    }

    @Test func notAZipFails() throws {
        let text = Array("#usda 1.0\n".utf8)
        expectZipError(.zipInvalid) {
            _ = try ZipArchive(ByteView(text), limits: .default, budget: MemoryBudget(limits: .default))
        }
        expectZipError(.zipInvalid) {
            _ = try ZipArchive(ByteView([]), limits: .default, budget: MemoryBudget(limits: .default))
        }
    }

    @Test func everyFixtureIsCovered() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: ZipTestFiles.fixtures.path)
            .filter { $0.hasSuffix(".usdz") }.sorted()
        let covered: Set<String> = [
            "absolute_name.usdz", "bad_method.usdz", "contains_itself.usdz", "crc_mismatch.usdz",
            "data_descriptor.usdz", "dotdot_name.usdz", "duplicate_names.usdz", "empty.usdz", "encrypted.usdz",
            "first_not_layer.usdz", "junk_prefix.usdz", "misaligned.usdz", "multi_disk.usdz",
            "name_mismatch.usdz", "nested.usdz", "nested_root.usdz", "nested_too_deep.usdz", "no_eocd.usdz", "overlapping.usdz",
            "past_eof.usdz", "resolve.usdz", "short_deflate.usdz", "stored_deflated.usdz", "zip64.usdz",
            "zip_bomb.usdz",
        ]
        #expect(Set(names) == covered)
        for name in names {
            #expect(try ZipTestFiles.fixture(name).count < 4096, "fixtures stay tiny")
        }
    }
}

@Suite struct ZipHelperTests {
    @Test(arguments: [
        ("", true), ("dir\\file", true), ("/abs", true), ("C:x", true), ("c:/x", true),
        ("..", true), ("a/../b", true), ("a/..", true), ("ok/file.usda", false), ("..a/b..", false),
        ("dir/", false), ("é/ü.png", false),
    ])
    func unsafeNames(name: String, unsafe: Bool) {
        #expect((ZipNameValidator.problem(in: Array(name.utf8)) != nil) == unsafe, "\(name)")
    }

    @Test func invalidUTF8AndNULNamesAreUnsafe() {
        #expect(ZipNameValidator.problem(in: [0x61, 0x00, 0x62]) != nil)
        expectZipError(.zipUnsafeName) { _ = try ZipNameValidator.validate([0x61, 0xFF, 0x62], offset: 0) }
    }

    @Test func crc32MatchesKnownValue() {
        #expect(Inflate.crc32(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(Inflate.crc32([UInt8]()) == 0)
        let view = try? ByteView(Array("xx123456789yy".utf8)).slice(2, 9)
        #expect(view.map(Inflate.crc32) == 0xCBF4_3926)
    }

    @Test func inflateEnforcesTheDeclaredSize() throws {
        let zip = try ZipTestFiles.archive("stored_deflated.usdz")
        let entry = try #require(zip.entry(named: "notes.txt"))
        let raw = try zip.view.slice(entry.dataOffset, entry.compressedSize)
        #expect(try Inflate.raw(raw, expectedSize: 480, entry: "n").count == 480)
        expectZipError(.decompressionFailed) { _ = try Inflate.raw(raw, expectedSize: 479, entry: "n") }
        expectZipError(.decompressionFailed) { _ = try Inflate.raw(raw, expectedSize: 481, entry: "n") }
        expectZipError(.decompressionFailed) { _ = try Inflate.raw(ByteView([0xFF, 0xFF]), expectedSize: 4, entry: "n") }
        expectZipError(.decompressionFailed) { _ = try Inflate.raw(ByteView([]), expectedSize: 0, entry: "n") }
    }
}
