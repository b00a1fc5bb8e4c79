import GLBWriter
import SceneModel
import Thumbnailer

extension ModelStage {
    /// WebP quality of re-encoded textures.
    static let textureWebPQuality: Float = 90

    /// Re-encodes every PNG or JPEG texture of `scene` as WebP whose longest side is at most
    /// `maxSide` (redaction already happened: what is re-encoded is the texture the outputs may
    /// show). A texture that does not decode is kept as it is and reported with `GLB_TEXTURE_KEPT`.
    /// The decoded images go to `sharing` (as far as its capacity allows).
    static func reencodeTextures(_ scene: inout Scene, maxSide: Int, sharing: inout SharedTextureDecodes) -> [SceneWarning] {
        var warnings: [SceneWarning] = []
        for i in scene.textures.indices {
            let texture = scene.textures[i]
            let type = Texture.sniffMIMEType(texture.bytes)
            guard type == "image/png" || type == "image/jpeg" else { continue }
            do {
                let webp = try TextureTranscoder.webp(
                    texture.bytes, maxSide: maxSide, quality: textureWebPQuality, texture: i, sharing: &sharing)
                scene.textures[i].bytes = webp.bytes
                scene.textures[i].mimeType = "image/webp"
            } catch {
                warnings.append(SceneWarning(
                    code: "GLB_TEXTURE_KEPT",
                    message: "texture \(texture.sourcePath) was not re-encoded as WebP (\(error.code)); kept as \(type)"))
            }
        }
        return warnings
    }
}
