import GLBWriter
import SceneModel
import Thumbnailer
import WorkerCore

/// Writing the `.glb`: a room's untextured materials coloured by category (unless the scan's own
/// colours are asked for), textures re-encoded as WebP (unless the originals are asked for), then
/// the model written. Only the model's copy of the scene changes: the thumbnails and the manifest
/// read the layered scene as it was.
enum ModelStage {
    /// What writing hands on.
    struct Output {
        var glb: GLBOutput
        /// Lowercase hexadecimal SHA-256 of `glb.bytes` (the model is hashed once).
        var sha256: String
        /// The colour of each layer that has one (sRGB hex), for the manifest; empty with
        /// `.source` materials.
        var palette: [LayerID: UInt32] = [:]
        /// The textures decoded for the WebP re-encoding, kept for the renderer (see
        /// `PreviewStage.sharedDecodeCapacity`); taken by `takeDecodes()`.
        var decodes = SharedTextureDecodes(capacity: 0)

        /// The decoded textures, leaving none behind (so that they are freed after their last use).
        mutating func takeDecodes() -> SharedTextureDecodes {
            defer { decodes = SharedTextureDecodes(capacity: 0) }
            return decodes
        }
    }

    /// Runs the stage as the `writing` phase; adds the textures kept (`GLB_TEXTURE_KEPT`) and the
    /// writer's findings to `run`'s warnings. Keeps up to `shareDecodes` bytes of the textures it
    /// decodes for the renderer.
    /// - Throws: `PipelineError` with GLBWriter's `GLB_*` codes.
    static func run(_ layered: LayeredScene, input: PipelineInput, shareDecodes: Int = 0, in run: inout PipelineRun)
        throws(PipelineError) -> Output
    {
        var palette: [LayerID: UInt32] = [:]
        var decodes = SharedTextureDecodes(capacity: shareDecodes)
        var textureWarnings: [SceneWarning] = []
        let glb = try run.phase(.writing) {
            // The scene is validated once, here, before its first consumer; the model's copy
            // below only gains valid meshes and materials, and the plan and the pictures read it
            // after this check.
            try GLBWriter.checkValid(layered.scene)
            var forGLB = layered
            if input.materials == .palette { palette = forGLB.applyCategoryPalette() }
            if input.textureFormat == .webp {
                textureWarnings = reencodeTextures(&forGLB.scene, maxSide: input.maxTextureSize, sharing: &decodes)
            }
            var options = GLBOptions(
                generator: "CrowdRoom transcode-worker \(TranscodePipeline.generatorVersion)", compression: input.glbCompression)
            options.sceneValidated = true
            return try GLBWriter.write(forGLB, options: options)
        }
        run.warnings += textureWarnings + glb.warnings
        return Output(glb: glb, sha256: Digest.hex(Digest.sha256(glb.bytes)), palette: palette, decodes: decodes)
    }
}
