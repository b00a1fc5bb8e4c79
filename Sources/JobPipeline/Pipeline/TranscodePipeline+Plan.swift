import FloorPlan
import SceneModel
import Thumbnailer

/// The floor-plan step: the plan built once as values, then written as SVG (by hand, real text),
/// PDF and the plan thumbnail (cairo) and DXF.
extension TranscodePipeline {
    struct PlanOutputs {
        var files: [(path: String, bytes: [UInt8])] = []
        var rooms: [RoomFigures] = []
        /// The door and window schedule.
        var openings: [OpeningFigures] = []
        /// Why there is no plan (the input is not a room), for the manifest.
        var note: String?
        var stories = 0
        /// The cairo raster that replaces the plan thumbnail, and its camera.
        var thumbnail: (webp: [UInt8], camera: ViewCamera)?
    }

    /// `files`: the plan files of the previous revision, checked and with an unchanged key: the
    /// plan is still built (its rooms and sheets go into the manifest) but not written again.
    /// - Throws: `PipelineError` `PLAN_RENDER_FAILED` (permanent: the same plan fails the same way)
    ///   when cairo or libwebp fail.
    static func drawPlan(_ layered: LayeredScene, options: PlanOptions, thumbnail: (width: Int, height: Int, quality: Float, segments: Int)?,
                         files previous: [(path: String, bytes: [UInt8])]? = nil)
        throws(PipelineError) -> PlanOutputs
    {
        var out = PlanOutputs()
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
                out.files = [("plan.svg", SVGPlanWriter.write(plan)), ("plan.pdf", try CairoPlanRenderer.pdf(plan)),
                             ("plan.dxf", DXFPlanWriter.write(plan))]
            }
            if let t = thumbnail {
                let r = try CairoPlanRenderer.raster(first, locale: options.locale, width: t.width, height: t.height)
                let webp = try Thumbnailer.encodeWebP(
                    rgba: r.rgba, width: t.width, height: t.height, quality: t.quality, segments: t.segments)
                out.thumbnail = (webp, camera(first, raster: r, width: t.width, height: t.height, layered: layered))
            }
        } catch let e as FloorPlanError {
            throw PipelineError(code: e.code, message: e.message, phase: .plan)
        } catch let e as ThumbnailerError {
            throw PipelineError(code: "PLAN_RENDER_FAILED", message: e.message, phase: .plan)
        } catch {
            throw PipelineError(code: "PLAN_RENDER_FAILED", message: "\(error)", phase: .plan)
        }
        return out
    }

    /// The orthographic top-down camera equivalent to the raster: looking down −Y, with up on
    /// screen the world direction the sheet draws upwards (−Z when the sheet is not turned),
    /// centred on the image centre.
    static func camera(
        _ sheet: PlanSheet, raster: (rgba: [UInt8], pixelsPerMillimetre: Double, offset: SIMD2<Double>), width: Int, height: Int,
        layered: LayeredScene
    ) -> ViewCamera {
        let centrePaper = (SIMD2(Double(width), Double(height)) / 2 - raster.offset) / raster.pixelsPerMillimetre
        let c = sheet.world(centrePaper)
        let up = sheet.worldVector(SIMD2(0, -1))
        let metresPerPixel = sheet.scale / 1000 / raster.pixelsPerMillimetre
        let floorY = layered.elements.first { $0.category == .floor }?.transform.transformPoint(.zero).y ?? 0
        let y = floorY.isFinite ? floorY : 0
        return ViewCamera.orthographic(
            position: SIMD3(c.x, y + 20, c.y), target: SIMD3(c.x, y, c.y), up: SIMD3(up.x, 0, up.y),
            halfExtent: Double(height) / 2 * metresPerPixel)
    }
}
