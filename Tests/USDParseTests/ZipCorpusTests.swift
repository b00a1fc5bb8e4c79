import Foundation
import Testing
@testable import USDParse

/// Every `.usdz` of the shared corpus against what usd-core 26.11 reports (USD_CORE_ANALYSIS.json).
@Suite(.enabled(if: ZipTestFiles.corpusAvailable, "corpus not found at ../shared/corpus"))
struct ZipCorpusTests {
    struct Expected: Sendable, CustomTestStringConvertible {
        var file: String
        var zip: [(name: String, size: Int, compress: Int, align64: Bool)]
        var openError: String?
        var textures: [String]
        var testDescription: String { file }
    }

    static let packages: [Expected] = {
        guard ZipTestFiles.corpusAvailable,
              let data = try? Data(contentsOf: ZipTestFiles.corpus.appendingPathComponent("USD_CORE_ANALYSIS.json")),
              let list = try? JSONSerialization.jsonObject(with: data) as? [[String: Any]]
        else { return [] }
        return list.compactMap { item -> Expected? in
            guard let file = item["file"] as? String, file.hasSuffix(".usdz") else { return nil }
            let zip = (item["zip"] as? [[String: Any]] ?? []).map {
                (name: $0["name"] as? String ?? "", size: $0["size"] as? Int ?? -1,
                 compress: $0["compress"] as? Int ?? -1, align64: $0["align64"] as? Bool ?? false)
            }
            return Expected(file: file, zip: zip, openError: item["open_error"] as? String,
                            textures: item["textures"] as? [String] ?? [])
        }.sorted { $0.file < $1.file }
    }()

    static func bytes(_ file: String) throws -> [UInt8] {
        try ZipTestFiles.bytes(ZipTestFiles.corpus.appendingPathComponent(file))
    }

    @Test func corpusHasEveryPackage() throws {
        #expect(Self.packages.count >= 23)
        let onDisk = FileManager.default.enumerator(atPath: ZipTestFiles.corpus.path)?
            .compactMap { $0 as? String }.filter { $0.hasSuffix(".usdz") } ?? []
        #expect(Set(onDisk) == Set(Self.packages.map(\.file)))
    }

    @Test(arguments: packages)
    func entryListMatchesUsdCore(_ expected: Expected) throws {
        let limits = ParseLimits.default
        let archive = try ZipArchive(ByteView(try Self.bytes(expected.file)), limits: limits,
                                 budget: MemoryBudget(limits: limits))
        #expect(archive.entries.map(\.name) == expected.zip.map(\.name))
        #expect(archive.entries.map(\.uncompressedSize) == expected.zip.map(\.size))
        #expect(archive.entries.map { Int($0.method) } == expected.zip.map(\.compress))
        for (entry, z) in Swift.zip(archive.entries, expected.zip) {
            #expect((entry.dataOffset % 64 == 0) == z.align64, "\(entry.name)")
            let data = try archive.data(of: entry)
            #expect(data.count == z.size)
        }
        #expect(!archive.warnings.contains { $0.hasPrefix("ZIP_CRC_MISMATCH") }, "\(archive.warnings)")
        #expect(!archive.warnings.contains { $0.hasPrefix("ZIP_NO_CENTRAL_DIRECTORY") })
    }

    @Test(arguments: packages)
    func rootLayerMatchesUsdCore(_ expected: Expected) throws {
        let view = ByteView(try Self.bytes(expected.file))
        let budget = MemoryBudget(limits: .default)
        if expected.openError != nil {
            // usd-core refuses these packages: the first entry is not a USD layer.
            expectZipError(.noRootLayer) { _ = try USDZPackage.open(view, limits: .default, budget: budget) }
            return
        }
        let package = try USDZPackage.open(view, limits: .default, budget: budget)
        let first = try #require(expected.zip.first?.name)
        if first.hasSuffix(".usdz") {
            #expect(package.rootLayerPath.hasPrefix(first + "["))
        } else {
            #expect(package.rootLayerPath == first)
        }
        let root = try package.data(at: package.rootLayerPath)
        #expect(root.hasPrefix(Array("#usda".utf8)) || root.hasPrefix(Array("PXR-USDC".utf8)))
        for texture in expected.textures {
            #expect(package.resolve(texture, anchor: package.rootLayerPath) != nil, "\(texture)")
        }
    }

    /// Every `@asset@` authored in a text layer of a package that usd-core opens resolves to an entry,
    /// except those usd-core could not resolve either.
    @Test(arguments: packages.filter { $0.openError == nil })
    func authoredAssetPathsResolve(_ expected: Expected) throws {
        let package = try USDZPackage.open(ByteView(try Self.bytes(expected.file)), limits: .default,
                                           budget: MemoryBudget(limits: .default))
        let unresolvedByUsdCore: Set<String> = [
            "refs/texture.jpg", "refs/world.usd", "./udim_tex_<UDIM>_.foo.bar.baz",
        ]
        var layers = [package.rootLayerPath]
        var seen: Set<String> = []
        while let layer = layers.popLast() {
            guard seen.insert(layer).inserted, seen.count < 500 else { continue }
            let text = ZipTestFiles.text(try package.data(at: layer))
            guard text.hasPrefix("#usda") else { continue }
            for asset in Self.assetPaths(in: text) where !unresolvedByUsdCore.contains(asset) {
                let resolved = package.resolve(asset, anchor: layer)
                #expect(resolved != nil, "\(asset) in \(layer)")
                if let resolved, [".usda", ".usd", ".usdc"].contains(where: { resolved.hasSuffix($0) }) {
                    layers.append(resolved)
                }
            }
            for asset in Self.assetPaths(in: text) where unresolvedByUsdCore.contains(asset) {
                #expect(package.resolve(asset, anchor: layer) == nil, "\(asset)")
            }
        }
        #expect(!seen.isEmpty)
    }

    @Test(.enabled(if: ZipTestFiles.corpusAvailable)) func nestedAnchoredReferences() throws {
        let package = try USDZPackage.open(
            ByteView(try Self.bytes("usd/openusd/nested_anchored_refs.usdz")), limits: .default,
            budget: MemoryBudget(limits: .default))
        #expect(package.rootLayerPath == "anchored_refs.usdz[root.usd]")
        let ref = try #require(package.resolve("./ref.usd", anchor: package.rootLayerPath))
        #expect(ref == "anchored_refs.usdz[ref.usd]")
        // The path usd-core reports in its warning: nested_anchored_refs.usdz[anchored_refs.usdz[sub/ref.usdc]].
        let crate = try #require(package.resolve("./sub/ref.usdc", anchor: ref))
        #expect(crate == "anchored_refs.usdz[sub/ref.usdc]")
        #expect(try package.data(at: crate).hasPrefix(Array("PXR-USDC".utf8)))
        #expect(package.resolve("./sub/ref.usda", anchor: ref) == "anchored_refs.usdz[sub/ref.usda]")
    }

    /// `@…@` asset paths of a USDA text (good enough for the corpus layers; not a USDA parser).
    static func assetPaths(in text: String) -> [String] {
        var result: [String] = []
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "@") {
            let after = rest.index(after: open)
            if rest[after...].hasPrefix("@@") {  // @@@ triple-quoted asset paths are not used in the corpus
                rest = rest[rest.index(after, offsetBy: 2)...]
                continue
            }
            guard let close = rest[after...].firstIndex(of: "@") else { break }
            let path = String(rest[after..<close])
            if !path.contains("\n") { result.append(path) }
            rest = rest[rest.index(after: close)...]
        }
        return result
    }
}
