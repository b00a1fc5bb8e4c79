import SceneModel
import Thumbnailer

/// The thumbnails in WebP: hero, card, small card, orbit, and the plan view unless the plan stage
/// drew it. A reprocess whose thumbnail key is unchanged takes them from the previous revision; a
/// scene with nothing to draw gets none (`THUMB_SKIPPED`).
enum PreviewStage {
    /// What the preview stage hands on.
    struct Output {
        /// Every view the manifest lists, the plan thumbnail (when the plan drew it) last.
        var views: [ThumbnailView] = []
        /// The renderer's findings (or the previous revision's, when its views are reused).
        var warnings: [SceneWarning] = []
    }

    /// Most bytes of decoded textures kept between the model stage and the renderer (64 MiB: four
    /// 2048² images, or one 4096²): a scan's few textures are decoded once; a model with more
    /// decodes the rest twice rather than hold them through writing and the plan.
    static let maxSharedDecodeBytes = 64 << 20

    /// Bytes of decoded textures the model stage keeps for the renderer: the renderer's texture
    /// budget, at most `maxSharedDecodeBytes`, when it will draw views and decodes textures for
    /// the same longest side as the model's WebP re-encoding; 0 otherwise (nothing to share).
    static func sharedDecodeCapacity(_ input: PipelineInput, reusable: PreviousOutputs.Reusable) -> Int {
        guard reusable.thumbnails == nil, let options = input.thumbnails, !options.views.isEmpty,
              input.textureFormat == .webp, input.maxTextureSize == options.maxWorkingTextureSize
        else { return 0 }
        return min(options.textureMemoryBudget, maxSharedDecodeBytes)
    }

    /// Runs the stage, as the `preview` phase when the renderer draws views; adds the renderer's
    /// warnings to `run`'s.
    /// - Parameter sharing: the textures the model stage decoded, moved on to the renderer.
    /// - Throws: `PipelineError` with the renderer's `THUMB_*` codes (an empty scene is not an
    ///   error: it gets no views and a `THUMB_SKIPPED` warning).
    static func run(_ layered: LayeredScene, input: PipelineInput, plan: PlanStage.Output,
                    reusable: PreviousOutputs.Reusable, sharing: consuming SharedTextureDecodes = SharedTextureDecodes(capacity: 0),
                    in run: inout PipelineRun) throws(PipelineError) -> Output {
        var out = Output()
        if let previous = reusable.thumbnails {
            out = Output(views: previous.views, warnings: previous.warnings)
            run.reused += previous.views.map(\.path)
        } else if var options = input.thumbnails, !options.views.isEmpty {
            if plan.thumbnail != nil { options.views.remove(.plan) }
            if !options.views.isEmpty {
                // Moved into the renderer (which frees each image once it has its own copy).
                var pending = Optional(consume sharing)
                out = try run.phase(.preview) { () throws -> Output in
                    try render(layered, options: options, sharing: pending.take() ?? SharedTextureDecodes(capacity: 0))
                }
            }
        }
        run.warnings += out.warnings
        if let drawn = plan.thumbnail { out.views.append(drawn) }
        return out
    }

    /// The views `options` ask for, rendered. Throws the renderer's errors as `PipelineError`s;
    /// anything else is left to the phase (`INTERNAL_ERROR`).
    static func render(
        _ layered: LayeredScene, options: ThumbnailOptions,
        sharing: consuming SharedTextureDecodes = SharedTextureDecodes(capacity: 0)
    ) throws -> Output {
        do {
            let rendered = try Thumbnailer.render(layered, options: options, sharing: consume sharing)
            return Output(views: rendered.views, warnings: rendered.warnings)
        } catch let e as ThumbnailerError where e.code == .emptyScene {
            return Output(warnings: [SceneWarning(code: "THUMB_SKIPPED", message: e.message)])
        } catch let e as ThumbnailerError {
            throw PipelineError(code: e.code, message: e.message, phase: .preview)
        }
    }
}
