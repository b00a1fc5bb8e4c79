import SceneModel

/// A material reduced to what the rasteriser shades: linear base colour × texture × vertex colour,
/// lit by a `LightRig`.
struct ShadeMaterial: Sendable {
    /// Linear RGB and alpha (opacity).
    var base: SIMD4<Float>
    var emissive: SIMD3<Float>
    /// Sampler entry of the base-colour texture, or −1.
    var texture: Int
    /// Rows of the 2×3 UV transform (u' = row0 · (u, v, 1)).
    var uvRow0: SIMD3<Float>
    var uvRow1: SIMD3<Float>
    var wrapS: UInt8
    var wrapT: UInt8
    var texScale: SIMD4<Float>
    var texBias: SIMD4<Float>
    /// Alpha-tested (mask) cutoff; nil when not masked.
    var cutoff: Float?
    var doubleSided: Bool
    /// Drawn in the transparent pass (blend mode or opacity below 1).
    var transparent: Bool

    /// The default material (glTF's: white-ish grey, single-sided).
    static let fallback = ShadeMaterial(
        base: SIMD4(0.6, 0.6, 0.6, 1), emissive: .zero, texture: -1, uvRow0: SIMD3(1, 0, 0), uvRow1: SIMD3(0, 1, 0),
        wrapS: 0, wrapT: 0, texScale: .one, texBias: .zero, cutoff: nil, doubleSided: false, transparent: false)

    init(
        base: SIMD4<Float>, emissive: SIMD3<Float>, texture: Int, uvRow0: SIMD3<Float>, uvRow1: SIMD3<Float>,
        wrapS: UInt8, wrapT: UInt8, texScale: SIMD4<Float>, texBias: SIMD4<Float>, cutoff: Float?, doubleSided: Bool,
        transparent: Bool
    ) {
        self.base = base
        self.emissive = emissive
        self.texture = texture
        self.uvRow0 = uvRow0
        self.uvRow1 = uvRow1
        self.wrapS = wrapS
        self.wrapT = wrapT
        self.texScale = texScale
        self.texBias = texBias
        self.cutoff = cutoff
        self.doubleSided = doubleSided
        self.transparent = transparent
    }

    /// Converts a scene material; `entryOfTexture` maps scene textures to sampler entries
    /// (missing: the texture failed and the factor colour is used).
    init(_ m: Material, entryOfTexture: [Int: Int], sampler: TextureSampler) {
        func clean(_ v: Float, _ fallback: Float) -> Float { v.isFinite ? min(max(v, 0), 1) : fallback }
        let opacity = clean(m.opacity, 1)
        let alpha = min(clean(m.baseColor.w, 1), opacity)
        base = SIMD4(clean(m.baseColor.x, 0.6), clean(m.baseColor.y, 0.6), clean(m.baseColor.z, 0.6), alpha)
        emissive = SIMD3(clean(m.emissive.x, 0), clean(m.emissive.y, 0), clean(m.emissive.z, 0))
        texture = -1
        uvRow0 = SIMD3(1, 0, 0)
        uvRow1 = SIMD3(0, 1, 0)
        wrapS = 0
        wrapT = 0
        texScale = .one
        texBias = .zero
        var textureAlpha = false
        if let ref = m.baseColorTexture, let entry = entryOfTexture[ref.texture.rawValue] {
            texture = entry
            textureAlpha = sampler.entries[entry].hasAlpha
            func wrap(_ w: TextureRef.Wrap) -> UInt8 {
                switch w {
                case .repeatTexture: return TextureSampler.wrapRepeat
                case .clamp: return TextureSampler.wrapClamp
                case .mirror: return TextureSampler.wrapMirror
                }
            }
            wrapS = wrap(ref.wrapS)
            wrapT = wrap(ref.wrapT)
            let finite4 = { (v: SIMD4<Float>, f: SIMD4<Float>) -> SIMD4<Float> in
                SIMD4(
                    v.x.isFinite ? v.x : f.x, v.y.isFinite ? v.y : f.y, v.z.isFinite ? v.z : f.z,
                    v.w.isFinite ? v.w : f.w)
            }
            texScale = finite4(ref.scale, .one)
            texBias = finite4(ref.bias, .zero)
            if let t = ref.uvTransform {
                // KHR_texture_transform: translation × rotation × scale.
                let sx = t.scale.x.isFinite ? t.scale.x : 1, sy = t.scale.y.isFinite ? t.scale.y : 1
                let r = t.rotation.isFinite ? t.rotation : 0
                let tx = t.translation.x.isFinite ? t.translation.x : 0,
                    ty = t.translation.y.isFinite ? t.translation.y : 0
                let c = Float(Double(r).cosine), s = Float(Double(r).sine)
                uvRow0 = SIMD3(c * sx, -s * sy, tx)
                uvRow1 = SIMD3(s * sx, c * sy, ty)
            }
        }
        switch m.alphaMode {
        case .opaque:
            cutoff = nil
            transparent = opacity < 0.999
        case .mask(let c):
            cutoff = c.isFinite ? c : 0.5
            transparent = false
        case .blend:
            cutoff = nil
            transparent = alpha < 0.999 || textureAlpha
        }
        doubleSided = m.doubleSided
    }
}

/// The lights of a perspective or top view: a sky/ground hemisphere plus a key and a fill light,
/// placed relative to the camera so every orbit frame is lit alike. White light; returns a
/// scalar irradiance split into an ambient part (scaled by occlusion) and a direct part.
struct LightRig: Sendable {
    var key: SIMD3<Float>
    var keyIntensity: Float
    var fill: SIMD3<Float>
    var fillIntensity: Float
    var sky: Float
    var ground: Float

    /// Share of the direct light that ambient occlusion also darkens (contact shadows read more).
    static let directOcclusion: Float = 0.45

    /// Unlit: every surface shows its base colour.
    static let unlit = LightRig(
        key: SIMD3(0, 1, 0), keyIntensity: 0, fill: SIMD3(0, 1, 0), fillIntensity: 0, sky: 1, ground: 1)

    init(key: SIMD3<Float>, keyIntensity: Float, fill: SIMD3<Float>, fillIntensity: Float, sky: Float, ground: Float) {
        self.key = key
        self.keyIntensity = keyIntensity
        self.fill = fill
        self.fillIntensity = fillIntensity
        self.sky = sky
        self.ground = ground
    }

    /// The studio rig for a camera: key from above-left behind the viewer, fill from the right.
    init(camera: RenderCamera) {
        func f(_ v: SIMD3<Double>) -> SIMD3<Float> { SIMD3(Float(v.x), Float(v.y), Float(v.z)) }
        let worldUp = SIMD3<Double>(0, 1, 0)
        var k = -camera.forward * 0.55 - camera.right * 0.45 + worldUp * 0.9
        var fl = -camera.forward * 0.5 + camera.right * 0.8 + worldUp * 0.25
        k = k.normalizedOrZero
        fl = fl.normalizedOrZero
        key = f(k)
        keyIntensity = 0.62
        fill = f(fl)
        fillIntensity = 0.22
        sky = 0.52
        ground = 0.30
    }

    /// Ambient (hemisphere) irradiance for a unit normal.
    @inline(__always)
    func ambient(_ n: SIMD3<Float>) -> Float {
        ground + (sky - ground) * (0.5 + 0.5 * n.y)
    }

    /// Direct irradiance for a unit normal.
    @inline(__always)
    func direct(_ n: SIMD3<Float>) -> Float {
        keyIntensity * max(0, n.dot(key)) + fillIntensity * max(0, n.dot(fill))
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Double {
    fileprivate var cosine: Double { cos(self) }
    fileprivate var sine: Double { sin(self) }
}
