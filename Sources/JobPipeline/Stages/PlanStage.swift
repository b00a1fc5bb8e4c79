import WorkerCore
import FloorPlan
import SceneModel
import Thumbnailer

/// The floor plan (rooms only): the plan built once as values, then written as SVG (by hand, real
/// text), PDF and DXF, and, when the plan view is asked for, its cairo raster as the plan
/// thumbnail. It runs before the renderer, which then leaves the plan view out. A reprocess whose
/// plan key is unchanged takes the files (and the thumbnail) from the previous revision; the plan
/// is still built, because its rooms and sheets go into the manifest.
enum PlanStage {
    /// What the plan stage hands on.
    struct Output {
        /// `plan.svg`, `plan.pdf`, `plan.dxf`, in that order; empty when there is no plan.
        var files: [(path: String, bytes: [UInt8])] = []
        var rooms: [RoomFigures] = []
        /// The door and window schedule.
        var openings: [OpeningFigures] = []
        /// Why there is no plan (the input is not a room), for the manifest.
        var note: String?
        var stories = 0
        /// The plan thumbnail drawn from the plan (`thumbs/plan.webp`), or nil (the renderer
        /// draws the plan view, or none is asked for).
        var thumbnail: ThumbnailView?
    }

    /// The size and encoding of the plan thumbnail when the plan view is asked for.
    typealias ThumbnailSize = (width: Int, height: Int, quality: Float, segments: Int)

    /// Runs the stage as the `plan` phase when `input.plan` asks for a plan (else nothing runs).
    /// - Throws: `PipelineError` `PLAN_RENDER_FAILED` (permanent: the same plan fails the same way)
    ///   when cairo or libwebp fail.
    static func run(_ layered: LayeredScene, input: PipelineInput, reusable: PreviousOutputs.Reusable,
                    in run: inout PipelineRun) throws(PipelineError) -> Output {
        guard let options = input.plan else { return Output() }
        let size = thumbnailSize(input)
        var out = try run.phase(.plan) { () throws(PipelineError) -> Output in
            try draw(layered, options: options, thumbnail: reusable.planThumbnail == nil ? size : nil, files: reusable.planFiles)
        }
        if reusable.planFiles != nil { run.reused += out.files.map(\.path) }
        if let previous = reusable.planThumbnail, let size, !out.files.isEmpty {
            out.thumbnail = ThumbnailView(kind: .plan, path: OutputName.planThumbnail, width: size.width,
                                          height: size.height, webp: previous.webp, camera: previous.camera)
            run.reused.append(previous.path)
        }
        return out
    }

    /// The plan thumbnail's size when `input` asks for the plan view.
    static func thumbnailSize(_ input: PipelineInput) -> ThumbnailSize? {
        guard let o = input.thumbnails, o.views.contains(.plan) else { return nil }
        return (o.sizes[.plan].width, o.sizes[.plan].height, o.webpQuality, o.webpSegments)
    }

    /// The plan of `layered`, its files written (or, given `previous`, the previous revision's
    /// files, already checked) and the thumbnail drawn when `thumbnail` gives its size.
    static func draw(_ layered: LayeredScene, options: PlanOptions, thumbnail: ThumbnailSize?,
                     files previous: [(path: String, bytes: [UInt8])]? = nil) throws(PipelineError) -> Output {
        var out = Output()
        let built = PlanBuilder.build(layered, options: options)
        guard let plan = built.plan, let first = plan.sheets.first else {
            out.note = built.note ?? "no plan: nothing to draw"
            return out
        }
        out.rooms = plan.rooms
        out.openings = plan.openings
        out.stories = plan.sheets.count
        do {
            if let previous {
                out.files = previous
            } else {
                out.files = [(OutputName.planSVG, SVGPlanWriter.write(plan)), (OutputName.planPDF, try CairoPlanRenderer.pdf(plan)),
                             (OutputName.planDXF, DXFPlanWriter.write(plan))]
            }
            if let t = thumbnail {
                let r = try CairoPlanRenderer.raster(first, locale: options.locale, width: t.width, height: t.height)
                let webp = try Thumbnailer.encodeWebP(
                    rgba: r.rgba, width: t.width, height: t.height, quality: t.quality, segments: t.segments)
                let camera = first.topDownCamera(
                    pixelsPerMillimetre: r.pixelsPerMillimetre, offset: r.offset, width: t.width, height: t.height,
                    layered: layered)
                out.thumbnail = ThumbnailView(kind: .plan, path: OutputName.planThumbnail, width: t.width,
                                              height: t.height, webp: webp, camera: camera)
            }
        } catch let e as FloorPlanError {
            throw PipelineError(code: e.code, message: e.message, phase: .plan)
        } catch let e as ThumbnailerError {
            throw PipelineError(code: FloorPlanError.Code.renderFailed, message: e.message, phase: .plan)
        } catch {
            throw PipelineError(code: FloorPlanError.Code.renderFailed, message: "\(error)", phase: .plan)
        }
        return out
    }
}
