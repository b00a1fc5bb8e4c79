import SceneModel

/// Mutable state of one stage-to-scene conversion: the scene being built, warnings, limit
/// accounting and the caches that make prims convert once (meshes, materials, textures).
final class StageBuildContext {
    let stage: UsdStage
    let limits: ParseLimits
    let budget: MemoryBudget
    let loadAsset: (String, String) -> [UInt8]?
    /// Time code at which attributes authored only as time samples are read (`startTimeCode`);
    /// nil reads each such attribute at its earliest sample.
    let time: Double?
    /// A structure-only conversion (`SceneBuilder.countStructure`): nodes, materials, textures and
    /// each mesh's triangle count and material slots exactly as a full one, but no vertex streams
    /// or indices; normals and texture coordinates are neither decoded nor read.
    let structureOnly: Bool

    var scene = Scene()
    let materials = MaterialExtractor()

    /// Triangles of every mesh created (each unique mesh once).
    private(set) var producedTriangles = 0
    /// Triangles drawn by nodes (a shared mesh counts once per node).
    private(set) var drawnTriangles = 0
    /// Bytes of path text spelled for the scene so far (see `sourcePath(of:)`).
    private(set) var spelledPathBytes = 0
    /// Nodes created so far (checked against `maxComposedPrims` for instancer expansion).
    var nodeCount: Int { scene.nodes.count }

    /// Topologies validated ahead of the traversal (`TopologyPrepass`), by prim index.
    var validatedTopologies: [Int: TopologyRead] = [:]

    /// Mesh created for a prim (by prim index); `.some(nil)` when the prim produced no mesh.
    var meshByPrim: [Int: MeshIndex?] = [:]
    /// Shared meshes of implicit gprims keyed by their generating parameters.
    var gprimMeshes: [GprimTessellator.Key: MeshIndex] = [:]

    /// Meshes whose triangulation and streams are still to be computed (`finishMeshes`), with
    /// the scene mesh index and the warning slot reserved for each.
    private var pendingMeshes: [(job: PendingMesh, mesh: MeshIndex, warningSlot: Int)] = []
    /// Triangle counts of pending meshes by mesh index (known before triangulation).
    private var pendingTriangles: [Int: Int] = [:]

    /// Most warnings kept (distinct aggregated entries); later ones are counted into one summary warning.
    static let maxWarnings = 10_000
    /// Distinct prims listed per (code, prim type) before further occurrences are only counted.
    static let maxListedPrimsPerKind = 10
    private var droppedWarnings = 0
    private var pending = WarningAggregator()

    init(
        stage: UsdStage, limits: ParseLimits, budget: MemoryBudget, loadAsset: @escaping (String, String) -> [UInt8]?,
        structureOnly: Bool = false
    ) {
        self.stage = stage
        self.structureOnly = structureOnly
        self.limits = limits
        self.budget = budget
        self.loadAsset = loadAsset
        self.time = Self.time(of: stage)
    }

    /// Records a non-fatal finding with a stable code. Repeats are aggregated (see
    /// `WarningAggregator`): the same code on the same prim becomes one warning, and the same code
    /// on prims of one type lists at most `maxListedPrimsPerKind` prims; the rest are counted.
    func warn(_ code: String, _ message: String, _ path: SdfPath?) {
        let kind = path.flatMap { stage.primIndex(at: $0) }.map { stage.prims[$0].typeName } ?? ""
        if !pending.add(code: code, kind: kind, message: message, path: path?.string,
                        maxListed: StageBuildContext.maxListedPrimsPerKind, maxEntries: StageBuildContext.maxWarnings) {
            droppedWarnings += 1
        }
    }

    /// The text of `path` for a scene element's `sourcePath`. Every node, mesh and material spells
    /// its prim's path once, here, so the text of a deep hierarchy (d bytes per prim at depth d) is
    /// counted against `limits.maxPathStringBytes`.
    ///
    /// - Throws: `USD_LIMIT_EXCEEDED` when the spelled paths add up to more than `maxPathStringBytes`.
    func sourcePath(of path: SdfPath) throws(USDParseError) -> String {
        let (sum, overflow) = spelledPathBytes.addingReportingOverflow(path.utf8Count)
        guard !overflow, sum <= limits.maxPathStringBytes else {
            throw USDParseError(
                .limitExceeded,
                "scene source paths exceed maxPathStringBytes (\(limits.maxPathStringBytes)) bytes of path text",
                primPath: path.string)
        }
        spelledPathBytes = sum
        return path.string
    }

    /// Reserves the mesh index of `job` (an empty placeholder until `finishMeshes`) and a warning
    /// position for what its triangulation may report, so the order matches a sequential build.
    func addPendingMesh(_ job: PendingMesh) -> MeshIndex {
        let index = scene.addMesh(Mesh(name: job.name, sourcePath: job.sourcePath))
        pendingTriangles[index.rawValue] = job.topology.triangleCount
        pendingMeshes.append((job, index, pending.reserve()))
        return index
    }

    /// The time code a conversion of `stage` reads time-sampled attributes at (see `time`).
    static func time(of stage: UsdStage) -> Double? { stage.startTimeCode }

    /// Attributes only the vertex streams read (normals and every primvar but the display colour
    /// and opacity, which can choose a mesh's material), which a structure-only conversion skips.
    static func isStreamOnly(_ name: String) -> Bool {
        if name == "normals" { return true }
        guard name.hasPrefix("primvars:") else { return false }
        return !(name.hasPrefix("primvars:displayColor") || name.hasPrefix("primvars:displayOpacity"))
    }

    /// The validated topology of the Mesh prim at `primIndex`: the prepass's result when it ran,
    /// else read now.
    func topology(ofPrim primIndex: Int) -> TopologyRead {
        validatedTopologies[primIndex] ?? TopologyRead.read(stage.prims[primIndex], time: time)
    }

    /// Triangles of a scene mesh, also while it is pending (and, in a structure-only conversion,
    /// after `finishMeshes`).
    func triangleCount(of mesh: MeshIndex) -> Int {
        pendingTriangles[mesh.rawValue] ?? scene.meshes[mesh.rawValue].triangleCount
    }

    /// Triangulates and assembles every pending mesh on all cores and stores the results in their
    /// reserved places (deterministic: queue order).
    /// A structure-only conversion keeps the queued triangle counts and triangulates nothing.
    func finishMeshes() {
        let queued = pendingMeshes
        pendingMeshes = []
        if structureOnly { return }
        let outputs = PendingMesh.runAll(queued.map(\.job))
        for (item, out) in zip(queued, outputs) {
            scene.meshes[item.mesh.rawValue] = out.mesh
            pendingTriangles[item.mesh.rawValue] = nil
            if out.fannedConcaveCount > 0 {
                let kind = stage.primIndex(at: item.job.path).map { stage.prims[$0].typeName } ?? ""
                pending.fill(
                    slot: item.warningSlot, code: "USD_MESH_CONCAVE_FANNED",
                    kind: kind, message: "\(out.fannedConcaveCount) large concave faces were fan-triangulated",
                    path: item.job.path.string, maxListed: StageBuildContext.maxListedPrimsPerKind)
            }
        }
    }

    /// Appends the aggregated warnings (first-occurrence order) and the summary of dropped ones.
    func finishWarnings() {
        scene.warnings.append(contentsOf: pending.warnings())
        pending = WarningAggregator()
        if droppedWarnings > 0 {
            scene.warnings.append(
                SceneWarning(code: "USD_WARNINGS_TRUNCATED", message: "\(droppedWarnings) further warnings were dropped"))
        }
    }

    /// Reserves `count` triangles for a new mesh; throws `USD_LIMIT_EXCEEDED` past
    /// `limits.maxTriangles`. Call before allocating the mesh's buffers.
    func reserveMeshTriangles(_ count: Int, path: SdfPath) throws(USDParseError) {
        let (sum, overflow) = producedTriangles.addingReportingOverflow(count)
        guard !overflow, count >= 0, sum <= limits.maxTriangles else {
            throw USDParseError(
                .limitExceeded,
                "mesh needs \(count) triangles with \(producedTriangles) already produced; "
                    + "maxTriangles is \(limits.maxTriangles)",
                primPath: path.string)
        }
        producedTriangles = sum
    }

    /// Accounts `count` drawn triangles (a node referencing a mesh); throws `USD_LIMIT_EXCEEDED`
    /// past `limits.maxTriangles`.
    func addDrawnTriangles(_ count: Int, path: SdfPath) throws(USDParseError) {
        let (sum, overflow) = drawnTriangles.addingReportingOverflow(count)
        guard !overflow, count >= 0, sum <= limits.maxTriangles else {
            throw USDParseError(
                .limitExceeded,
                "the scene would draw more than maxTriangles (\(limits.maxTriangles)) triangles",
                primPath: path.string)
        }
        drawnTriangles = sum
    }

    /// Charges the memory budget for `bytes` of output streams.
    func charge(_ bytes: Int, _ what: @autoclosure () -> String) throws(USDParseError) {
        try budget.charge(bytes, what())
    }

    /// Byte size of `count` elements of `stride` bytes, or `Int.max` on overflow (which any
    /// budget rejects).
    static func bytes(_ count: Int, _ stride: Int) -> Int {
        let (p, o) = count.multipliedReportingOverflow(by: stride)
        return o ? Int.max : p
    }
}
