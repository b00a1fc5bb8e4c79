import Foundation
import Testing

@testable import USDParse

/// Inputs of a few kilobytes that declare gigabytes of work (Tests/Fixtures/adversarial, written by
/// scripts/gen-adversarial-fixtures.py) must be refused by a size check before the work is done.
@Suite struct ResourceBoundTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/adversarial")

    static func fixture(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: fixtures.appendingPathComponent(name)))
    }

    /// The error `USDParser.parseScene` throws for the fixture (nil, and a failure, when none).
    static func sceneError(_ name: String, limits: ParseLimits = .default) throws -> USDParseError? {
        let bytes = try fixture(name)
        do {
            _ = try USDParser.parseScene(bytes, name: name, limits: limits)
            Issue.record("\(name) parsed")
        } catch let e as USDParseError {
            return e
        }
        return nil
    }

    @Test func deflatedEntryOverMaxInputBytesIsRefusedBeforeInflating() throws {
        // 260 KB of deflate that really inflates to 256 MiB; the declared size alone is refused.
        let archive = try ZipArchive(
            ByteView(try Self.fixture("zip-deflate-honest.usdz")), limits: .default, budget: MemoryBudget(limits: .default))
        let entry = try #require(archive.entries.first)
        let error = expectZipError(.limitExceeded) { _ = try archive.data(of: entry) }
        #expect(error?.message.contains("maxInputBytes") == true)
        #expect(error?.section == "root.usda")
    }

    @Test func deepPathChainIsCappedByMaxPathStringBytes() throws {
        // Root, then a chain /A/A/A… of 39 prims: about 2 + 4 + … + 78 = 1,560 bytes of path text.
        let n = 40
        let slots = (0..<UInt32(n)).map { $0 }
        let tokens: [Int32] = [0] + Array(repeating: 1, count: n - 1)
        let jumps: [Int32] = Array(repeating: -1, count: n - 1) + [-2]
        func build(_ cap: Int) throws(USDParseError) -> [SdfPath] {
            try CratePathTree.build(
                pathIndexes: slots, elementTokens: tokens, jumps: jumps, numPaths: n, tokens: ["", "A"],
                budget: MemoryBudget(limits: .default), maxPathStringBytes: cap)
        }
        #expect(try build(2_000).last?.string.utf8.count == 2 * (n - 1))
        do {
            _ = try build(1_000)
            Issue.record("the chain was built past its cap")
        } catch {
            #expect(error.code == .limitExceeded)
            #expect(error.message.contains("maxPathStringBytes"))
        }
        let e = try Self.sceneError("crate-deep-path-chain.usdc")
        #expect(e?.code == .limitExceeded)
        #expect(e?.message.contains("maxPathStringBytes") == true)
    }

    @Test func meshArraysClaimingTooManyTrianglesAreRefusedBeforeDecoding() throws {
        // 50 M faces and 150 M indices in ~200 KB of compressed int arrays.
        let e = try Self.sceneError("crate-50m-triangles.usdc")
        #expect(e?.code == .limitExceeded)
        #expect(e?.message.contains("maxTriangles") == true)
        #expect(e?.primPath == "/M")
    }

    @Test func textureHeadersGiveTheirDeclaredSize() throws {
        let png = try Self.fixture("png-30000.usdz")
        let archive = try ZipArchive(ByteView(png), limits: .default, budget: MemoryBudget(limits: .default))
        let pngEntry = try #require(archive.entry(named: "textures/huge.png"))
        #expect(TextureHeader.declaredSize(try archive.data(of: pngEntry).array)! == (30000, 30000))
        let jpeg = try ZipArchive(
            ByteView(try Self.fixture("jpeg-30000.usdz")), limits: .default, budget: MemoryBudget(limits: .default))
        let jpegEntry = try #require(jpeg.entry(named: "textures/huge.jpg"))
        #expect(TextureHeader.declaredSize(try jpeg.data(of: jpegEntry).array)! == (30000, 30000))
        // Truncated and foreign headers give nil, never a read past the end.
        let bytes = try jpeg.data(of: jpegEntry).array
        for n in 0..<bytes.count { _ = TextureHeader.declaredSize(Array(bytes.prefix(n))) }
        #expect(TextureHeader.declaredSize(Array("GIF89a".utf8)) == nil)
    }

    @Test(arguments: ["png-30000.usdz", "jpeg-30000.usdz"])
    func oversizedTexturesAreRefused(_ name: String) throws {
        let e = try Self.sceneError(name)
        #expect(e?.code == .limitExceeded)
        #expect(e?.message.contains("maxTextureDimension") == true)
        var limits = ParseLimits.default
        limits.maxTextureDimension = 30_000
        _ = try USDParser.parseScene(try Self.fixture(name), name: name, limits: limits)
    }
}
