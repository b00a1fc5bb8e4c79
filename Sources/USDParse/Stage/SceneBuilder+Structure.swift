import SceneModel

/// What a structure-only conversion finds: the counts of the scene `SceneBuilder.build` would
/// make from the same stage, without its vertex streams.
public struct SceneStructure: Sendable, Equatable {
    /// Nodes (one per kept prim, PointInstancer expansion included).
    public var nodes: Int
    /// Distinct meshes (shared meshes once).
    public var meshes: Int
    /// Triangles of the distinct meshes.
    public var triangles: Int
    /// Triangles drawn by the nodes (a shared mesh counts once per node).
    public var instancedTriangles: Int
    public var materials: Int
    public var textures: Int
    /// The conversion's warnings, without those only vertex streams raise (invalid normals or
    /// texture coordinates, a textured mesh without texture coordinates).
    public var warnings: [SceneWarning]
}

extension SceneStructure {
    /// The counts of a scene built in full (`SceneBuilder.build`), with all of its warnings.
    public init(scene: Scene) {
        self.init(
            nodes: scene.nodes.count, meshes: scene.meshes.count,
            triangles: scene.meshes.reduce(0) { $0 + $1.triangleCount },
            instancedTriangles: scene.instancedTriangleCount, materials: scene.materials.count,
            textures: scene.textures.count, warnings: scene.warnings)
    }
}

extension SceneBuilder {
    /// Counts what `build` would produce from `stage` without making it: the traversal, transforms,
    /// materials, textures (loaded to de-duplicate them and check their declared size) and every
    /// mesh's topology and material slots are the same, so nodes, meshes, triangles, materials and
    /// textures equal the full build's counts; normals and texture coordinates are neither decoded
    /// nor read, and no mesh is triangulated or welded. For callers that report a scene rather
    /// than use it (`inspect`).
    ///
    /// - Parameters: as `build`.
    /// - Throws: as `build`, except for failures that only decoding normals or texture coordinates
    ///   would find.
    public static func countStructure(
        stage: UsdStage, sourceFormat: String, limits: ParseLimits, budget: MemoryBudget,
        loadAsset: (String, String) -> [UInt8]?
    ) throws -> SceneStructure {
        try convert(
            stage: stage, sourceFormat: sourceFormat, limits: limits, budget: budget, loadAsset: loadAsset,
            structureOnly: true
        ) { ctx in
            let scene = ctx.scene
            let perMesh = scene.meshes.indices.map { ctx.triangleCount(of: MeshIndex($0)) }
            return SceneStructure(
                nodes: scene.nodes.count, meshes: scene.meshes.count, triangles: perMesh.reduce(0, +),
                instancedTriangles: scene.nodes.reduce(0) { $0 + ($1.mesh.map { perMesh[$0.rawValue] } ?? 0) },
                materials: scene.materials.count, textures: scene.textures.count, warnings: scene.warnings)
        }
    }
}
