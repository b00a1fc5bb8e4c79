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

    /// The PATHS arrays of the root and a chain /N/N/N… `depth` deep.
    static func chain(_ depth: Int) -> (slots: [UInt32], tokens: [Int32], jumps: [Int32]) {
        let n = depth + 1
        return ((0..<UInt32(n)).map { $0 }, [0] + Array(repeating: 1, count: depth),
                Array(repeating: -1, count: depth) + [-2])
    }

    /// Builds the chain and returns its deepest path and the bytes charged to the budget.
    static func buildChain(
        _ depth: Int, name: String = "N", maxPathElementBytes: Int = ParseLimits.default.maxPathElementBytes
    ) throws(USDParseError) -> (last: SdfPath, charged: Int) {
        let c = chain(depth)
        let budget = MemoryBudget(limits: .default)
        let paths = try CratePathTree.build(
            pathIndexes: c.slots, elementTokens: c.tokens, jumps: c.jumps, numPaths: depth + 1, tokens: ["", name],
            budget: budget, maxPathElementBytes: maxPathElementBytes)
        return (paths[depth], budget.used)
    }

    @Test func deepPathChainCostsLinearMemory() throws {
        // 50,000 and 100,000 prims nested in one chain: whole strings would be 2 + 4 + … bytes, about
        // 2.5 GB and 10 GB of path text (past the 1 GiB budget); nodes cost a fixed size per prim.
        let (shallow, charged) = try Self.buildChain(50_000)
        let (deep, chargedTwice) = try Self.buildChain(100_000)
        #expect(Double(chargedTwice) <= 2.2 * Double(charged))
        #expect(chargedTwice <= 100_000 * (SdfPathNode.chargedBytes + 1))
        #expect(shallow.utf8Count == 100_000)
        #expect(deep.utf8Count == 200_000)
        #expect(deep.name == "N" && deep.parent.parent.utf8Count == 199_996)
        // A long name costs its bytes once per entry, not once per descendant.
        let (_, long) = try Self.buildChain(20_000, name: String(repeating: "n", count: 100))
        #expect(long <= 20_000 * (SdfPathNode.chargedBytes + 100))
    }

    @Test func pathElementBytesAreCapped() throws {
        // Root, then a chain /A/A/A… of 39 prims: 39 bytes of element names.
        #expect(try Self.buildChain(39, name: "A", maxPathElementBytes: 39).last.string.utf8.count == 2 * 39)
        do {
            _ = try Self.buildChain(39, name: "A", maxPathElementBytes: 38)
            Issue.record("the chain was built past its cap")
        } catch {
            #expect(error.code == .limitExceeded)
            #expect(error.message.contains("maxPathElementBytes"))
        }
    }

    @Test func deepChainSpellsAtMostMaxPathStringBytesIntoTheScene() throws {
        // 2,000 composed prims nested under 100-byte names: their source paths would spell 200 MB.
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
