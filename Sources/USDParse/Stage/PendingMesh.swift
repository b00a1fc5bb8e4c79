import SceneModel
import Synchronization

/// The per-mesh work of a Mesh prim that needs no shared state: triangulation and vertex streams
/// (welding, expansion, V flip). `MeshExtractor` does everything that touches the conversion's
/// state (warnings, materials, limits, budget) in stage order and queues one of these; `run`
/// then converts every queued mesh at once, spread over all cores, and the results are stored in
/// queue order, so the scene is the same whatever the thread count.
struct PendingMesh: Sendable {
    var name: String
    var path: SdfPath
    /// `path` spelled once (`StageBuildContext.sourcePath(of:)`), for the mesh's `sourcePath`.
    var sourcePath: String
    var topology: MeshTopology
    /// Slot of each face (nil: one slot), as for `MeshTopology.triangulate`.
    var faceSlots: [Int32]?
    var slotCount: Int
    /// Reverse the winding (`orientation = leftHanded`).
    var flip: Bool
    var attributes: VertexAttributes
    /// Material of each non-empty slot, in slot order (double-sided copies already made).
    var primitiveMaterials: [MaterialIndex?]

    /// The finished mesh and the count of concave faces that were fanned.
    struct Output: Sendable {
        var mesh: Mesh
        var fannedConcaveCount: Int
    }

    /// Triangulates and assembles the mesh. Pure: reads only this value.
    func run() -> Output {
        var triangulator = Triangulator()
        var (corners, ranges) = topology.triangulate(
            faceSlots: faceSlots, slotCount: slotCount, flip: flip, triangulator: &triangulator)
        let streams = MeshAssembler.assemble(topology: topology, corners: &corners, attributes: attributes)
        var primitives: [Mesh.Primitive] = []
        primitives.reserveCapacity(primitiveMaterials.count)
        var next = 0
        for range in ranges where !range.isEmpty {
            let material = primitiveMaterials[next]
            primitives.append(Mesh.Primitive(indexStart: range.lowerBound, indexCount: range.count, material: material))
            next += 1
        }
        let mesh = Mesh(
            name: name, positions: streams.positions, normals: streams.normals, uv0: streams.uv0,
            colors: streams.colors, indices: corners, primitives: primitives, sourcePath: sourcePath)
        return Output(mesh: mesh, fannedConcaveCount: triangulator.fannedConcaveCount)
    }

    /// Runs every job, on all cores when there are several; outputs are in job order.
    static func runAll(_ jobs: [PendingMesh]) -> [Output] {
        if jobs.count <= 1 { return jobs.map { $0.run() } }
        // Largest meshes first, so one big mesh started last does not leave the other cores idle.
        let order = jobs.indices.sorted { (jobs[$0].topology.cornerCount, $1) > (jobs[$1].topology.cornerCount, $0) }
        let results = Mutex<[Int: Output]>([:])
        ParallelLoop.run(order.count) { k in
            let i = order[k]
            let out = jobs[i].run()
            results.withLock { $0[i] = out }
        }
        return results.withLock { r in jobs.indices.map { r[$0]! } }
    }
}
