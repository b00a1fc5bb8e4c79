import SceneModel
import JSONCore

/// An image to embed: the scene texture whose bytes are copied into the BIN chunk as-is.
struct ImageEntry {
    var texture: TextureIndex
    var mimeType: String
    var name: String?
}

/// The material side of the document, in glTF index order.
struct ConvertedMaterials {
    var materials: [JSONValue] = []
    var textures: [JSONValue] = []
    var samplers: [JSONValue] = []
    var images: [ImageEntry] = []
    var usesTextureTransform = false
    /// True when an embedded image is WebP (then `EXT_texture_webp` is used and required).
    var usesWebP = false
    /// Scene material index → glTF material index (looked up, never iterated).
    var materialIndex: [Int: Int] = [:]
    /// glTF index of the shared default material for primitives without one.
    var defaultMaterial: Int?
    var warnings: [SceneWarning] = []
}

/// Converts scene materials to glTF PBR metallic-roughness materials with de-duplicated samplers,
/// images and textures.
///
/// - Only materials some written primitive uses are converted, in scene order; the default material
///   (`Material(name: "default")`: UsdPreviewSurface fallbacks) comes last, once, when needed.
/// - Textures, samplers and images are numbered in first-use order (materials in order; slots
///   base colour, metallic-roughness, normal, occlusion, emissive). Samplers are keyed by wrap modes
///   (filters are always LINEAR / LINEAR_MIPMAP_LINEAR), images by MIME type and bytes, textures by
///   (sampler, image).
/// - Images are embedded when their bytes are PNG or JPEG (sniffed; the sniffed type wins over a
///   wrong declared one). Other images are dropped with `GLB_IMAGE_DROPPED`: the slot loses its
///   texture and keeps its factor.
/// - A metallic-roughness texture is kept when its source channel is glTF's packing (`g` roughness,
///   `b` metallic, or `rgb`/`rgba`); an occlusion texture when it reads `r` (or `rgb`/`rgba`).
///   Otherwise the texture is dropped, the factor kept, and `GLB_TEXTURE_CHANNELS` reported.
/// - A UsdUVTexture scale without bias is folded into the base colour, emissive, metallic and
///   roughness factors; other scale/bias pairs cannot be expressed (`GLB_TEXTURE_SCALE_BIAS`).
///   Normal maps' scale/bias was already turned into `normalScale` by the parser.
/// - Factors are clamped to [0, 1]; non-finite factors take glTF defaults (`GLB_MATERIAL_CLAMPED`).
struct MaterialConverter {
    private let scene: Scene
    private var out = ConvertedMaterials()
    private var imageOfTexture: [Int: Int?] = [:]
    private var imageByContent: [ImageKey: Int] = [:]
    private var samplerByWrap: [SamplerKey: Int] = [:]
    private var textureByPair: [SIMD2<Int>: Int] = [:]

    private struct ImageKey: Hashable {
        var mimeType: String
        var bytes: [UInt8]
    }

    private struct SamplerKey: Hashable {
        var wrapS: Int
        var wrapT: Int
    }

    init(scene: Scene) { self.scene = scene }

    /// Converts the materials flagged in `used` (indexed by scene material) and, when
    /// `needsDefault`, appends the default material.
    ///
    /// Materials that differ only in name are written once (the first one's name is kept), so a
    /// scan whose elements each carry their own copy of one white material gets one glTF material.
    mutating func convert(used: [Bool], needsDefault: Bool) -> ConvertedMaterials {
        var written: [[UInt8]: Int] = [:]  // the material's JSON without its name → glTF index
        func add(_ json: JSONValue) -> Int {
            let key = GLTFJSON.serialize(Self.withoutName(json))
            if let index = written[key] { return index }
            written[key] = out.materials.count
            out.materials.append(json)
            return out.materials.count - 1
        }
        for (i, isUsed) in used.enumerated() where isUsed {
            out.materialIndex[i] = add(material(scene.materials[i]))
        }
        if needsDefault { out.defaultMaterial = add(material(Material(name: "default"))) }
        return out
    }

    /// Converts the materials the primitives of `meshes` draw with (the default material when some
    /// primitive has none).
    mutating func convert(_ meshes: [Mesh]) -> ConvertedMaterials {
        var used = [Bool](repeating: false, count: scene.materials.count)
        var needsDefault = false
        for mesh in meshes {
            for p in MeshPreparer.drawRanges(mesh) {
                if let m = p.material { used[m.rawValue] = true } else { needsDefault = true }
            }
        }
        return convert(used: used, needsDefault: needsDefault)
    }

    private static func withoutName(_ json: JSONValue) -> JSONValue {
        guard case .members(let members) = json else { return json }
        return .members(members.filter { $0.key != "name" })
    }

    private mutating func material(_ m: Material) -> JSONValue {
        var clamped = false
        func unit(_ v: Float, default d: Float) -> Float {
            let c = v.isFinite ? min(max(v, 0), 1) : d
            if c != v { clamped = true }
            return c
        }
        var baseColor = m.baseColor
        var metallic = m.metallic
        var roughness = m.roughness
        var emissive = m.emissive

        var pbr = JSONObjectBuilder()
        var baseInfo: JSONValue?
        if let ref = m.baseColorTexture, let info = textureInfo(ref, slot: "baseColor", material: m) {
            baseInfo = info
            if foldScale(ref, slot: "baseColor", material: m) { baseColor *= ref.scale }
        }
        var mrInfo: JSONValue?
        if let ref = m.metallicRoughnessTexture {
            if ["g", "b", "rgb", "rgba"].contains(ref.channel) {
                mrInfo = textureInfo(ref, slot: "metallicRoughness", material: m)
                if mrInfo != nil, foldScale(ref, slot: "metallicRoughness", material: m) {
                    roughness *= ref.scale.y
                    metallic *= ref.scale.z
                }
            } else {
                channelWarning(ref, slot: "metallicRoughness", expected: "g (roughness) / b (metallic)", material: m)
            }
        }
        var emissiveInfo: JSONValue?
        if let ref = m.emissiveTexture, let info = textureInfo(ref, slot: "emissive", material: m) {
            emissiveInfo = info
            if foldScale(ref, slot: "emissive", material: m) {
                emissive *= SIMD3(ref.scale.x, ref.scale.y, ref.scale.z)
            }
        }
        let base = SIMD4(
            unit(baseColor.x, default: 1), unit(baseColor.y, default: 1), unit(baseColor.z, default: 1),
            unit(baseColor.w, default: 1))
        if base != SIMD4(1, 1, 1, 1) { pbr.set("baseColorFactor", .floats([base.x, base.y, base.z, base.w])) }
        pbr.set("baseColorTexture", baseInfo)
        let metal = unit(metallic, default: 1)
        let rough = unit(roughness, default: 1)
        if metal != 1 { pbr.set("metallicFactor", .float(metal)) }
        if rough != 1 { pbr.set("roughnessFactor", .float(rough)) }
        pbr.set("metallicRoughnessTexture", mrInfo)

        var json = JSONObjectBuilder()
        if !m.name.isEmpty { json.set("name", .string(m.name)) }
        if !pbr.members.isEmpty { json.set("pbrMetallicRoughness", pbr.value) }
        if let ref = m.normalTexture {
            let scale = m.normalScale.isFinite ? m.normalScale : 1
            if scale != m.normalScale { clamped = true }
            json.set("normalTexture", textureInfo(ref, slot: "normal", material: m, scale: ("scale", scale)))
        }
        if let ref = m.occlusionTexture {
            if ["r", "rgb", "rgba"].contains(ref.channel) {
                if ref.scale != .one || ref.bias != .zero { scaleBiasWarning(ref, slot: "occlusion", material: m) }
                json.set("occlusionTexture", textureInfo(ref, slot: "occlusion", material: m))
            } else {
                channelWarning(ref, slot: "occlusion", expected: "r", material: m)
            }
        }
        json.set("emissiveTexture", emissiveInfo)
        let emit = SIMD3(unit(emissive.x, default: 0), unit(emissive.y, default: 0), unit(emissive.z, default: 0))
        if emit != .zero { json.set("emissiveFactor", .floats([emit.x, emit.y, emit.z])) }
        switch m.alphaMode {
        case .opaque: break
        case .mask(let cutoff):
            json.set("alphaMode", .string("MASK"))
            json.set("alphaCutoff", .float(cutoff.isFinite ? max(cutoff, 0) : 0.5))
        case .blend: json.set("alphaMode", .string("BLEND"))
        }
        if m.doubleSided { json.set("doubleSided", .bool(true)) }
        if clamped {
            warn(
                "GLB_MATERIAL_CLAMPED", "material \(m.name): factors outside [0, 1] or not finite were clamped",
                m.sourcePath)
        }
        return json.value
    }

    /// True when the ref's scale can be folded into the slot's factor (bias zero, scale not one).
    private mutating func foldScale(_ ref: TextureRef, slot: String, material m: Material) -> Bool {
        if ref.bias != .zero {
            scaleBiasWarning(ref, slot: slot, material: m)
            return false
        }
        return ref.scale != .one
    }

    /// The texture info object, or nil when the image is dropped.
    private mutating func textureInfo(
        _ ref: TextureRef, slot: String, material m: Material, scale: (String, Float)? = nil
    ) -> JSONValue? {
        guard let image = image(for: ref.texture, material: m) else { return nil }
        let sampler = samplerIndex(ref)
        let pair = SIMD2(sampler, image)
        let texture: Int
        if let existing = textureByPair[pair] {
            texture = existing
        } else {
            texture = out.textures.count
            textureByPair[pair] = texture
            if out.images[image].mimeType == "image/webp" {
                // EXT_texture_webp, required: the image is named by the extension, not `source`.
                out.textures.append(.members([
                    JSONMember("sampler", .int(sampler)),
                    JSONMember("extensions", .members([
                        JSONMember("EXT_texture_webp", .members([JSONMember("source", .int(image))]))
                    ])),
                ]))
            } else {
                out.textures.append(.members([JSONMember("sampler", .int(sampler)), JSONMember("source", .int(image))]))
            }
        }
        var info = JSONObjectBuilder()
        info.set("index", .int(texture))
        if let scale { info.set(scale.0, .float(scale.1)) }
        if let t = ref.uvTransform, let ext = Self.textureTransform(t) {
            out.usesTextureTransform = true
            info.set("extensions", .members([JSONMember("KHR_texture_transform", ext)]))
        }
        return info.value
    }

    /// KHR_texture_transform for an authored transform; nil when it is the identity (a no-op).
    /// `offset` = translation, `rotation` in radians, `scale`; default-valued fields are omitted.
    static func textureTransform(_ t: UVTransform) -> JSONValue? {
        let offset = SIMD2(
            t.translation.x.isFinite ? t.translation.x : 0, t.translation.y.isFinite ? t.translation.y : 0)
        let rotation = t.rotation.isFinite ? t.rotation : 0
        let scale = SIMD2(t.scale.x.isFinite ? t.scale.x : 1, t.scale.y.isFinite ? t.scale.y : 1)
        var ext = JSONObjectBuilder()
        if offset != .zero { ext.set("offset", .floats([offset.x, offset.y])) }
        if rotation != 0 { ext.set("rotation", .float(rotation)) }
        if scale != .one { ext.set("scale", .floats([scale.x, scale.y])) }
        return ext.members.isEmpty ? nil : ext.value
    }

    private mutating func image(for texture: TextureIndex, material m: Material) -> Int? {
        if let known = imageOfTexture[texture.rawValue] { return known }
        let tex = scene.textures[texture.rawValue]
        let sniffed = Texture.sniffMIMEType(tex.bytes)
        guard sniffed == "image/png" || sniffed == "image/jpeg" || sniffed == "image/webp" else {
            imageOfTexture[texture.rawValue] = .some(nil)
            let declared = tex.mimeType.isEmpty ? sniffed : tex.mimeType
            warn(
                "GLB_IMAGE_DROPPED",
                "texture \(tex.sourcePath) (\(tex.bytes.isEmpty ? "no bytes" : declared)) is not PNG, JPEG or WebP; "
                    + "dropped, material factors kept (first used by material \(m.name))", tex.sourcePath)
            return nil
        }
        let key = ImageKey(mimeType: sniffed, bytes: tex.bytes)
        let index: Int
        if let existing = imageByContent[key] {
            index = existing
        } else {
            index = out.images.count
            imageByContent[key] = index
            if sniffed == "image/webp" { out.usesWebP = true }
            out.images.append(
                ImageEntry(
                    texture: texture, mimeType: sniffed, name: tex.sourcePath.isEmpty ? nil : tex.sourcePath))
        }
        imageOfTexture[texture.rawValue] = index
        return index
    }

    private mutating func samplerIndex(_ ref: TextureRef) -> Int {
        func code(_ w: TextureRef.Wrap) -> Int {
            switch w {
            case .repeatTexture: return 10497
            case .clamp: return 33071
            case .mirror: return 33648
            }
        }
        let key = SamplerKey(wrapS: code(ref.wrapS), wrapT: code(ref.wrapT))
        if let existing = samplerByWrap[key] { return existing }
        let index = out.samplers.count
        samplerByWrap[key] = index
        out.samplers.append(
            .members([
                JSONMember("magFilter", .int(9729)), JSONMember("minFilter", .int(9987)),
                JSONMember("wrapS", .int(key.wrapS)), JSONMember("wrapT", .int(key.wrapT)),
            ]))
        return index
    }

    private mutating func channelWarning(_ ref: TextureRef, slot: String, expected: String, material m: Material) {
        warn(
            "GLB_TEXTURE_CHANNELS",
            "material \(m.name): \(slot) texture reads channel \(ref.channel) but glTF expects \(expected); "
                + "texture dropped, factor kept", m.sourcePath)
    }

    private mutating func scaleBiasWarning(_ ref: TextureRef, slot: String, material m: Material) {
        warn(
            "GLB_TEXTURE_SCALE_BIAS",
            "material \(m.name): \(slot) texture scale/bias cannot be expressed in glTF; ignored", m.sourcePath)
    }

    private mutating func warn(_ code: String, _ message: String, _ path: String) {
        out.warnings.append(SceneWarning(code: code, message: message, primPath: path.isEmpty ? nil : path))
    }
}
