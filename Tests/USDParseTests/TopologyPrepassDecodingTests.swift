import SceneModel
import Synchronization
import Testing

@testable import USDParse

/// On large stages the prepass decodes each mesh's deferred arrays in the task that checks them
/// (`TopologyPrepass.run(…, decoding:)`). Each array must still be decoded once, the scene must be
/// the one built without the prepass, and a corrupt array must end the build with the error it
/// gives without the prepass: the first in stage order, with its prim path and layer.
@Suite struct TopologyPrepassDecodingTests {
    static let quad: [SIMD3<Float>] = [SIMD3(0, 0, 0), SIMD3(1, 0, 0), SIMD3(1, 1, 0), SIMD3(0, 1, 0)]

    /// Counts the decodings of every deferred value made for one stage.
    final class Decodings: Sendable {
        let count = Mutex(0)
        func deferred(_ value: SdfValue, elements: Int, failing: String? = nil) -> SdfValue {
            .deferred(DeferredValue(summary: "test[\(elements)]", elementCount: elements) { [self] in
                count.withLock { $0 += 1 }
                if let failing { throw USDParseError(.corrupt, failing) }
                return value
            })
        }
    }

    /// Four meshes (and a normals array a counted scene skips) whose arrays are all deferred;
    /// `failing` names meshes whose face-vertex indices fail to decode, with the message to throw.
    static func stage(_ decodings: Decodings, failing: [String: String] = [:]) -> UsdStage {
        let s = TestStage()
        for (name, indices) in [("A", [0, 1, 2, 3]), ("B", [0, 1, 2]), ("C", [3, 2, 1, 0]), ("D", [0, 2, 3])] as [(String, [Int32])] {
            s.prim("/Room/\(name)", "Mesh") {
                $0.set("points", "point3f[]", decodings.deferred(StageValue.points(quad), elements: 4))
                $0.set("faceVertexCounts", "int[]", decodings.deferred(StageValue.ints([Int32(indices.count)]), elements: 1))
                $0.set("faceVertexIndices", "int[]",
                       decodings.deferred(StageValue.ints(indices), elements: indices.count, failing: failing[name]))
                $0.set("normals", "normal3f[]", decodings.deferred(StageValue.points(quad.map { _ in SIMD3(0, 0, 1) }), elements: 4),
                       interpolation: "vertex")
            }
        }
        return s.build()
    }

    static func build(_ stage: UsdStage, structureOnly: Bool, prepass: Bool) throws -> Scene {
        try SceneBuilder.convert(
            stage: stage, sourceFormat: "usd", limits: .default, budget: MemoryBudget(limits: .default),
            loadAsset: { _, _ in nil }, structureOnly: structureOnly, prepassMinimumCorners: prepass ? 0 : .max,
            result: { $0.scene })
    }

    @Test(arguments: [false, true])
    func eachArrayIsDecodedOnceAndTheSceneIsTheSame(structureOnly: Bool) throws {
        let ahead = Decodings(), alone = Decodings()
        let withPrepass = try Self.build(Self.stage(ahead), structureOnly: structureOnly, prepass: true)
        let without = try Self.build(Self.stage(alone), structureOnly: structureOnly, prepass: false)
        #expect(withPrepass == without)
        #expect(withPrepass.meshes.count == 4)
        // 4 meshes × 3 topology arrays, plus the 4 normals arrays unless the scene is only counted.
        let expected = structureOnly ? 12 : 16
        #expect(ahead.count.withLock { $0 } == expected)
        #expect(alone.count.withLock { $0 } == expected)
    }

    @Test func theDecodingIsDoneInThePrepassTasks() {
        let decodings = Decodings()
        let stage = Self.stage(decodings)
        let reads = TopologyPrepass.run(stage: stage, time: nil, minimumCorners: 0, decoding: { $0 != "normals" })
        #expect(reads.count == 4)
        #expect(decodings.count.withLock { $0 } == 12)
        for read in reads.values {
            guard case .valid = read else {
                Issue.record("expected a valid topology")
                continue
            }
        }
        // Without `decoding`, nothing is decoded ahead: the reads decode what they read.
        let lazy = Decodings()
        _ = TopologyPrepass.run(stage: Self.stage(lazy), time: nil, minimumCorners: 0)
        #expect(lazy.count.withLock { $0 } == 12)
    }

    @Test(arguments: [false, true])
    func aCorruptArrayFailsTheBuildAsWithoutThePrepass(structureOnly: Bool) throws {
        let failing = ["C": "indices of C are corrupt", "B": "indices of B are corrupt"]
        func error(prepass: Bool) -> USDParseError? {
            do {
                _ = try Self.build(Self.stage(Decodings(), failing: failing), structureOnly: structureOnly, prepass: prepass)
                return nil
            } catch let e as USDParseError {
                return e
            } catch {
                return nil
            }
        }
        let ahead = try #require(error(prepass: true))
        let alone = try #require(error(prepass: false))
        #expect(ahead.code == alone.code)
        #expect(ahead.message == alone.message)
        #expect(ahead.primPath == alone.primPath)
        #expect(ahead.layer == alone.layer)
        #expect(ahead.primPath == "/Room/B.faceVertexIndices")   // the first in stage order
    }
}
