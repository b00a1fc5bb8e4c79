import SceneModel

/// Mutable state of one stage-to-scene conversion: the scene being built, warnings, limit
/// accounting and the caches that make prims convert once (meshes, materials, textures).
final class StageBuildContext {
    let stage: UsdStage
    let limits: ParseLimits
    let budget: MemoryBudget
    let loadAsset: (String, String) -> [UInt8]?

    var scene = Scene()
    let materials = MaterialExtractor()

    /// Triangles of every mesh created (each unique mesh once).
    private(set) var producedTriangles = 0
    /// Triangles drawn by nodes (a shared mesh counts once per node).
    private(set) var drawnTriangles = 0
    /// Nodes created so far (checked against `maxComposedPrims` for instancer expansion).
    var nodeCount: Int { scene.nodes.count }

    /// Mesh created for a prim (by prim index); `.some(nil)` when the prim produced no mesh.
    var meshByPrim: [Int: MeshIndex?] = [:]
    /// Shared meshes of implicit gprims keyed by their generating parameters.
    var gprimMeshes: [GprimTessellator.Key: MeshIndex] = [:]

    /// Most warnings kept; later ones are counted into one summary warning.
    static let maxWarnings = 10_000
    private var droppedWarnings = 0

    init(stage: UsdStage, limits: ParseLimits, budget: MemoryBudget, loadAsset: @escaping (String, String) -> [UInt8]?)
    {
        self.stage = stage
        self.limits = limits
        self.budget = budget
        self.loadAsset = loadAsset
    }

    /// Records a non-fatal finding with a stable code.
    func warn(_ code: String, _ message: String, _ path: SdfPath?) {
        if scene.warnings.count >= StageBuildContext.maxWarnings {
            droppedWarnings += 1
            return
        }
        scene.warnings.append(SceneWarning(code: code, message: message, primPath: path?.string))
    }

    /// Appends the summary of dropped warnings, if any.
    func finishWarnings() {
        if droppedWarnings > 0 {
            scene.warnings.append(
                SceneWarning(code: "WARNINGS_TRUNCATED", message: "\(droppedWarnings) further warnings were dropped"))
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
