import CCairo
import SceneModel

/// Draws floor-plan sheets with cairo: the PDF (one page per story, text through fontconfig in
/// DejaVu Sans, or Noto Sans CJK SC for Chinese) and the raster image of a sheet. The only file
/// that calls cairo. The PDF's dates are pinned, so the same plan gives the same bytes.
public enum CairoPlanRenderer {
    /// The fixed creation date written into every PDF (cairo would otherwise write the time).
    public static let pdfDate = "2000-01-01T00:00:00"
    static let pointsPerMillimetre = 72 / 25.4

    /// The font family the plan's locale needs.
    static func family(_ locale: PlanLocale) -> String { locale == .zhHans ? "Noto Sans CJK SC" : "DejaVu Sans" }

    private final class Sink {
        var bytes: [UInt8] = []
    }

    /// The plan as a PDF document, one page per sheet (the sheet's paper size). Throws
    /// `FloorPlanError` (`PLAN_RENDER_FAILED`) when cairo reports an error.
    public static func pdf(_ plan: FloorPlan) throws(FloorPlanError) -> [UInt8] {
        guard let first = plan.sheets.first else { throw FloorPlanError(code: .renderFailed, message: "no sheet to draw") }
        let sink = Sink()
        let context = Unmanaged.passUnretained(sink).toOpaque()
        let write: cairo_write_func_t = { closure, data, length in
            guard let closure, let data else { return CAIRO_STATUS_WRITE_ERROR }
            let s = Unmanaged<Sink>.fromOpaque(closure).takeUnretainedValue()
            s.bytes.append(contentsOf: UnsafeBufferPointer(start: data, count: Int(length)))
            return CAIRO_STATUS_SUCCESS
        }
        guard let surface = cairo_pdf_surface_create_for_stream(
            write, context, first.width * pointsPerMillimetre, first.height * pointsPerMillimetre)
        else { throw FloorPlanError(code: .renderFailed, message: "cairo could not create a PDF surface") }
        cairo_pdf_surface_restrict_to_version(surface, CAIRO_PDF_VERSION_1_5)
        cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_CREATE_DATE, pdfDate)
        cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_MOD_DATE, pdfDate)
        cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_TITLE, "Floor plan")
        cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_CREATOR, "CrowdRoom transcode-worker")
        let cr = cairo_create(surface)
        for sheet in plan.sheets {
            cairo_pdf_surface_set_size(surface, sheet.width * pointsPerMillimetre, sheet.height * pointsPerMillimetre)
            cairo_save(cr)
            cairo_scale(cr, pointsPerMillimetre, pointsPerMillimetre)
            draw(sheet, cr, family: family(plan.options.locale))
            cairo_restore(cr)
            cairo_show_page(cr)
        }
        let status = cairo_status(cr)
        cairo_destroy(cr)
        cairo_surface_finish(surface)
        let finished = cairo_surface_status(surface)
        cairo_surface_destroy(surface)
        guard status == CAIRO_STATUS_SUCCESS, finished == CAIRO_STATUS_SUCCESS else {
            throw FloorPlanError(code: .renderFailed, message: "cairo: \(String(cString: cairo_status_to_string(status)))")
        }
        return sink.bytes
    }

    /// One sheet's content (`contentMin`…`contentMax`) drawn into `width` × `height` pixels (RGBA,
    /// 8 bits each, rows top to bottom), fitted and centred on white; with the pixels per paper
    /// millimetre and the pixel position of the paper origin.
    public static func raster(_ sheet: PlanSheet, locale: PlanLocale, width: Int, height: Int) throws(FloorPlanError)
        -> (rgba: [UInt8], pixelsPerMillimetre: Double, offset: SIMD2<Double>)
    {
        guard width > 0, height > 0, width <= 8192, height <= 8192 else {
            throw FloorPlanError(code: .renderFailed, message: "raster size \(width)×\(height) out of range")
        }
        guard let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(width), Int32(height)) else {
            throw FloorPlanError(code: .renderFailed, message: "cairo could not create an image surface")
        }
        defer { cairo_surface_destroy(surface) }
        let cr = cairo_create(surface)
        cairo_set_source_rgb(cr, 1, 1, 1)
        cairo_paint(cr)
        // The drawing with its annotation, not the whole page.
        let lo = sheet.contentMin, size = sheet.contentMax - sheet.contentMin
        let k = min(Double(width) / max(size.x, 1), Double(height) / max(size.y, 1))
        let offset = SIMD2((Double(width) - size.x * k) / 2, (Double(height) - size.y * k) / 2) - lo * k
        cairo_translate(cr, offset.x, offset.y)
        cairo_scale(cr, k, k)
        draw(sheet, cr, family: family(locale))
        let status = cairo_status(cr)
        cairo_destroy(cr)
        cairo_surface_flush(surface)
        guard status == CAIRO_STATUS_SUCCESS, let data = cairo_image_surface_get_data(surface) else {
            throw FloorPlanError(code: .renderFailed, message: "cairo: \(String(cString: cairo_status_to_string(status)))")
        }
        let stride = Int(cairo_image_surface_get_stride(surface))
        var rgba = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                // ARGB32 in native (little-endian) order: B, G, R, A; the background is opaque, so
                // the colours are not premultiplied by anything but 1.
                let s = y * stride + 4 * x, d = (y * width + x) * 4
                rgba[d] = data[s + 2]
                rgba[d + 1] = data[s + 1]
                rgba[d + 2] = data[s]
                rgba[d + 3] = data[s + 3]
            }
        }
        return (rgba, k, offset)
    }

    static func colour(_ cr: OpaquePointer?, _ c: UInt32) {
        cairo_set_source_rgb(cr, Double((c >> 16) & 0xFF) / 255, Double((c >> 8) & 0xFF) / 255, Double(c & 0xFF) / 255)
    }

    /// The same font options for the PDF and the raster (those of cairo's PDF surfaces: gray
    /// antialiasing, no hinting, unhinted metrics). cairo resolves a font face's fontconfig
    /// pattern once per process with the options of its first use, so options that differed
    /// between the two would make a raster's bytes depend on what the process drew before.
    static func setFontOptions(_ cr: OpaquePointer?) {
        guard let options = cairo_font_options_create() else { return }
        defer { cairo_font_options_destroy(options) }
        cairo_font_options_set_antialias(options, CAIRO_ANTIALIAS_GRAY)
        cairo_font_options_set_hint_style(options, CAIRO_HINT_STYLE_NONE)
        cairo_font_options_set_hint_metrics(options, CAIRO_HINT_METRICS_OFF)
        cairo_set_font_options(cr, options)
    }

    /// Draws a sheet in paper millimetres.
    static func draw(_ sheet: PlanSheet, _ cr: OpaquePointer?, family: String) {
        setFontOptions(cr)
        colour(cr, PlanColours.paper)
        cairo_rectangle(cr, 0, 0, sheet.width, sheet.height)
        cairo_fill(cr)
        cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND)
        for item in sheet.orderedItems {
            switch item {
            case .polygon(let pts, let fill, let stroke, let width, _):
                guard let first = pts.first else { continue }
                cairo_move_to(cr, first.x, first.y)
                for q in pts.dropFirst() { cairo_line_to(cr, q.x, q.y) }
                cairo_close_path(cr)
                if let fill {
                    colour(cr, fill)
                    if stroke != nil && width > 0 { cairo_fill_preserve(cr) } else { cairo_fill(cr) }
                }
                if let stroke, width > 0 {
                    colour(cr, stroke)
                    cairo_set_line_width(cr, width)
                    cairo_stroke(cr)
                }
                cairo_new_path(cr)
            case .line(let a, let b, let width, let c, _):
                colour(cr, c)
                cairo_set_line_width(cr, width)
                cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND)
                cairo_move_to(cr, a.x, a.y)
                cairo_line_to(cr, b.x, b.y)
                cairo_stroke(cr)
            case .arc(let c, let r, let start, let end, let width, let col, _):
                colour(cr, col)
                cairo_set_line_width(cr, width)
                cairo_new_path(cr)
                cairo_arc(cr, c.x, c.y, r, start, end)
                cairo_stroke(cr)
            case .text(let text, let at, let size, let angle, let c, let bold, _, _):
                colour(cr, c)
                cairo_select_font_face(cr, family, CAIRO_FONT_SLANT_NORMAL, bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL)
                cairo_set_font_size(cr, size)
                var extents = cairo_text_extents_t()
                var font = cairo_font_extents_t()
                cairo_text_extents(cr, text, &extents)
                cairo_font_extents(cr, &font)
                cairo_save(cr)
                cairo_translate(cr, at.x, at.y)
                cairo_rotate(cr, angle)
                cairo_move_to(cr, -extents.x_advance / 2, (font.ascent - font.descent) / 2)
                cairo_show_text(cr, text)
                cairo_restore(cr)
                cairo_new_path(cr)
            }
        }
    }
}
