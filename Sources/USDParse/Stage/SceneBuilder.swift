import SceneModel

/// Converts a composed `UsdStage` into the neutral `Scene` (metres, +Y up, right-handed,
/// counter-clockwise front faces).
///
/// Decisions every consumer can rely on:
/// * **One node per kept prim**, in depth-first pre-order, named after the prim, with the prim's
///   path, type, `kind`, `customData` and per-reference `customData` (RoomPlan identity). See
///   `StageTraversal` for what is kept and skipped.
/// * **Unit and up-axis correction on the root nodes.** `metersPerUnit` (fallback 0.01, per
///   UsdGeom) becomes a uniform scale and `upAxis = Z` a −90° rotation about X; their product is
///   pre-multiplied onto every root node's local transform. No synthetic root node is added, so
///   the node tree mirrors the prim tree exactly and RoomPlan element names stay on the nodes
///   that carry them. Mesh data is never rescaled; for RoomPlan (metres, Y up) the correction is
///   the identity and transforms are copied bit for bit.
/// * **Transforms** follow `XformOps`; `!resetXformStack!` stores
///   `local = inverse(parentWorld) × world` so the node's world transform is the prim's own.
/// * **Meshes** are in their node's frame (`MeshExtractor`, `GprimTessellator`); texture
///   coordinates are flipped to the glTF convention (`v' = 1 − v`, see `Mesh.uv0`) and
///   `UsdTransform2d` transforms are converted to match (`TextureExtractor.uvTransform`).
///   Normals are not transformed. A mirroring transform (negative determinant) is left in the
///   node transform, not baked into the winding.
/// * **Materials** come from UsdPreviewSurface (`MaterialExtractor`), one per Material prim in
///   first-use order, plus double-sided copies and `displayColor` materials as needed.
/// * **Instancing**: instance proxies are ordinary prims; PointInstancers expand into nodes that
///   share their prototypes' meshes (`PointInstancerExpander`); identical implicit gprims with the
///   same material share one mesh.
/// * Non-fatal problems become `Scene.warnings` with stable codes and the prim path; the output is
///   deterministic for a given stage.
public enum SceneBuilder {
    /// Converts a composed stage into a Scene in metres, +Y up. `loadAsset(assetPath, layerIdentifier)`
    /// returns the bytes of a texture authored in that layer (nil when it cannot be resolved); the
    /// caller owns resolution.
    ///
    /// - Parameters:
    ///   - stage: the composed stage (not retained).
    ///   - sourceFormat: recorded in `SceneMetadata.sourceFormat` (`usdz`, `usdc`, `usda`).
    ///   - limits: `maxTriangles` caps the triangles produced and drawn (instancing included);
    ///     `maxComposedPrims` caps the nodes created (instancing included).
    ///   - budget: charged before the large output allocations (index and vertex streams,
    ///     welding tables, texture bytes).
    ///   - loadAsset: called once per distinct (asset path, layer) pair; the returned bytes are
    ///     stored in the scene, which owns them from then on.
    /// - Returns: a scene that passes `SceneValidator` without errors.
    /// - Throws: `USDParseError` with `USD_LIMIT_EXCEEDED` (`maxTriangles`, also for a mesh whose
    ///   array sizes alone exceed it, see `MeshSizeCheck`; `maxComposedPrims`; `maxTextureDimension`) or
    ///   `USD_MEMORY_BUDGET_EXCEEDED`. Malformed geometry, materials and transforms are skipped
    ///   with warnings instead.
    public static func build(
        stage: UsdStage, sourceFormat: String, limits: ParseLimits, budget: MemoryBudget,
        loadAsset: (String, String) -> [UInt8]?
    ) throws -> Scene {
        try convert(
            stage: stage, sourceFormat: sourceFormat, limits: limits, budget: budget, loadAsset: loadAsset,
            structureOnly: false, result: { $0.scene })
    }

    /// The traversal shared by `build` and `countStructure`; `result` reads the finished context
    /// (which must not outlive the call: it holds `loadAsset`). `structureOnly` leaves out what only
    /// vertex streams need (see `StageBuildContext.structureOnly`). `prepassMinimumCorners` is
    /// where mesh validation moves ahead of the traversal (`TopologyPrepass`).
    static func convert<T>(
        stage: UsdStage, sourceFormat: String, limits: ParseLimits, budget: MemoryBudget,
        loadAsset: (String, String) -> [UInt8]?, structureOnly: Bool,
        prepassMinimumCorners: Int = TopologyPrepass.minimumCorners, result: (StageBuildContext) -> T
    ) throws -> T {
        // A mesh whose array headers already exceed maxTriangles fails before anything is decoded.
        try MeshSizeCheck.check(stage, limits: limits)
        // Large arrays are decoded lazily; decode them all now, in parallel, so that a corrupt
        // array is a typed error (with its prim path) rather than a missing value. On a large stage
        // each mesh's arrays are decoded and checked in one task first (`TopologyPrepass`).
        let include: @Sendable (String) -> Bool
        if structureOnly { include = { !StageBuildContext.isStreamOnly($0) } } else { include = { _ in true } }
        let validated = TopologyPrepass.run(
            stage: stage, time: StageBuildContext.time(of: stage), minimumCorners: prepassMinimumCorners,
            decoding: include)
        try DeferredDecoding.resolve(stage, where: include)
        return try withoutActuallyEscaping(loadAsset) { load in
            let ctx = StageBuildContext(
                stage: stage, limits: limits, budget: budget, loadAsset: load, structureOnly: structureOnly)
            ctx.validatedTopologies = validated
            let correction = stageCorrection(stage: stage, ctx: ctx)
            ctx.scene.metadata.sourceFormat = sourceFormat
            ctx.scene.metadata.defaultPrim = stage.defaultPrim
            warnTimeSampled(stage: stage, ctx: ctx)
            guard let root = stage.prims.first else {
                ctx.warn("USD_STAGE_EMPTY", "the stage has no prims", nil)
                ctx.finishWarnings()
                return result(ctx)
            }
            let traversal = StageTraversal(ctx: ctx)
            var nodes: [Node] = []
            try traversal.emit(roots: root.children, correction: correction, prototype: false, into: &nodes)
            ctx.finishMeshes()
            ctx.scene.nodes = nodes
            ctx.finishWarnings()
            return result(ctx)
        }
    }

    /// Attributes the scene reads at a time code when they have no default (`ctx.time`).
    static func isTimeSampledInput(_ name: String, primType: String) -> Bool {
        switch name {
        case "points", "normals", "primvars:normals", "faceVertexCounts", "faceVertexIndices", "holeIndices",
            "visibility", "xformOpOrder":
            return true
        case "protoIndices", "positions", "orientations", "orientationsf", "scales", "ids", "invisibleIds":
            return primType == "PointInstancer"
        default: return name.hasPrefix("xformOp:") || name.hasPrefix("primvars:normals:")
        }
    }

    /// One `USD_STAGE_TIME_SAMPLED` warning per stage when points, normals, topology, visibility,
    /// xform ops or PointInstancer instance attributes are authored only as time samples, naming the time code used and the first such
    /// attribute (prims in pre-order, attributes by name).
    static func warnTimeSampled(stage: UsdStage, ctx: StageBuildContext) {
        var count = 0
        var first: String?
        for prim in stage.prims {
            for name in prim.attributes.keys.sorted()
            where isTimeSampledInput(name, primType: prim.typeName) && prim.attributes[name]!.hasOnlyTimeSamples {
                count += 1
                if first == nil { first = prim.path.string + "." + name }
            }
        }
        guard count > 0, let first else { return }
        let when =
            ctx.time.map { "their values at startTimeCode \($0)" }
            ?? "each one's earliest time sample (the stage has no startTimeCode)"
        ctx.warn(
            "USD_STAGE_TIME_SAMPLED", "\(count) attributes have only time samples (first \(first)); the scene uses \(when)",
            nil)
    }

    /// Reads `upAxis` and `metersPerUnit`, records them in the scene metadata, and returns the
    /// correction applied to root nodes: `scale(metersPerUnit) × rotateX(−90°)` for Z-up stages,
    /// `scale(metersPerUnit)` otherwise (identity for metres, Y up).
    static func stageCorrection(stage: UsdStage, ctx: StageBuildContext) -> Matrix4 {
        var upAxis = SceneMetadata.UpAxis.y
        if let token = stage.upAxis {
            switch token.uppercased() {
            case "Y": upAxis = .y
            case "Z": upAxis = .z
            default: ctx.warn("USD_STAGE_UP_AXIS_INVALID", "upAxis \(token) is not Y or Z; Y assumed", nil)
            }
        }
        var metersPerUnit = 0.01
        if stage.metadata["metersPerUnit"] != nil {
            if let m = stage.metersPerUnit, m.isFinite, m > 0 {
                metersPerUnit = m
            } else {
                ctx.warn("USD_STAGE_UNITS_INVALID", "metersPerUnit is not a positive number; 0.01 assumed", nil)
            }
        }
        ctx.scene.metadata.sourceUpAxis = upAxis
        ctx.scene.metadata.sourceMetersPerUnit = metersPerUnit
        var correction = Matrix4.identity
        if upAxis == .z {
            // −90° about X, exact: +Z (up) becomes +Y and +Y becomes −Z.
            correction = Matrix4(columnMajor: [1, 0, 0, 0, 0, 0, -1, 0, 0, 1, 0, 0, 0, 0, 0, 1])
        }
        if metersPerUnit != 1 {
            correction = XformOps.multiply(.scale(metersPerUnit, metersPerUnit, metersPerUnit), correction)
        }
        return correction
    }
}
