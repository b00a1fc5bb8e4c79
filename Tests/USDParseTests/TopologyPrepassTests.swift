import Foundation
import SceneModel
import TestSupport
import Testing

@testable import USDParse

/// On large stages every mesh's topology is validated on all cores before the traversal
/// (`TopologyPrepass`). The results, and the scenes built from them, must be what reading each mesh
/// in the traversal gives: same triangles, same problems, same warnings in the same order.
@Suite struct TopologyPrepassTests {
    static let quad: [SIMD3<Float>] = [SIMD3(0, 0, 0), SIMD3(1, 0, 0), SIMD3(1, 1, 0), SIMD3(0, 1, 0)]

    /// Valid meshes and every kind of defect the validation finds, in one stage.
    static func stage() -> UsdStage {
        let s = TestStage()
        s.prim("/Room/Fine", "Mesh") { $0.mesh(points: quad, counts: [4, 3], indices: [0, 1, 2, 3, 0, 2, 3]) }
        s.prim("/Room/OutOfRange", "Mesh") { $0.mesh(points: quad, counts: [3], indices: [0, 1, 7]) }
        s.prim("/Room/Missing", "Mesh") { $0.set("points", "point3f[]", StageValue.points(quad)) }
        s.prim("/Room/Negative", "Mesh") { $0.mesh(points: quad, counts: [3, -3], indices: [0, 1, 2]) }
        s.prim("/Room/Short", "Mesh") { $0.mesh(points: quad, counts: [3, 3], indices: [0, 1, 2, 0]) }
        s.prim("/Room/NaN", "Mesh") {
            $0.mesh(points: [SIMD3(.nan, 0, 0)] + quad.dropFirst(), counts: [3], indices: [0, 1, 2])
        }
        s.prim("/Room/Holes", "Mesh") {
            $0.mesh(points: quad, counts: [3, 2, 3, 4], indices: [0, 1, 2, 0, 1, 0, 2, 3, 0, 1, 2, 3])
            $0.set("holeIndices", "int[]", StageValue.ints([2, 9, -1]))
        }
        s.prim("/Room/AllHoles", "Mesh") {
            $0.mesh(points: quad, counts: [3], indices: [0, 1, 2])
            $0.set("holeIndices", "int[]", StageValue.ints([0]))
        }
        s.prim("/Room/Cube", "Cube")
        return s.build()
    }

    static func describe(_ read: TopologyRead) -> String {
        switch read {
        case .missing: return "missing"
        case .invalid(let p): return "invalid \(p.code) \(p.message)"
        case .valid(let t): return "valid \(t.triangleCount) triangles, \(t.degenerateFaces) degenerate, skipped \(t.skipped ?? [])"
        }
    }

    @Test func resultsEqualReadingEachMeshAlone() {
        let stage = Self.stage()
        let ahead = TopologyPrepass.run(stage: stage, time: nil, minimumCorners: 0)
        let meshes = stage.prims.indices.filter { stage.prims[$0].typeName == "Mesh" }
        #expect(Set(ahead.keys) == Set(meshes))
        var seen: [String: String] = [:]
        for i in meshes {
            let alone = Self.describe(TopologyRead.read(stage.prims[i], time: nil))
            #expect(ahead[i].map(Self.describe) == alone, "\(stage.prims[i].path)")
            seen[stage.prims[i].name] = alone
        }
        #expect(seen["Fine"] == "valid 3 triangles, 0 degenerate, skipped []")
        #expect(seen["Missing"] == "missing")
        #expect(seen["OutOfRange"]?.contains("contains 7, outside 0..<4") == true)
        #expect(seen["Negative"]?.contains("faceVertexCounts contains -3") == true)
        #expect(seen["Short"]?.contains("add up to more than but there are 4") == true)
        #expect(seen["NaN"]?.hasPrefix("invalid USD_MESH_NONFINITE") == true)
        // Triangles 1 + 0 + 1 + 2, less the hole's 1; face 1 has 2 corners, face 2 is a hole.
        #expect(seen["Holes"] == "valid 3 triangles, 1 degenerate, skipped [false, true, true, false]")
        #expect(seen["AllHoles"] == "valid 0 triangles, 0 degenerate, skipped [true]")
    }

    @Test func smallStagesAreLeftToTheTraversal() {
        let stage = Self.stage()
        #expect(TopologyPrepass.run(stage: stage, time: nil).isEmpty)
        #expect(TopologyPrepass.run(stage: stage, time: nil, minimumCorners: 36).isEmpty)
        #expect(TopologyPrepass.run(stage: stage, time: nil, minimumCorners: 35).count == 8)
    }

    /// A built scene and the triangle count of each of its meshes (a counted scene keeps them aside).
    struct Built: Equatable {
        var scene: Scene
        var triangles: [Int]
    }

    /// Builds `stage` with the validation ahead of the traversal and without, in full and counted;
    /// true where the two agree.
    static func compare(_ stage: UsdStage, load: (String, String) -> [UInt8]?) throws -> (Bool, Bool) {
        func build(_ structureOnly: Bool, _ corners: Int) throws -> Built {
            try SceneBuilder.convert(
                stage: stage, sourceFormat: "usd", limits: .default, budget: MemoryBudget(limits: .default),
                loadAsset: load, structureOnly: structureOnly, prepassMinimumCorners: corners
            ) { ctx in
                Built(scene: ctx.scene, triangles: ctx.scene.meshes.indices.map { ctx.triangleCount(of: MeshIndex($0)) })
            }
        }
        return (try build(false, 0) == build(false, .max), try build(true, 0) == build(true, .max))
    }

    @Test func scenesEqualTheOneMeshAtATimeBuild() throws {
        let (full, counted) = try Self.compare(Self.stage(), load: { _, _ in nil })
        #expect(full && counted)
        let scene = try SceneBuilder.convert(
            stage: Self.stage(), sourceFormat: "usd", limits: .default, budget: MemoryBudget(limits: .default),
            loadAsset: { _, _ in nil }, structureOnly: false, prepassMinimumCorners: 0, result: { $0.scene })
        #expect(scene.meshes.map(\.sourcePath) == ["/Room/Fine", "/Room/Holes", "/Room/Cube"])
        let codes = scene.warnings.map { "\($0.code) \($0.primPath ?? "")" }
        #expect(codes.contains("USD_MESH_INVALID_TOPOLOGY /Room/OutOfRange") && codes.contains("USD_MESH_EMPTY /Room/AllHoles"), "\(codes)")
    }

    /// The repository's fixtures and samples and the shared corpus build the same either way.
    @Test func fixturesAndCorpusBuildTheSameEitherWay() throws {
        var compared = 0
        var failures: [String] = []
        OpenableUSDFile.forEach(corpusSubfolder: "") { item in
            guard item.opened.stage.prims.contains(where: { $0.typeName == "Mesh" }) else { return }
            guard let (full, counted) = try? Self.compare(item.opened.stage, load: item.load) else { return }
            if !full || !counted { failures.append("\(item.file): full \(full), counted \(counted)") }
            compared += 1
        }
        #expect(compared >= 20, "compared \(compared) files")
        #expect(failures.isEmpty, Comment(rawValue: failures.prefix(10).joined(separator: "\n")))
    }
}
