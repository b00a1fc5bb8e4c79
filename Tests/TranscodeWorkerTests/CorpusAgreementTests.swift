import Foundation
import Testing
import SceneModel
import USDParse
import SourceFiles

@testable import TranscodeWorker
import USDInspect
@testable import WorkerRuntime
import TestSupport
@testable import JobPipeline

/// Every file of the shared corpus against usd-core's recorded answers
/// (`USD_CORE_ANALYSIS.json`): files usd-core opens must open here with the same prim-type,
/// mesh, point, face, material and texture counts and the same stage metadata; files usd-core
/// refuses must end in a typed `USDParseError`.
@Suite struct CorpusAgreementTests {
    static let corpus: String? = {
        let root = TestPaths.packageRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus").path
        return FileManager.default.fileExists(atPath: root + "/USD_CORE_ANALYSIS.json") ? root : nil
    }()

    static var entries: [[String: Any]] {
        guard let c = corpus, let data = FileManager.default.contents(atPath: c + "/USD_CORE_ANALYSIS.json"),
              let list = try? JSONSerialization.jsonObject(with: data) as? [[String: Any]]
        else { return [] }
        return list
    }

    /// Deliberate differences from usd-core, with the reason. Empty means full agreement.
    static let knownDifferences: [String: String] = [:]

    /// `TRANSCODE_REQUIRE_CORPUS=1` (set by `scripts/test.sh` when `../shared/corpus` exists).
    static let corpusRequired = ProcessInfo.processInfo.environment["TRANSCODE_REQUIRE_CORPUS"] == "1"

    /// Skipped, not passed, when nothing requires the corpus.
    @Test(.enabled(if: corpusRequired, "TRANSCODE_REQUIRE_CORPUS is not set"))
    func corpusIsPresentWhenRequired() {
        #expect(Self.corpus != nil, "the test script found ../shared/corpus but the tests cannot")
        #expect(Self.entries.count >= 40)
    }

    @Test(.enabled(if: corpus != nil, "../shared/corpus is absent"))
    func everyCorpusFileAgreesWithUsdCore() throws {
        var failures: [String] = []
        for e in Self.entries {
            let file = e["file"] as! String
            if Self.knownDifferences[file] != nil { continue }
            let path = Self.corpus! + "/" + file
            let bytes = try FileReader.read(path, maxBytes: ParseLimits.default.maxInputBytes)
            let dir = String(path[..<path.lastIndex(of: "/")!])
            let name = String(file.split(separator: "/").last!)
            let siblings = DirectoryAssetProvider(root: dir, maxBytes: ParseLimits.default.maxInputBytes)
            let opened: USDParser.OpenedStage
            do {
                opened = try USDParser.openStage(bytes, name: name, siblings: siblings)
            } catch let err as USDParseError {
                if e["open_error"] == nil { failures.append("\(file): usd-core opens it, we threw \(err)") }
                continue
            } catch {
                failures.append("\(file): untyped error \(error)")
                continue
            }
            if e["open_error"] != nil {
                failures.append("\(file): usd-core refuses it (\((e["open_error"] as? String)?.prefix(80) ?? "")), we opened it")
                continue
            }
            let s = StageSummary(opened.stage)
            func check(_ key: String, _ ours: Int) {
                let theirs = (e[key] as? Int) ?? 0
                if theirs != ours { failures.append("\(file): \(key) \(ours) != usd-core \(theirs)") }
            }
            check("meshes", s.meshes)
            check("points", s.points)
            check("faces", s.faces)
            check("materials", s.materials)
            let types = (e["prim_types"] as? [String: Int]) ?? [:]
            if types != s.primTypes { failures.append("\(file): prim types \(s.primTypes) != usd-core \(types)") }
            let textures = (e["textures"] as? [String]) ?? []
            if textures.sorted() != s.textures { failures.append("\(file): textures \(s.textures) != usd-core \(textures)") }
            if (e["upAxis"] as? String) != opened.stage.upAxis {
                failures.append("\(file): upAxis \(opened.stage.upAxis ?? "nil") != \(e["upAxis"] ?? "nil")")
            }
            let mpu = e["metersPerUnit"] as? Double
            if mpu != opened.stage.metersPerUnit {
                failures.append("\(file): metersPerUnit \(String(describing: opened.stage.metersPerUnit)) != \(String(describing: mpu))")
            }
            if (e["defaultPrim"] as? String) != opened.stage.defaultPrim {
                failures.append("\(file): defaultPrim \(opened.stage.defaultPrim ?? "nil") != \(e["defaultPrim"] ?? "nil")")
            }
        }
        #expect(failures.isEmpty, Comment(rawValue: "\(failures.count) disagreements:\n" + failures.joined(separator: "\n")))
    }

    @Test(.enabled(if: corpus != nil, "../shared/corpus is absent"))
    func everyValidCorpusFileConvertsToAValidScene() throws {
        var failures: [String] = []
        var converted = 0
        for e in Self.entries where e["open_error"] == nil {
            let file = e["file"] as! String
            let path = Self.corpus! + "/" + file
            let dir = String(path[..<path.lastIndex(of: "/")!])
            let name = String(file.split(separator: "/").last!)
            do {
                let bytes = try FileReader.map(path, maxBytes: ParseLimits.default.maxInputBytes)
                let opened = try USDParser.openStage(
                    bytes, name: name, siblings: DirectoryAssetProvider(root: dir, maxBytes: 1 << 28))
                let provider = opened.provider
                let scene = try SceneBuilder.build(
                    stage: opened.stage, sourceFormat: opened.format.rawValue, limits: .default,
                    budget: MemoryBudget(limits: .default),
                    loadAsset: { p, l in provider.resolve(p, anchor: l).flatMap { try? provider.data(at: $0).array } })
                let errors = SceneValidator.validate(scene).filter { $0.severity == .error }
                if !errors.isEmpty { failures.append("\(file): \(errors.prefix(3))") }
                // Every Mesh prim with faces becomes drawable triangles.
                if (e["faces"] as? Int ?? 0) > 0 && scene.meshes.allSatisfy({ $0.indices.isEmpty }) {
                    failures.append("\(file): usd-core counts faces, the scene has no triangles")
                }
                converted += 1
            } catch {
                failures.append("\(file): \(error)")
            }
        }
        #expect(converted > 0)
        #expect(failures.isEmpty, Comment(rawValue: failures.joined(separator: "\n")))
    }
}
