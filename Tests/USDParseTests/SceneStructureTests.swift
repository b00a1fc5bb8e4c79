import Foundation
import SceneModel
import TestSupport
import Testing

@testable import USDParse

/// `SceneBuilder.countStructure` must give the counts of the scene `build` makes (nodes, meshes,
/// triangles, drawn triangles, materials, textures), and the same warnings but those that only
/// vertex streams raise, on hand-made stages, the repository's fixtures and the shared corpus.
@Suite struct SceneStructureTests {
    static func structure(_ stage: UsdStage, assets: [String: [UInt8]] = [:]) throws -> SceneStructure {
        try SceneBuilder.countStructure(
            stage: stage, sourceFormat: "usda", limits: .default, budget: MemoryBudget(limits: .default),
            loadAsset: { path, _ in assets[path] })
    }

    /// A quad mesh with faceVarying texture coordinates, one with invalid normals (wrong count),
    /// one textured without texture coordinates, a mesh with two subset materials, an implicit
    /// cube, and an instancer-free reuse of one cube mesh by two prims.
    static func mixedStage() -> (UsdStage, [String: [UInt8]]) {
        let s = TestStage()
        let quad: [SIMD3<Float>] = [SIMD3(0, 0, 0), SIMD3(1, 0, 0), SIMD3(1, 1, 0), SIMD3(0, 1, 0)]
        addPreviewMaterial(s, "/Looks/Tex", diffuse: StageValue.float3(1, 1, 1)) {
            $0.connect("inputs:diffuseColor", "color3f", to: "/Looks/Tex/Image.outputs:rgb")
        }
        s.prim("/Looks/Tex/Image", "Shader") {
            $0.set("info:id", "token", .token("UsdUVTexture"), uniform: true)
            $0.set("inputs:file", "asset", .asset("wood.png"))
        }
        s.prim("/Room/UV", "Mesh") {
            $0.mesh(points: quad, counts: [4], indices: [0, 1, 2, 3])
            $0.set("primvars:st", "texCoord2f[]", StageValue.float2s([SIMD2(0, 0), SIMD2(1, 0), SIMD2(1, 1), SIMD2(0, 1)]),
                   interpolation: "faceVarying")
            $0.rel("material:binding", ["/Looks/Tex"])
        }
        s.prim("/Room/BadNormals", "Mesh") {
            $0.mesh(points: quad, counts: [3, 3], indices: [0, 1, 2, 0, 2, 3])
            $0.set("normals", "normal3f[]", StageValue.points([SIMD3(0, 0, 1)]), interpolation: "vertex")
        }
        s.prim("/Room/NoUV", "Mesh") {
            $0.mesh(points: quad, counts: [4], indices: [0, 1, 2, 3])
            $0.rel("material:binding", ["/Looks/Tex"])
        }
        s.prim("/Room/Box", "Cube")
        s.prim("/Room/Box2", "Cube")
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3]
        return (s.build(), ["wood.png": png])
    }

    @Test func countsEqualTheFullBuildAndOnlyStreamWarningsAreLeftOut() throws {
        let (stage, assets) = Self.mixedStage()
        let full = SceneStructure(scene: try buildTestScene(stage, assets: assets))
        let structure = try Self.structure(stage, assets: assets)
        #expect(structure.nodes == full.nodes && structure.meshes == full.meshes)
        #expect(structure.triangles == full.triangles && structure.instancedTriangles == full.instancedTriangles)
        #expect(structure.materials == full.materials && structure.textures == full.textures)
        #expect(full.textures == 1 && full.triangles == 2 + 2 + 2 + 12)
        let fullCodes = full.warnings.map(\.code)
        #expect(fullCodes.contains("USD_PRIMVAR_INVALID") && fullCodes.contains("USD_MESH_MISSING_UV"), "\(fullCodes)")
        let streamOnly: Set = ["USD_PRIMVAR_INVALID", "USD_MESH_MISSING_UV"]
        #expect(structure.warnings == full.warnings.filter { !streamOnly.contains($0.code) })
    }

    static let corpus = TestPaths.packageRoot.appendingPathComponent("../shared/corpus").standardizedFileURL

    /// On crates whose large arrays are decoded lazily (the corpus's teapot and sofa), counting
    /// leaves their normals and texture coordinates undecoded.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: corpus.path), "../shared/corpus is not present"))
    func normalsAndTextureCoordinatesAreNotDecoded() throws {
        var skipped = 0
        for file in ["usd/usdwg/UtahTeapot.usd", "roomplan/catalog/Rectangular_sofa.rooms.usdc"] {
            let data = try #require(FileManager.default.contents(atPath: Self.corpus.appendingPathComponent(file).path))
            let opened = try USDParser.openStage([UInt8](data), name: (file as NSString).lastPathComponent)
            let structure = try SceneBuilder.countStructure(
                stage: opened.stage, sourceFormat: "usdc", limits: .default, budget: MemoryBudget(limits: .default),
                loadAsset: { _, _ in nil })
            #expect(structure.meshes > 0)
            for prim in opened.stage.prims {
                for (name, attr) in prim.attributes {
                    for d in attr.deferredValues where StageBuildContext.isStreamOnly(name) {
                        #expect(!d.isResolved, "\(prim.path).\(name) was decoded")
                        skipped += 1
                    }
                }
            }
        }
        #expect(skipped > 0, "no deferred normals or texture coordinates in the files")
        #expect(!StageBuildContext.isStreamOnly("primvars:displayColor"))
        #expect(!StageBuildContext.isStreamOnly("primvars:displayOpacity:indices"))
    }

    /// Every USD file of the repository's fixtures and samples and of the shared corpus that
    /// builds: the structure's counts equal the scene's.
    @Test func fixturesAndCorpusCountAsTheyBuild() throws {
        var compared = 0
        var failures: [String] = []
        let withCorpus = try OpenableUSDFile.forEach(corpusSubfolder: "usd") { item in
            let (file, opened, load) = (item.file, item.opened, item.load)
            let limits = ParseLimits.default
            guard
                let scene = try? SceneBuilder.build(
                    stage: opened.stage, sourceFormat: "usd", limits: limits, budget: MemoryBudget(limits: limits),
                    loadAsset: load)
            else { return }
            let structure = try SceneBuilder.countStructure(
                stage: opened.stage, sourceFormat: "usd", limits: limits, budget: MemoryBudget(limits: limits),
                loadAsset: load)
            var full = SceneStructure(scene: scene)
            full.warnings = structure.warnings
            if structure != full { failures.append("\(file): \(structure) vs \(full)") }
            compared += 1
        }
        // 48 repository files build, 79 with the corpus.
        #expect(compared >= (withCorpus ? 60 : 40), "compared \(compared) files")
        #expect(failures.isEmpty, Comment(rawValue: failures.prefix(10).joined(separator: "\n")))
    }
}

/// The branch-free checks `MeshTopology` validates with: every kind of non-finite value and every
/// out-of-range index is found, wherever it sits, and the message names the first bad index.
@Suite struct MeshTopologyCheckTests {
    @Test func nonFiniteValuesAreFoundAnywhere() {
        #expect(MeshTopology.allFinite([]) && MeshTopology.allFinite([0, -0, 1e38, -1e38, .leastNonzeroMagnitude]))
        for bad: Float in [.nan, -.nan, .signalingNaN, .infinity, -.infinity] {
            for at in [0, 5, 99] {
                var values = [Float](repeating: 1, count: 100)
                values[at] = bad
                #expect(!MeshTopology.allFinite(values), "\(bad) at \(at)")
            }
        }
    }

    @Test func faceCountTally() {
        #expect(MeshTopology.tally([]) == (0, Int32.max, 0, 0))
        // Triangles: 1 + 2 + 0 + 0 + 5; faces with fewer than 3 corners: 0, 1 and 2.
        #expect(MeshTopology.tally([3, 4, 0, 1, 7, 2]) == (17, 0, 8, 3))
        #expect(MeshTopology.tally([3, -5, 4]).lowest == -5)
        let big = [Int32](repeating: .max, count: 3)
        #expect(MeshTopology.tally(big) == (3 * Int(Int32.max), .max, 3 * (Int(Int32.max) - 2), 0))
    }

    @Test func faceCountProblems() throws {
        let points = [Float](repeating: 0, count: 12)  // 4 points
        for (counts, text) in [([3, -2, 3], "contains -2"), ([3, 4], "add up to more than"), ([3, 2], "add up to 5 ")] {
            do {
                _ = try MeshTopology(points: points, counts: counts.map(Int32.init), indices: [0, 1, 2, 0, 2, 3], holes: nil)
                Issue.record("\(counts) was accepted")
            } catch {
                #expect(error.code == "USD_MESH_INVALID_TOPOLOGY" && error.message.contains(text), "\(error.message)")
            }
        }
        let t = try MeshTopology(points: points, counts: [3, 1, 2], indices: [0, 1, 2, 0, 2, 3], holes: [0])
        #expect(t.triangleCount == 0 && t.degenerateFaces == 2 && t.skipped == [true, true, true])
    }

    @Test func indexRangeAndTheFirstBadIndex() throws {
        #expect(MeshTopology.allBelow([], limit: 0) && MeshTopology.allBelow([], limit: 4))
        #expect(!MeshTopology.allBelow([0], limit: 0))
        #expect(MeshTopology.allBelow([3, 0, 2, 1], limit: 4))
        #expect(MeshTopology.allBelow([Int32.max - 1, 0], limit: Int(Int32.max)))
        for bad: Int32 in [4, 5, -1, Int32.min, Int32.max, Int32.min + 3] {
            for at in [0, 7, 63] {
                var values = [Int32](repeating: 3, count: 64)
                values[at] = bad
                #expect(!MeshTopology.allBelow(values, limit: 4), "\(bad) at \(at)")
            }
        }
        let points = [Float](repeating: 0, count: 12)  // 4 points
        _ = try MeshTopology(points: points, counts: [3, 3], indices: [0, 1, 2, 0, 2, 3], holes: nil)
        for (indices, first) in [([0, 1, 2, 0, 9, -1], "9"), ([0, -1, 2, 0, 2, 4], "-1"), ([0, 1, 2, 0, 2, 4], "4")] {
            do {
                _ = try MeshTopology(points: points, counts: [3, 3], indices: indices.map(Int32.init), holes: nil)
                Issue.record("\(indices) was accepted")
            } catch {
                #expect(error.code == "USD_MESH_INVALID_TOPOLOGY" && error.message.contains("contains \(first),"), "\(error.message)")
            }
        }
    }
}
