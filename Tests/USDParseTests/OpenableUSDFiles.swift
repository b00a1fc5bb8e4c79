import Foundation
import TestSupport

@testable import USDParse

/// A USD file of the repository's fixtures and samples or of the shared corpus that opens: its
/// name, its stage and a texture loader reading from its package or folder.
struct OpenableUSDFile {
    var file: String
    var opened: USDParser.OpenedStage
    var load: @Sendable (String, String) -> [UInt8]?

    /// Calls `body` with every file of the fixtures, the samples and `corpusSubfolder` of the
    /// shared corpus (when present) that opens, in folder order, then name order, one at a time.
    /// - Returns: whether the corpus folder was present.
    @discardableResult
    static func forEach(corpusSubfolder: String, _ body: (OpenableUSDFile) throws -> Void) rethrows -> Bool {
        let root = TestPaths.packageRoot
        var dirs = [root.appendingPathComponent("Tests/Fixtures"), root.appendingPathComponent("samples")]
        let corpus = root.appendingPathComponent("../shared/corpus/" + corpusSubfolder).standardizedFileURL
        if FileManager.default.fileExists(atPath: corpus.path) { dirs.append(corpus) }
        for dir in dirs {
            let files = FileManager.default.enumerator(atPath: dir.path)?.compactMap { $0 as? String } ?? []
            for file in files.sorted() where ["usda", "usdc", "usdz", "usd"].contains((file as NSString).pathExtension) {
                let url = dir.appendingPathComponent(file)
                guard let data = FileManager.default.contents(atPath: url.path),
                    let opened = try? USDParser.openStage([UInt8](data), name: url.lastPathComponent)
                else { continue }
                let provider = opened.provider
                let load: @Sendable (String, String) -> [UInt8]? = { p, layer in
                    provider.resolve(p, anchor: layer).flatMap { try? provider.data(at: $0).array }
                }
                try body(OpenableUSDFile(file: file, opened: opened, load: load))
            }
        }
        return dirs.count == 3
    }
}
