import WorkerCore
import FoundationEssentials

/// The report's floor-plan section: the vector plan (the SVG shown as an image, so nothing in it
/// runs), the measured rooms, and the note when the input is not a room.
extension ReportBuilder {
    static func floorPlan(_ h: inout String, _ m: Document, files: [String: [UInt8]]) {
        guard let plan = m.plan else { return }
        h += "<section>\n<h2>Floor plan</h2>\n"
        if let note = plan.note {
            h += "<p class=\"empty\">No plan: \(e(note)).</p>\n</section>\n"
            return
        }
        if let svg = files[OutputName.planSVG] {
            h += "<figure class=\"shot shot-vector-plan\"><img src=\"\(HTML.dataURI(mimeType: "image/svg+xml", bytes: svg))\""
            h += " alt=\"Dimensioned floor plan\" data-path=\"plan.svg\" style=\"width:100%;height:auto\" />"
            h += "<figcaption><span>Floor plan (plan.svg; also plan.pdf and plan.dxf)</span>"
            h += "<span class=\"muted\">\(e(plan.units)) · \(e(plan.locale))</span></figcaption></figure>\n"
        }
        if !plan.rooms.isEmpty {
            h += "<table>\n<thead><tr><th>Room</th><th>Label</th><th class=\"num\">Story</th><th class=\"num\">Area</th>"
            h += "<th class=\"num\">Perimeter</th><th class=\"num\">Elements</th><th>Polygon</th></tr></thead>\n<tbody>\n"
            for r in plan.rooms {
                h += "<tr><td>\(e(r.name))</td><td class=\"mono\">\(e(r.label))</td>"
                h += "<td class=\"num\">\(r.story)</td>"
                h += "<td class=\"num\">\(HTML.fixed(Document.written(r.area), 2)) m²</td>"
                h += "<td class=\"num\">\(HTML.fixed(Document.written(r.perimeter), 2)) m</td>"
                h += "<td class=\"num\">\(r.elements.count)</td><td class=\"mono\">\(e(r.polygonSource))</td></tr>\n"
            }
            h += "</tbody>\n</table>\n"
            h += "<p class=\"muted\">Areas are those of the room polygons: openings and wall thickness are not subtracted.</p>\n"
        }
        h += "</section>\n"
    }
}
