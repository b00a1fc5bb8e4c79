import SceneModel
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
/// Given `decoding`, each mesh's still-deferred arrays are decoded in the same task, just before
/// its checks, so that the checks read arrays still in the core's cache instead of reading every
/// array a second time from memory once all are decoded. Decoding errors are kept by each
/// `DeferredValue` and not reported here: the caller's `DeferredDecoding.resolve` afterwards
/// reports the first in stage order, with its context, exactly as without the prepass.
///
/// The results are the same as reading each mesh in the traversal: the same values at the same
/// time, the same checks. Meshes the traversal never reaches (inactive, under a class) are
/// validated for nothing, which costs time but changes no output.
enum TopologyPrepass {
    /// Face-vertex indices on the stage's meshes below which nothing is done here.
    static let minimumCorners = 250_000

    /// Attributes the checks read, decoded last in a mesh's task so they are the freshest in cache.
    static let checkedAttributes: Set<String> = ["points", "faceVertexCounts", "faceVertexIndices", "holeIndices"]

    /// The topology of every Mesh prim by prim index, or an empty dictionary when the stage has
    /// fewer than two meshes or fewer than `minimumCorners` face-vertex indices in all (counted from
    /// the arrays' headers, without decoding). `decoding`: which attributes of each mesh to decode
    /// first (nil: none; the arrays are then decoded as the checks read them, or were already).
    static func run(
        stage: UsdStage, time: Double?, minimumCorners: Int = minimumCorners, decoding: (@Sendable (String) -> Bool)? = nil
    ) -> [Int: TopologyRead] {
        let meshes = stage.prims.indices.filter { stage.prims[$0].typeName == "Mesh" }
        guard meshes.count >= 2 else { return [:] }
        var corners = 0
        for i in meshes {
            corners += MeshSizeCheck.elementCount(stage.prims[i].attributes["faceVertexIndices"]) ?? 0
        }
        guard corners >= minimumCorners else { return [:] }
        let results = Mutex<[Int: TopologyRead]>([:])
        ParallelLoop.run(meshes.count) { k in
            let prim = stage.prims[meshes[k]]
            if let decoding { decode(prim, where: decoding) }
            let read = TopologyRead.read(prim, time: time)
            results.withLock { $0[meshes[k]] = read }
        }
        return results.withLock { $0 }
    }

    /// Decodes the deferred values of `prim`'s attributes whose names pass `include`, the checked
    /// ones last; errors stay with each value.
    private static func decode(_ prim: UsdPrim, where include: @Sendable (String) -> Bool) {
        for checked in [false, true] {
            for (name, attr) in prim.attributes where checkedAttributes.contains(name) == checked && include(name) {
                for d in attr.deferredValues where !d.isResolved { _ = try? d.resolve() }
            }
        }
    }
}
