import SceneModel

/// Converts bound Material prims (UsdPreviewSurface networks) into scene materials, once per
/// Material prim in first-use order, and derives the extra materials meshes need: double-sided
/// copies and materials made from `displayColor`.
///
/// Mapping: `diffuseColor` → base colour (linear) or base-colour texture; `opacity` →
/// `baseColor.w`/`opacity`; alpha mode `mask(cutoff: opacityThreshold)` for a positive
/// threshold, else `blend` when opacity < 1 (or textured), else `opaque`; `metallic`, `roughness`
/// (values, or a texture → `metallicRoughnessTexture`, whose `channel` is the roughness source
/// channel, else the metallic one; the textured factor becomes 1); `emissiveColor`; `normal` and
/// `occlusion` textures. The specular workflow (`useSpecularWorkflow = 1`) is approximated with
/// metallic 0 and a warning. Unsupported networks (MaterialX-only, other shader ids) give a
/// default material that keeps the prim's name.
final class MaterialExtractor {
    /// What a mesh needs to know about its bound material.
    struct Info {
        var index: MaterialIndex
        /// UV sets (primvar names) the material's textures read, in first-use order.
        var varnames: [String]
        /// Primvar feeding the base colour through a primvar reader (e.g. `displayColor`).
        var colorPrimvar: String?
        var hasTextures: Bool
    }

    let textures = TextureExtractor()
    private var byPath: [SdfPath: Info?] = [:]
    private var doubleSidedCopies: [Int: MaterialIndex] = [:]
    private var colorMaterials: [ColorKey: MaterialIndex] = [:]

    /// The material bound to the prim at `primIndex` (walking up the hierarchy), converted.
    func boundMaterial(primIndex: Int, ctx: StageBuildContext) throws -> Info? {
        guard let path = MaterialBinding.boundMaterialPath(primIndex: primIndex, stage: ctx.stage) else { return nil }
        return try material(at: path, boundFrom: ctx.stage.prims[primIndex].path, ctx: ctx)
    }

    /// The converted material of the Material prim at `path` (cached by path).
    func material(at path: SdfPath, boundFrom: SdfPath, ctx: StageBuildContext) throws -> Info? {
        if let cached = byPath[path] { return cached }
        guard let mi = ctx.stage.primIndex(at: path), ctx.stage.prims[mi].typeName == "Material" else {
            ctx.warn("USD_MATERIAL_BINDING_INVALID", "binding target \(path) is not a Material prim", boundFrom)
            byPath[path] = .some(nil)
            return nil
        }
        let info = try convert(materialPrim: mi, ctx: ctx)
        byPath[path] = info
        return info
    }

    private func convert(materialPrim mi: Int, ctx: StageBuildContext) throws -> Info {
        let stage = ctx.stage
        let prim = stage.prims[mi]
        var material = Material(name: prim.name, sourcePath: try ctx.sourcePath(of: prim.path))
        var info = Info(index: MaterialIndex(0), varnames: [], colorPrimvar: nil, hasTextures: false)

        guard case .output(let shader, _)? = ShaderGraph.resolve(mi, "outputs:surface", stage: stage) else {
            let mtlx = prim.attributes.keys.contains { $0.hasPrefix("outputs:mtlx:") }
            ctx.warn(
                "USD_MATERIAL_UNSUPPORTED_SHADER",
                mtlx
                    ? "MaterialX-only material (no outputs:surface); default material used"
                    : "no outputs:surface connection; default material used", prim.path)
            info.index = ctx.scene.addMaterial(material)
            return info
        }
        let id = ShaderGraph.shaderID(stage.prims[shader]) ?? ""
        guard id == "UsdPreviewSurface" else {
            ctx.warn(
                "USD_MATERIAL_UNSUPPORTED_SHADER",
                "surface shader \(id.isEmpty ? "without info:id" : id) is not UsdPreviewSurface; default material used",
                prim.path)
            info.index = ctx.scene.addMaterial(material)
            return info
        }

        var inputs = SurfaceInputs(
            shader: shader, stage: stage, materialPath: prim.path, ctx: ctx, textures: textures, info: info)
        try inputs.readBaseColor(into: &material)
        try inputs.readOpacity(into: &material)
        try inputs.readMetallicRoughness(into: &material)
        try inputs.readEmission(into: &material)
        try inputs.readNormalAndOcclusion(into: &material)
        info = inputs.info
        info.index = ctx.scene.addMaterial(material)
        return info
    }

    /// The inputs of one UsdPreviewSurface shader, read into a material; `info` gathers the UV
    /// sets, the colour primvar and whether a texture was found.
    private struct SurfaceInputs {
        let shader: Int
        let stage: UsdStage
        let materialPath: SdfPath
        let ctx: StageBuildContext
        let textures: TextureExtractor
        var info: Info

        /// The input `inputs:<name>`, followed through connections.
        func input(_ name: String) -> ShaderInput? { ShaderGraph.resolve(shader, "inputs:" + name, stage: stage) }

        /// The value the shader itself authors for `inputs:<name>`.
        func ownValue(_ name: String) -> SdfValue? { stage.prims[shader].value("inputs:" + name) }

        /// A colour value, each channel clamped to [0, 1].
        static func color(_ v: SdfValue?) -> SIMD3<Float>? {
            guard let d = AttributeValues.vector(v, count: 3) else { return nil }
            return SIMD3(clamp01(Float(d[0])), clamp01(Float(d[1])), clamp01(Float(d[2])))
        }

        /// A finite scalar value.
        static func scalar(_ v: SdfValue?) -> Float? {
            guard let d = AttributeValues.double(v), d.isFinite else { return nil }
            return Float(d)
        }

        /// The texture behind output `out` of shader `s`, noting its UV set.
        mutating func texture(_ s: Int, _ out: String) throws -> TextureRef? {
            guard let r = try textures.resolve(shader: s, output: out, materialPath: materialPath, ctx: ctx) else {
                return nil
            }
            if let v = r.varname, !info.varnames.contains(v) { info.varnames.append(v) }
            info.hasTextures = true
            return r.ref
        }

        /// The primvar a `UsdPrimvarReader` shader `s` reads; nil for other shaders.
        func primvarReader(_ s: Int) -> String? {
            guard ShaderGraph.shaderID(stage.prims[s])?.hasPrefix("UsdPrimvarReader") == true else { return nil }
            return ShaderGraph.value(s, "inputs:varname", stage: stage)?.token
        }

        /// `diffuseColor`: a value, a primvar reader, a texture, or the shader's own value.
        mutating func readBaseColor(into material: inout Material) throws {
            switch input("diffuseColor") {
            case .value(let v, _)?:
                if let c = Self.color(v) { material.baseColor = SIMD4(c, 1) }
            case .output(let s, let out)?:
                if let name = primvarReader(s) {
                    info.colorPrimvar = name
                    material.baseColor = SIMD4(1, 1, 1, 1)
                } else if let ref = try texture(s, out) {
                    material.baseColorTexture = ref
                    material.baseColor = SIMD4(1, 1, 1, 1)
                } else if let c = Self.color(ownValue("diffuseColor")) {
                    material.baseColor = SIMD4(c, 1)
                }
            case nil: break
            }
        }

        /// `opacity` (a value, or the base-colour texture's alpha) and the alpha mode from it and
        /// `opacityThreshold`.
        mutating func readOpacity(into material: inout Material) throws {
            var opacity: Float = 1
            var opacityTextured = false
            switch input("opacity") {
            case .value(let v, _)?:
                opacity = min(max(Self.scalar(v) ?? 1, 0), 1)
            case .output(let s, let out)?:
                if let ref = try texture(s, out) {
                    if ref.texture == material.baseColorTexture?.texture {
                        opacityTextured = true
                    } else {
                        ctx.warn(
                            "USD_MATERIAL_OPACITY_TEXTURE",
                            "opacity texture that is not the base-colour texture's alpha is ignored", materialPath)
                    }
                }
                if !opacityTextured { opacity = min(max(Self.scalar(ownValue("opacity")) ?? 1, 0), 1) }
            case nil: break
            }
            material.opacity = opacity
            material.baseColor.w = opacity
            let threshold = Self.scalar(ShaderGraph.value(shader, "inputs:opacityThreshold", stage: stage)) ?? 0
            if threshold > 0 {
                material.alphaMode = .mask(cutoff: min(threshold, 1))
            } else if opacity < 1 || opacityTextured {
                material.alphaMode = .blend
            }
        }

        /// `roughness` and `metallic` (values, or one texture for both); the specular workflow
        /// is approximated with metallic 0.
        mutating func readMetallicRoughness(into material: inout Material) throws {
            let specular =
                (AttributeValues.double(ShaderGraph.value(shader, "inputs:useSpecularWorkflow", stage: stage)) ?? 0) != 0
            var roughnessRef: TextureRef?
            switch input("roughness") {
            case .value(let v, _)?: material.roughness = min(max(Self.scalar(v) ?? 0.5, 0), 1)
            case .output(let s, let out)?:
                if let ref = try texture(s, out) {
                    roughnessRef = ref
                    material.roughness = 1
                } else {
                    material.roughness = min(max(Self.scalar(ownValue("roughness")) ?? 0.5, 0), 1)
                }
            case nil: break
            }
            if specular {
                material.metallic = 0
                ctx.warn("USD_MATERIAL_SPECULAR_WORKFLOW", "specular workflow approximated as metallic 0", materialPath)
            } else {
                switch input("metallic") {
                case .value(let v, _)?: material.metallic = min(max(Self.scalar(v) ?? 0, 0), 1)
                case .output(let s, let out)?:
                    let ref = try texture(s, out)
                    if let ref, roughnessRef == nil || roughnessRef?.texture == ref.texture {
                        material.metallic = 1
                        if roughnessRef == nil { roughnessRef = ref }
                    } else {
                        if ref != nil {
                            ctx.warn(
                                "USD_MATERIAL_TEXTURE_PACKING",
                                "metallic and roughness come from different textures; roughness texture kept",
                                materialPath)
                        }
                        material.metallic = min(max(Self.scalar(ownValue("metallic")) ?? 0, 0), 1)
                    }
                case nil: break
                }
            }
            material.metallicRoughnessTexture = roughnessRef
        }

        /// `emissiveColor`: a value, a texture, or the shader's own value.
        mutating func readEmission(into material: inout Material) throws {
            switch input("emissiveColor") {
            case .value(let v, _)?: if let c = Self.color(v) { material.emissive = c }
            case .output(let s, let out)?:
                if let ref = try texture(s, out) {
                    material.emissiveTexture = ref
                    material.emissive = SIMD3(1, 1, 1)
                } else if let c = Self.color(ownValue("emissiveColor")) {
                    material.emissive = c
                }
            case nil: break
            }
        }

        /// The `normal` and `occlusion` textures. The normal texture's scale/bias maps [0, 1] to
        /// [-1, 1]; scale 2k with bias −k is a normal scale of k.
        mutating func readNormalAndOcclusion(into material: inout Material) throws {
            if case .output(let s, let out)? = input("normal"), let ref = try texture(s, out) {
                material.normalTexture = ref
                let k = ref.scale.x / 2
                if k.isFinite, k > 0, abs(ref.bias.x + k) < 1e-4 { material.normalScale = k }
            }
            if case .output(let s, let out)? = input("occlusion"), let ref = try texture(s, out) {
                material.occlusionTexture = ref
            }
        }
    }

    /// A double-sided version of `material` (the material itself when already double-sided; a
    /// copy named `<name>_doubleSided`, created once; a default double-sided material for nil).
    func doubleSided(_ material: MaterialIndex?, ctx: StageBuildContext) -> MaterialIndex {
        let key = material?.rawValue ?? -1
        if let m = material, ctx.scene.materials[m.rawValue].doubleSided { return m }
        if let copy = doubleSidedCopies[key] { return copy }
        var copy = material.map { ctx.scene.materials[$0.rawValue] } ?? Material(name: "default")
        copy.name += "_doubleSided"
        copy.doubleSided = true
        let index = ctx.scene.addMaterial(copy)
        doubleSidedCopies[key] = index
        return index
    }

    /// A material whose base colour is a mesh's constant `displayColor`/`displayOpacity`
    /// (de-duplicated by colour). Linear RGB; opacity < 1 blends. `vertexAlpha` marks a material
    /// for meshes whose `colors` stream carries varying opacity (blended).
    func displayColorMaterial(rgb: SIMD3<Float>, opacity: Float, vertexAlpha: Bool = false, ctx: StageBuildContext)
        -> MaterialIndex
    {
        let rgba = SIMD4(clamp01(rgb.x), clamp01(rgb.y), clamp01(rgb.z), clamp01(opacity))
        let key = ColorKey(
            bits: SIMD4(rgba.x.bitPattern, rgba.y.bitPattern, rgba.z.bitPattern, rgba.w.bitPattern),
            vertexAlpha: vertexAlpha)
        if let m = colorMaterials[key] { return m }
        func hex(_ f: Float) -> String {
            let v = Int((f * 255).rounded())
            let s = String(v, radix: 16)
            return s.count == 1 ? "0" + s : s
        }
        var material = Material(name: "displayColor_" + hex(rgba.x) + hex(rgba.y) + hex(rgba.z), baseColor: rgba)
        material.opacity = rgba.w
        if rgba.w < 1 || vertexAlpha { material.alphaMode = .blend }
        let index = ctx.scene.addMaterial(material)
        colorMaterials[key] = index
        return index
    }

    private struct ColorKey: Hashable {
        var bits: SIMD4<UInt32>
        var vertexAlpha: Bool
    }
}

/// `f` clamped to [0, 1]; non-finite values become 0.
@inline(__always)
func clamp01(_ f: Float) -> Float { f.isFinite ? min(max(f, 0), 1) : 0 }
