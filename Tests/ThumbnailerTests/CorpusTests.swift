import Foundation
import SceneModel
import Testing
import USDParse
@testable import Thumbnailer
import TestSupport

/// Every sample and every valid corpus file renders its hero and plan without non-finite colours
/// and without empty frames. The corpus lives beside the checkout (`../shared/corpus`); without
/// it those cases are skipped.
struct CorpusTests {
    static let packageRoot = TestPaths.packageRoot
    static let corpus = packageRoot.appendingPathComponent("../shared/corpus").standardizedFileURL
    static var corpusAvailable: Bool {
        FileManager.default.fileExists(atPath: corpus.appendingPathComponent("usd").path)
    }

    /// Files usd-core cannot open (`open_error` in USD_CORE_ANALYSIS.json).
    static let refused: Set<String> = {
        guard
            let data = FileManager.default.contents(
                atPath: corpus.appendingPathComponent("USD_CORE_ANALYSIS.json").path),
            let list = try? JSONSerialization.jsonObject(with: data) as? [[String: Any]]
        else { return [] }
        return Set(list.filter { $0["open_error"] != nil }.compactMap { $0["file"] as? String })
    }()

    static func files(under dir: URL, relativeTo root: URL) -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: dir.path) else { return [] }
        var out: [String] = []
        let prefix = String(dir.path.dropFirst(root.path.count)).trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        while let rel = walker.nextObject() as? String {
            let ext = (rel as NSString).pathExtension.lowercased()
            if ["usd", "usda", "usdc", "usdz"].contains(ext) { out.append(prefix.isEmpty ? rel : prefix + "/" + rel) }
        }
        return out.sorted()
    }

    static let sampleFiles: [String] = files(
        under: packageRoot.appendingPathComponent("samples"), relativeTo: packageRoot)
    static let corpusFiles: [String] =
        corpusAvailable
        ? (files(under: corpus.appendingPathComponent("usd"), relativeTo: corpus)
            + files(under: corpus.appendingPathComponent("roomplan/usdz"), relativeTo: corpus)).filter {
                !refused.contains($0)
            }
        : []

    static func check(_ url: URL, name: String) throws {
        let bytes = [UInt8](try Data(contentsOf: url))
        let scene = try USDParser.parseScene(bytes, name: url.lastPathComponent).scene
        let layered = TestScenes.layered(scene)
        var options = ThumbnailOptions()
        options.supersampling = 2
        let context: RenderContext
        do {
            context = try RenderContext(layered, options: options)
        } catch let e as ThumbnailerError {
            // Only a scene without triangles may be empty.
            #expect(e.code == .emptyScene)
            #expect(scene.instancedTriangleCount == 0, "\(name): \(e)")
            return
        }
        let hero = context.planner.heroCamera(width: 160, height: 120).camera
        let h = context.renderScene(camera: hero, width: 160, height: 120, cutaway: true)
        TestScenes.saveDebugImage(
            "corpus-" + name.replacingOccurrences(of: "/", with: "_") + "-hero", rgba: h.rgba,
            width: 160, height: 120)
        #expect(h.nonFinite == 0, "\(name) hero")
        #expect(h.covered > 0, "\(name) hero is empty")
        let plan = context.planner.planCamera(width: 128, height: 128)
        let p = context.renderPlan(camera: plan, width: 128, height: 128).output
        #expect(p.nonFinite == 0, "\(name) plan")
        #expect(p.covered > 0, "\(name) plan is empty")
    }

    @Test(arguments: sampleFiles)
    func sampleRenders(relative: String) throws {
        try Self.check(Self.packageRoot.appendingPathComponent(relative), name: relative)
    }

    @Test(
        .enabled(if: corpusAvailable, "shared corpus not found beside the package (../shared/corpus)"),
        arguments: corpusFiles)
    func corpusFileRenders(relative: String) throws {
        try Self.check(Self.corpus.appendingPathComponent(relative), name: relative)
    }
}
