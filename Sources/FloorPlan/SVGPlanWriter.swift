import SceneModel

/// Writes a floor plan as one SVG document, written here rather than through cairo's SVG surface
/// (which turns text into glyph outlines): every label is a real `<text>` element the web editor
/// can search and restyle. Sheets are stacked top to bottom, one `<g class="story">` each, with a
/// group per CAD layer. Coordinates are paper millimetres (two decimals); dimension and area
/// texts carry their unrounded value in `data-metres` / `data-square-metres`. The bytes depend
/// only on the plan (no ids, dates or random values).
public enum SVGPlanWriter {
    public static let fontFamily = "DejaVu Sans, Noto Sans CJK SC, sans-serif"

    public static func write(_ plan: FloorPlan) -> [UInt8] {
        let width = plan.sheets.map(\.width).max() ?? 297
        let height = plan.sheets.reduce(0) { $0 + $1.height }
        var s = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        s += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(n(width))mm\" height=\"\(n(height))mm\" "
        s += "viewBox=\"0 0 \(n(width)) \(n(height))\" font-family=\"\(fontFamily)\" "
        s += "data-units=\"\(plan.options.units.rawValue)\" data-locale=\"\(plan.options.locale.rawValue)\">\n"
        var y = 0.0
        for sheet in plan.sheets {
            if sheet.kind == .schedule {
                s += "<g class=\"schedules\" transform=\"translate(0 \(n(y)))\">\n"
            } else {
                s += "<g class=\"story\" data-story=\"\(sheet.story)\" data-scale=\"\(n(sheet.scale))\" transform=\"translate(0 \(n(y)))\">\n"
            }
            s += "<rect x=\"0\" y=\"0\" width=\"\(n(sheet.width))\" height=\"\(n(sheet.height))\" fill=\"#FFFFFF\"/>\n"
            for layer in PlanLayer.drawOrder {
                let items = sheet.items.filter { $0.layer == layer }
                guard !items.isEmpty else { continue }
                s += "<g class=\"layer\" data-layer=\"\(layer.rawValue)\">\n"
                for item in items { s += element(item) + "\n" }
                s += "</g>\n"
            }
            s += "</g>\n"
            y += sheet.height
        }
        s += "</svg>\n"
        return Array(s.utf8)
    }

    static func element(_ item: PlanItem) -> String {
        switch item {
        case .polygon(let pts, let fill, let stroke, let width, _):
            var e = "<polygon points=\"\(pts.map { "\(n($0.x)),\(n($0.y))" }.joined(separator: " "))\""
            e += " fill=\"\(fill.map(CategoryPalette.hex) ?? "none")\""
            if let stroke, width > 0 { e += " stroke=\"\(CategoryPalette.hex(stroke))\" stroke-width=\"\(n(width))\" stroke-linejoin=\"round\"" }
            return e + "/>"
        case .line(let a, let b, let width, let colour, _):
            return "<line x1=\"\(n(a.x))\" y1=\"\(n(a.y))\" x2=\"\(n(b.x))\" y2=\"\(n(b.y))\" stroke=\"\(CategoryPalette.hex(colour))\" stroke-width=\"\(n(width))\" stroke-linecap=\"round\"/>"
        case .arc(let c, let r, let start, let end, let width, let colour, _):
            let a = c + SIMD2(cosine(start), sine(start)) * r, b = c + SIMD2(cosine(end), sine(end)) * r
            let large = end - start > Double.pi ? 1 : 0
            return "<path d=\"M \(n(a.x)) \(n(a.y)) A \(n(r)) \(n(r)) 0 \(large) 1 \(n(b.x)) \(n(b.y))\" fill=\"none\" stroke=\"\(CategoryPalette.hex(colour))\" stroke-width=\"\(n(width))\"/>"
        case .text(let text, let at, let size, let angle, let colour, let bold, let role, _):
            var e = "<text x=\"\(n(at.x))\" y=\"\(n(at.y))\" font-size=\"\(n(size))\""
            if bold { e += " font-weight=\"bold\"" }
            e += " text-anchor=\"middle\" dominant-baseline=\"central\" fill=\"\(CategoryPalette.hex(colour))\""
            let degrees = angle * 180 / Double.pi
            if abs(degrees) > 0.005 { e += " transform=\"rotate(\(n(degrees)) \(n(at.x)) \(n(at.y)))\"" }
            switch role {
            case .dimension(let m): e += " class=\"dimension\" data-metres=\"\(n(m, 4))\""
            case .roomName: e += " class=\"room-name\""
            case .roomArea(let a): e += " class=\"room-area\" data-square-metres=\"\(n(a, 4))\""
            case .roomSize: e += " class=\"room-size\""
            case .objectName: e += " class=\"object-name\""
            case .title: e += " class=\"title\""
            case .note: e += " class=\"note\""
            case .schedule: e += " class=\"schedule\""
            }
            return e + ">\(escape(text))</text>"
        }
    }

    /// `v` with at most `decimals` digits after the point, trailing zeros dropped.
    static func n(_ v: Double, _ decimals: Int = 2) -> String {
        guard v.isFinite else { return "0" }
        var s = MeasureFormatter.fixed(v, decimals: decimals)
        if s.contains(".") {
            while s.hasSuffix("0") { s.removeLast() }
            if s.hasSuffix(".") { s.removeLast() }
        }
        return s == "-0" ? "0" : s
    }

    static func escape(_ s: String) -> String {
        var out = ""
        for ch in s.unicodeScalars {
            switch ch {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default:
                // XML 1.0 forbids most control characters.
                if ch.value < 0x20 && ch != "\t" && ch != "\n" { continue }
                out.unicodeScalars.append(ch)
            }
        }
        return out
    }
}
