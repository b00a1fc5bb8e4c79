import Dispatch
import Synchronization

/// What a Mesh prim's topology arrays hold: missing or mistyped, invalid, or valid.
enum TopologyRead: Sendable {
    case missing
    case invalid(MeshTopology.Problem)
    case valid(MeshTopology)

    /// Reads `points`, `faceVertexCounts`, `faceVertexIndices` and `holeIndices` of `prim` at
    /// `time` (see `StageBuildContext.time`) and validates them (`MeshTopology`).
    static func read(_ prim: UsdPrim, time: Double?) -> TopologyRead {
        guard let points = AttributeValues.floats(prim.value("points", at: time), components: 3),
            let counts = AttributeValues.int32s(prim.value("faceVertexCounts", at: time)),
            let fvi = AttributeValues.int32s(prim.value("faceVertexIndices", at: time))
        else { return .missing }
        let holes = AttributeValues.int32s(prim.value("holeIndices", at: time))
        do {
            return .valid(try MeshTopology(points: points, counts: counts, indices: fvi, holes: holes))
        } catch {
            return .invalid(error)
        }
    }
}

/// Validates the topology of every Mesh prim before the traversal, spread over all cores, so that
/// the traversal (which visits meshes one after another) finds each result ready. Validation reads
/// every point and face-vertex index once; on a stage of millions of them it is most of the scene
/// build. Small stages are left to the traversal (nothing here), where starting threads would cost
/// more than the checks.
///
/// The results are the same as reading each mesh in the traversal: the same values at the same
/// time, the same checks. Meshes the traversal never reaches (inactive, under a class) are
/// validated for nothing, which costs time but changes no output.
enum TopologyPrepass {
    /// Face-vertex indices on the stage's meshes below which nothing is done here.
    static let minimumCorners = 250_000

    /// The topology of every Mesh prim by prim index, or an empty dictionary when the stage has
    /// fewer than two meshes or fewer than `minimumCorners` face-vertex indices in all.
    static func run(stage: UsdStage, time: Double?, minimumCorners: Int = minimumCorners) -> [Int: TopologyRead] {
        let meshes = stage.prims.indices.filter { stage.prims[$0].typeName == "Mesh" }
        guard meshes.count >= 2 else { return [:] }
        var corners = 0
        for i in meshes {
            // Counted as stored (no conversion of other integer widths just to count them).
            corners += stage.prims[i].value("faceVertexIndices", at: time)?.typed?.storage.count ?? 0
        }
        guard corners >= minimumCorners else { return [:] }
        let results = Mutex<[Int: TopologyRead]>([:])
        DispatchQueue.concurrentPerform(iterations: meshes.count) { k in
            let read = TopologyRead.read(stage.prims[meshes[k]], time: time)
            results.withLock { $0[meshes[k]] = read }
        }
        return results.withLock { $0 }
    }
}
