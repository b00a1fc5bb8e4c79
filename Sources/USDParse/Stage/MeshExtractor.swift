import SceneModel

/// Converts a `Mesh` prim into a scene `Mesh` in the prim's own frame (points are not
/// transformed; normals stay in the same local frame).
///
/// * Topology is validated first (`MeshTopology`); a bad mesh is skipped with a warning
///   (`USD_MESH_INVALID_TOPOLOGY`, `USD_MESH_NONFINITE`, `USD_MESH_EMPTY`), never a whole-file failure.
/// * Faces are fanned when convex and ear-clipped when concave (`Triangulator`);
///   `orientation = leftHanded` reverses the winding so front faces are counter-clockwise.
/// * `subdivisionScheme` other than `none` (when authored) renders the control cage with a
///   `USD_MESH_SUBDIVISION_CAGE` warning. The unauthored fallback (`catmullClark`) is treated as
///   polygonal without a warning, since exporters that mean polygons often omit it.
/// * GeomSubsets of family `materialBind` split the faces into one primitive per material, in
///   subset order, then the faces in no subset (the mesh's own binding). Subsets that resolve to
///   the same material share one primitive.
/// * Primvars: `primvars:normals` (else `normals`), the UV set named by the bound material's
///   primvar reader (else `st`, `st0`, `st_0`, `UVMap`, `uv`, `map1`, else the first
///   `texCoord2*` primvar by name), `displayColor` / `displayOpacity`. Every interpolation and
///   indexed primvars are supported; invalid primvars are dropped with `USD_PRIMVAR_INVALID`.
///   Normals without `interpolation` metadata are read per vertex (the `normals` fallback, also
///   applied to `primvars:normals`); other primvars default to constant. Normals are normalised
///   and dropped when an index is −1; missing UVs read (0, 0) and missing colours white.
///   V is flipped (`v' = 1 − v`) because `Mesh.uv0` uses the glTF convention.
/// * Colours: a constant `displayColor` on an unbound mesh becomes the material's base colour;
///   varying colours become the `colors` stream (only when no material is bound, so they never
///   tint a real material).
/// * `doubleSided` makes every primitive's material double-sided (a copy when needed). A
///   mirroring node transform (negative determinant) is not baked into the winding.
enum MeshExtractor {
    /// Common names of the primary UV set, tried after the material's own primvar names.
    static let uvFallbackNames = ["st", "st0", "st_0", "UVMap", "uv", "map1"]

    /// Converts the Mesh prim at `primIndex`; nil when it is skipped (with a warning).
    /// - Throws: `USD_LIMIT_EXCEEDED` past `maxTriangles`; `USD_MEMORY_BUDGET_EXCEEDED`.
    static func extract(primIndex: Int, ctx: StageBuildContext) throws -> MeshIndex? {
        let prim = ctx.stage.prims[primIndex]
        let path = prim.path
        guard let topology = try drawableTopology(primIndex: primIndex, ctx: ctx) else { return nil }

        // Materials: the mesh's binding, then one slot per distinct subset material.
        let meshInfo = try ctx.materials.boundMaterial(primIndex: primIndex, ctx: ctx)
        let subsets = try readSubsets(primIndex: primIndex, faceCount: topology.faceCount, ctx: ctx)

        var reader = PrimvarReader(prim: prim, topology: topology, ctx: ctx)
        var attrs = VertexAttributes()
        // (A structure-only conversion reads neither normals nor texture coordinates.)
        if !ctx.structureOnly { readNormals(&reader, into: &attrs) }
        readTextureCoordinates(&reader, into: &attrs, meshInfo: meshInfo, subsets: subsets)
        let defaultMaterial = readColors(&reader, into: &attrs, meshInfo: meshInfo, subsets: subsets)
        let (slotMaterials, faceSlots) = slots(
            subsets: subsets, defaultMaterial: defaultMaterial, faceCount: topology.faceCount)

        // Materials of the non-empty slots (double-sided copies made here, in stage order), then
        // triangulation and vertex streams, which `PendingMesh` runs later on all cores.
        let flip = prim.token("orientation") == "leftHanded"
        try ctx.charge(StageBuildContext.bytes(topology.triangleCount, 12), "indices of \(path)")
        try MeshAssembler.charge(
            topology: topology, cornerCount: topology.triangleCount * 3, attributes: attrs, ctx: ctx, path: path)
        let doubleSided = AttributeValues.bool(prim.value("doubleSided")) ?? false
        let used = topology.slotIsUsed(faceSlots: faceSlots, slotCount: slotMaterials.count)
        var primitiveMaterials: [MaterialIndex?] = []
        for s in slotMaterials.indices where used[s] {
            var material = slotMaterials[s]
            if doubleSided { material = ctx.materials.doubleSided(material, ctx: ctx) }
            primitiveMaterials.append(material)
        }
        return ctx.addPendingMesh(
            PendingMesh(
                name: prim.name, path: path, sourcePath: try ctx.sourcePath(of: path), topology: topology,
                faceSlots: faceSlots,
                slotCount: slotMaterials.count, flip: flip, attributes: attrs, primitiveMaterials: primitiveMaterials))
    }

    /// The mesh's validated topology, nil (with a warning) when it is missing, invalid or draws
    /// no face; warns of degenerate faces and subdivision, and reserves the triangles.
    private static func drawableTopology(primIndex: Int, ctx: StageBuildContext) throws -> MeshTopology? {
        let prim = ctx.stage.prims[primIndex]
        let path = prim.path
        let topology: MeshTopology
        switch ctx.topology(ofPrim: primIndex) {
        case .missing:
            ctx.warn("USD_MESH_INVALID_TOPOLOGY", "points, faceVertexCounts or faceVertexIndices missing or mistyped", path)
            return nil
        case .invalid(let problem):
            ctx.warn(problem.code, problem.message + "; mesh skipped", path)
            return nil
        case .valid(let valid):
            topology = valid
        }
        guard topology.triangleCount > 0 else {
            ctx.warn("USD_MESH_EMPTY", "mesh has no drawable faces", path)
            return nil
        }
        if topology.degenerateFaces > 0 {
            ctx.warn(
                "USD_MESH_DEGENERATE_FACES", "\(topology.degenerateFaces) faces with fewer than 3 corners skipped", path)
        }
        if let scheme = prim.token("subdivisionScheme"), scheme != "none" {
            ctx.warn("USD_MESH_SUBDIVISION_CAGE", "subdivisionScheme \(scheme): the control cage is used", path)
        }
        try ctx.reserveMeshTriangles(topology.triangleCount, path: path)
        return topology
    }

    /// Reads a mesh's primvars and checks them against its topology, warning of the invalid ones
    /// (`USD_PRIMVAR_INVALID`); `problem` carries what `Primvar.read` found wrong.
    private struct PrimvarReader {
        let prim: UsdPrim
        let topology: MeshTopology
        let ctx: StageBuildContext
        var problem: String?

        /// The primvar `name`, validated; nil (after a warning) when it is unreadable or invalid.
        mutating func read(
            _ name: String, components: Int, fallback: PrimvarInterpolation, time: Double? = nil
        ) -> Primvar? {
            let read = Primvar.read(
                prim, name: name, components: components, fallback: fallback, time: time, problem: &problem)
            return validated(read)
        }

        /// `pv` when it fits the topology; nil (after a warning) otherwise or when it is nil.
        mutating func validated(_ pv: Primvar?) -> Primvar? {
            guard var pv else {
                if let p = problem { ctx.warn("USD_PRIMVAR_INVALID", p + "; primvar ignored", prim.path) }
                problem = nil
                return nil
            }
            if let p = pv.validate(
                faceCount: topology.faceCount, pointCount: topology.pointCount, cornerCount: topology.cornerCount)
            {
                ctx.warn("USD_PRIMVAR_INVALID", p + "; primvar ignored", prim.path)
                return nil
            }
            return pv
        }
    }

    /// Normals: `primvars:normals`, else `normals`, read per vertex when not said otherwise and
    /// normalised; ignored when an index is unassigned.
    private static func readNormals(_ reader: inout PrimvarReader, into attrs: inout VertexAttributes) {
        let prim = reader.prim, ctx = reader.ctx
        for name in ["primvars:normals", "normals"] where attrs.normals == nil && prim.attributes[name] != nil {
            if var n = reader.read(name, components: 3, fallback: .vertex, time: ctx.time) {
                if n.hasMissing {
                    ctx.warn("USD_PRIMVAR_INVALID", "\(name) has unassigned (-1) indices; normals ignored", prim.path)
                    continue
                }
                normalize(&n.values)
                attrs.normals = n
            }
        }
    }

    /// Texture coordinates: the UV set the bound materials read, else a common name, else the
    /// first `texCoord2*` primvar; non-finite values become 0. Warns of several UV sets and of
    /// textures without coordinates.
    private static func readTextureCoordinates(
        _ reader: inout PrimvarReader, into attrs: inout VertexAttributes, meshInfo: MaterialExtractor.Info?,
        subsets: [Subset]
    ) {
        let prim = reader.prim, ctx = reader.ctx, path = prim.path
        let streams = !ctx.structureOnly
        var varnames = meshInfo?.varnames ?? []
        for s in subsets { for v in s.info?.varnames ?? [] where !varnames.contains(v) { varnames.append(v) } }
        if varnames.count > 1 {
            ctx.warn("USD_MESH_MULTIPLE_UV_SETS", "materials read UV sets \(varnames); only \(varnames[0]) is kept", path)
        }
        let texNames = prim.attributes.keys.filter { $0.hasPrefix("primvars:") && !$0.hasSuffix(":indices") }
            .filter { prim.attributes[$0]!.typeName.hasPrefix("texCoord2") }.sorted()
        var tried = Set<String>()
        for name in varnames.map({ "primvars:" + $0 }) + uvFallbackNames.map({ "primvars:" + $0 }) + texNames
        where streams && attrs.uv == nil && prim.attributes[name] != nil && tried.insert(name).inserted {
            if var t = reader.read(name, components: 2, fallback: .constant) {
                for k in t.values.indices where !t.values[k].isFinite { t.values[k] = 0 }
                attrs.uv = t
            }
        }
        let hasTextures = meshInfo?.hasTextures == true || subsets.contains { $0.info?.hasTextures == true }
        if streams && hasTextures && attrs.uv == nil {
            ctx.warn("USD_MESH_MISSING_UV", "textured material bound but the mesh has no texture coordinates", path)
        }
    }

    /// Colours: the `displayColor` (or the material's colour primvar) and `displayOpacity`
    /// primvars as the colour stream or a material of their own. Returns the material of the
    /// faces in no subset.
    private static func readColors(
        _ reader: inout PrimvarReader, into attrs: inout VertexAttributes, meshInfo: MaterialExtractor.Info?,
        subsets: [Subset]
    ) -> MaterialIndex? {
        let prim = reader.prim, ctx = reader.ctx
        let anyBound = meshInfo != nil || subsets.contains { $0.info != nil }
        let colorName = meshInfo?.colorPrimvar ?? subsets.lazy.compactMap { $0.info?.colorPrimvar }.first
        let dcName = "primvars:" + (colorName ?? "displayColor")
        let displayColor =
            prim.attributes[dcName] == nil ? nil : reader.read(dcName, components: 3, fallback: .constant)
        let displayOpacity =
            prim.attributes["primvars:displayOpacity"] == nil
            ? nil
            : reader.read("primvars:displayOpacity", components: 1, fallback: .constant)
        var defaultMaterial = meshInfo?.index
        if colorName != nil, displayColor != nil {
            attrs.color = displayColor
            attrs.emitColors = true
        } else if !anyBound && (displayColor != nil || displayOpacity != nil) {
            let varying = !(displayColor?.isUniformValue ?? true) || !(displayOpacity?.isUniformValue ?? true)
            if varying {
                attrs.color = displayColor
                attrs.opacity = displayOpacity
                attrs.emitColors = true
            }
            let rgb = firstValue3(displayColor) ?? SIMD3(1, 1, 1)
            let alpha = firstValue1(displayOpacity) ?? 1
            attrs.constantRGB = rgb
            attrs.constantAlpha = alpha
            // Varying colours live in the stream alone (white material), so glTF's
            // factor × vertex colour product does not apply them twice.
            defaultMaterial = ctx.materials.displayColorMaterial(
                rgb: varying ? SIMD3(1, 1, 1) : rgb, opacity: varying ? 1 : alpha,
                vertexAlpha: varying && displayOpacity != nil, ctx: ctx)
        }
        return defaultMaterial
    }

    /// The material slots: one per distinct subset material in subset order, then one for the
    /// faces in no subset; with each face's slot (nil without subsets: one slot for all faces).
    private static func slots(
        subsets: [Subset], defaultMaterial: MaterialIndex?, faceCount: Int
    ) -> (materials: [MaterialIndex?], faceSlots: [Int32]?) {
        guard !subsets.isEmpty else { return ([defaultMaterial], nil) }
        var slotMaterials: [MaterialIndex?] = []
        var slots = [Int32](repeating: -1, count: faceCount)
        func slot(for m: MaterialIndex?) -> Int32 {
            if let i = slotMaterials.firstIndex(where: { $0 == m }) { return Int32(i) }
            slotMaterials.append(m)
            return Int32(slotMaterials.count - 1)
        }
        for s in subsets {
            let sid = slot(for: s.info?.index ?? defaultMaterial)
            for f in s.faces where slots[f] < 0 { slots[f] = sid }
        }
        if slots.contains(-1) {
            let rest = slot(for: defaultMaterial)
            for f in slots.indices where slots[f] < 0 { slots[f] = rest }
        }
        return (slotMaterials, slots)
    }

    /// A `materialBind` face subset: its faces (validated) and its resolved material.
    struct Subset {
        var faces: [Int]
        var info: MaterialExtractor.Info?
    }

    /// Reads the GeomSubset children of family `materialBind` in child order.
    private static func readSubsets(primIndex: Int, faceCount: Int, ctx: StageBuildContext) throws -> [Subset] {
        let stage = ctx.stage
        var out: [Subset] = []
        for child in stage.prims[primIndex].children where child >= 0 && child < stage.prims.count {
            let sp = stage.prims[child]
            guard sp.typeName == "GeomSubset", sp.isActive, sp.token("familyName") == "materialBind" else { continue }
            let elementType = sp.token("elementType") ?? "face"
            guard elementType == "face" else {
                ctx.warn("USD_GEOMSUBSET_UNSUPPORTED", "elementType \(elementType) is not supported", sp.path)
                continue
            }
            let raw = AttributeValues.int32s(sp.value("indices")) ?? []
            var faces: [Int] = []
            faces.reserveCapacity(raw.count)
            var bad = 0
            for i in raw {
                if i >= 0 && Int(i) < faceCount { faces.append(Int(i)) } else { bad += 1 }
            }
            if bad > 0 { ctx.warn("USD_GEOMSUBSET_INVALID_INDICES", "\(bad) face indices out of range ignored", sp.path) }
            out.append(Subset(faces: faces, info: try ctx.materials.boundMaterial(primIndex: child, ctx: ctx)))
        }
        return out
    }

    /// Normalises flat xyz vectors in place; zero or non-finite vectors become +Y.
    static func normalize(_ v: inout [Float]) {
        var k = 0
        while k + 2 < v.count {
            let x = v[k]
            let y = v[k + 1]
            let z = v[k + 2]
            let len = (x * x + y * y + z * z).squareRoot()
            if len > 0 && len.isFinite {
                v[k] = x / len
                v[k + 1] = y / len
                v[k + 2] = z / len
            } else {
                v[k] = 0
                v[k + 1] = 1
                v[k + 2] = 0
            }
            k += 3
        }
    }

    private static func firstValue3(_ pv: Primvar?) -> SIMD3<Float>? {
        guard let pv, pv.values.count >= 3 else { return nil }
        var e = 0
        if let idx = pv.indices, let first = idx.first, first >= 0 { e = Int(first) }
        return SIMD3(pv.values[e * 3], pv.values[e * 3 + 1], pv.values[e * 3 + 2])
    }

    private static func firstValue1(_ pv: Primvar?) -> Float? {
        guard let pv, !pv.values.isEmpty else { return nil }
        var e = 0
        if let idx = pv.indices, let first = idx.first, first >= 0 { e = Int(first) }
        return pv.values[e]
    }
}
