/// A PBR metallic-roughness material (the glTF 2.0 core subset), converted from UsdPreviewSurface.
/// Colours are linear; factors are in [0, 1].
public struct Material: Hashable, Sendable {
    public enum AlphaMode: Hashable, Sendable {
        case opaque
        /// Alpha-tested with the given cutoff.
        case mask(cutoff: Float)
        case blend
    }

    public var name: String
    /// Linear RGB base colour and alpha (opacity).
    public var baseColor: SIMD4<Float>
    public var baseColorTexture: TextureRef?
    public var metallic: Float
    public var roughness: Float
    /// Texture whose B channel is metallic and G channel roughness (glTF packing), if any.
    public var metallicRoughnessTexture: TextureRef?
    public var emissive: SIMD3<Float>
    public var emissiveTexture: TextureRef?
    public var normalTexture: TextureRef?
    /// Scale applied to the tangent-space normal's X and Y.
    public var normalScale: Float
    public var occlusionTexture: TextureRef?
    /// Opacity in [0, 1] (also in `baseColor.w`).
    public var opacity: Float
    public var alphaMode: AlphaMode
    public var doubleSided: Bool
    /// Path of the source material prim.
    public var sourcePath: String

    public init(
        name: String, baseColor: SIMD4<Float> = SIMD4(0.18, 0.18, 0.18, 1), baseColorTexture: TextureRef? = nil,
        metallic: Float = 0, roughness: Float = 0.5, metallicRoughnessTexture: TextureRef? = nil,
        emissive: SIMD3<Float> = .zero, emissiveTexture: TextureRef? = nil, normalTexture: TextureRef? = nil,
        normalScale: Float = 1, occlusionTexture: TextureRef? = nil, opacity: Float = 1,
        alphaMode: AlphaMode = .opaque, doubleSided: Bool = false, sourcePath: String = ""
    ) {
        self.name = name
        self.baseColor = baseColor
        self.baseColorTexture = baseColorTexture
        self.metallic = metallic
        self.roughness = roughness
        self.metallicRoughnessTexture = metallicRoughnessTexture
        self.emissive = emissive
        self.emissiveTexture = emissiveTexture
        self.normalTexture = normalTexture
        self.normalScale = normalScale
        self.occlusionTexture = occlusionTexture
        self.opacity = opacity
        self.alphaMode = alphaMode
        self.doubleSided = doubleSided
        self.sourcePath = sourcePath
    }
}

/// A reference from a material slot to a texture, with sampling state.
public struct TextureRef: Hashable, Sendable {
    public enum Wrap: Hashable, Sendable { case repeatTexture, clamp, mirror }

    public var texture: TextureIndex
    public var wrapS: Wrap
    public var wrapT: Wrap
    /// UV transform applied as scale → rotate → translate (UsdTransform2d / KHR_texture_transform).
    public var uvTransform: UVTransform?
    /// Source channel selection (`rgb`, `r`, `g`, `b`, `a`).
    public var channel: String
    /// Per-channel scale and bias from UsdUVTexture (`inputs:scale`, `inputs:bias`).
    public var scale: SIMD4<Float>
    public var bias: SIMD4<Float>

    public init(
        texture: TextureIndex, wrapS: Wrap = .repeatTexture, wrapT: Wrap = .repeatTexture,
        uvTransform: UVTransform? = nil, channel: String = "rgb", scale: SIMD4<Float> = .one,
        bias: SIMD4<Float> = .zero
    ) {
        self.texture = texture
        self.wrapS = wrapS
        self.wrapT = wrapT
        self.uvTransform = uvTransform
        self.channel = channel
        self.scale = scale
        self.bias = bias
    }
}

/// A 2D texture-coordinate transform: scale, then rotate (radians, counter-clockwise), then translate.
public struct UVTransform: Hashable, Sendable {
    public var translation: SIMD2<Float>
    public var rotation: Float
    public var scale: SIMD2<Float>

    public init(translation: SIMD2<Float> = .zero, rotation: Float = 0, scale: SIMD2<Float> = .one) {
        self.translation = translation
        self.rotation = rotation
        self.scale = scale
    }
}
