import SceneModel

/// Writes a floor plan as an AutoCAD 2000 (AC1015) ASCII DXF for CAD users: model space in
/// metres (`$INSUNITS` 6) at the scan's true coordinates (X = world x, Y = −world z, seen from
/// above), one layer per story and kind (`S1-WALLS`, `S1-DOORS`, `S1-WINDOWS`, `S1-OPENINGS`,
/// `S1-FURNITURE`, `S1-DIMENSIONS`, `S1-TEXT`, `S1-FLOOR`; stories counted from 1). Polygons are
/// closed LWPOLYLINEs, lines LINEs, door swings ARCs, labels TEXT in the STANDARD style. Handles
/// are numbered in writing order, so the bytes depend only on the plan.
public enum DXFPlanWriter {
    /// AutoCAD colour index per layer kind.
    static let colours: [PlanLayer: Int] = [
        .floor: 254, .walls: 7, .doors: 3, .windows: 5, .openings: 8, .furniture: 30, .dimensions: 1, .text: 7,
    ]

    public static func layerName(story: Int, _ layer: PlanLayer) -> String { "S\(story + 1)-\(layer.rawValue)" }

    public static func write(_ plan: FloorPlan) -> [UInt8] {
        var w = DXFText()
        // Schedules are pages of the PDF and SVG; the drawing's model space has no place for them.
        let drawings = plan.sheets.filter { $0.kind == .drawing }
        let layers = drawings.flatMap { s in PlanLayer.drawOrder.map { (layerName(story: s.story, $0), colours[$0] ?? 7) } }
        // Handles: fixed ones for the tables and blocks, then one per entity.
        let modelRecord = 0x1F, paperRecord = 0x1E
        var entities = DXFText()
        var handle = 0x100
        for sheet in drawings {
            for item in sheet.orderedItems {
                entity(item, sheet: sheet, layer: layerName(story: sheet.story, item.layer), owner: modelRecord, handle: &handle, into: &entities)
            }
        }
        w.pair(0, "SECTION"); w.pair(2, "HEADER")
        w.pair(9, "$ACADVER"); w.pair(1, "AC1015")
        w.pair(9, "$DWGCODEPAGE"); w.pair(3, "ANSI_1252")
        w.pair(9, "$HANDSEED"); w.pair(5, hex(handle + 1))
        w.pair(9, "$INSUNITS"); w.pair(70, "6")
        w.pair(9, "$MEASUREMENT"); w.pair(70, plan.options.units == .metric ? "1" : "0")
        w.pair(0, "ENDSEC")
        w.pair(0, "SECTION"); w.pair(2, "CLASSES"); w.pair(0, "ENDSEC")

        w.pair(0, "SECTION"); w.pair(2, "TABLES")
        table(&w, "VPORT", handle: 0x8, count: 0) { _ in }
        table(&w, "LTYPE", handle: 0x5, count: 3) { w in
            for (h, name) in [(0x14, "ByBlock"), (0x15, "ByLayer"), (0x16, "Continuous")] {
                w.pair(0, "LTYPE"); w.pair(5, hex(h)); w.pair(330, "5")
                w.pair(100, "AcDbSymbolTableRecord"); w.pair(100, "AcDbLinetypeTableRecord")
                w.pair(2, name); w.pair(70, "0"); w.pair(3, name == "Continuous" ? "Solid line" : "")
                w.pair(72, "65"); w.pair(73, "0"); w.pair(40, "0.0")
            }
        }
        table(&w, "LAYER", handle: 0x2, count: layers.count + 1) { w in
            var h = 0x40
            for (name, colour) in [("0", 7)] + layers {
                w.pair(0, "LAYER"); w.pair(5, hex(h)); w.pair(330, "2")
                w.pair(100, "AcDbSymbolTableRecord"); w.pair(100, "AcDbLayerTableRecord")
                w.pair(2, name); w.pair(70, "0"); w.pair(62, String(colour)); w.pair(6, "Continuous")
                h += 1
            }
        }
        table(&w, "STYLE", handle: 0x3, count: 1) { w in
            w.pair(0, "STYLE"); w.pair(5, hex(0x11)); w.pair(330, "3")
            w.pair(100, "AcDbSymbolTableRecord"); w.pair(100, "AcDbTextStyleTableRecord")
            w.pair(2, "STANDARD"); w.pair(70, "0"); w.pair(40, "0.0"); w.pair(41, "1.0"); w.pair(50, "0.0")
            w.pair(71, "0"); w.pair(42, "1.0"); w.pair(3, "txt"); w.pair(4, "")
        }
        table(&w, "VIEW", handle: 0x6, count: 0) { _ in }
        table(&w, "UCS", handle: 0x7, count: 0) { _ in }
        table(&w, "APPID", handle: 0x9, count: 1) { w in
            w.pair(0, "APPID"); w.pair(5, hex(0x12)); w.pair(330, "9")
            w.pair(100, "AcDbSymbolTableRecord"); w.pair(100, "AcDbRegAppTableRecord"); w.pair(2, "ACAD"); w.pair(70, "0")
        }
        table(&w, "DIMSTYLE", handle: 0xA, count: 0, subclass: "AcDbDimStyleTable") { _ in }
        table(&w, "BLOCK_RECORD", handle: 0x1, count: 2) { w in
            for (h, name) in [(modelRecord, "*Model_Space"), (paperRecord, "*Paper_Space")] {
                w.pair(0, "BLOCK_RECORD"); w.pair(5, hex(h)); w.pair(330, "1")
                w.pair(100, "AcDbSymbolTableRecord"); w.pair(100, "AcDbBlockTableRecord"); w.pair(2, name)
            }
        }
        w.pair(0, "ENDSEC")

        w.pair(0, "SECTION"); w.pair(2, "BLOCKS")
        for (record, begin, end, name) in [(modelRecord, 0x20, 0x21, "*Model_Space"), (paperRecord, 0x22, 0x23, "*Paper_Space")] {
            w.pair(0, "BLOCK"); w.pair(5, hex(begin)); w.pair(330, hex(record)); w.pair(100, "AcDbEntity"); w.pair(8, "0")
            w.pair(100, "AcDbBlockBegin"); w.pair(2, name); w.pair(70, "0")
            w.pair(10, "0.0"); w.pair(20, "0.0"); w.pair(30, "0.0"); w.pair(3, name); w.pair(1, "")
            w.pair(0, "ENDBLK"); w.pair(5, hex(end)); w.pair(330, hex(record)); w.pair(100, "AcDbEntity"); w.pair(8, "0")
            w.pair(100, "AcDbBlockEnd")
        }
        w.pair(0, "ENDSEC")

        w.pair(0, "SECTION"); w.pair(2, "ENTITIES")
        w.text += entities.text
        w.pair(0, "ENDSEC")
        w.pair(0, "SECTION"); w.pair(2, "OBJECTS")
        w.pair(0, "DICTIONARY"); w.pair(5, hex(0xC)); w.pair(330, "0"); w.pair(100, "AcDbDictionary"); w.pair(281, "1")
        w.pair(3, "ACAD_GROUP"); w.pair(350, hex(0xD))
        w.pair(0, "DICTIONARY"); w.pair(5, hex(0xD)); w.pair(330, hex(0xC)); w.pair(100, "AcDbDictionary"); w.pair(281, "1")
        w.pair(0, "ENDSEC")
        w.pair(0, "EOF")
        return Array(w.text.utf8)
    }

    static func table(_ w: inout DXFText, _ name: String, handle: Int, count: Int, subclass: String? = nil, _ body: (inout DXFText) -> Void) {
        w.pair(0, "TABLE"); w.pair(2, name); w.pair(5, hex(handle)); w.pair(330, "0")
        w.pair(100, "AcDbSymbolTable"); w.pair(70, String(count))
        if let subclass { w.pair(100, subclass) }
        body(&w)
        w.pair(0, "ENDTAB")
    }

    static func hex(_ h: Int) -> String { String(h, radix: 16, uppercase: true) }

    /// World metres of a paper point: X = x, Y = −z.
    static func cad(_ sheet: PlanSheet, _ paper: SIMD2<Double>) -> SIMD2<Double> {
        let w = sheet.world(paper)
        return SIMD2(w.x, -w.y)
    }

    static func entity(_ item: PlanItem, sheet: PlanSheet, layer: String, owner: Int, handle: inout Int, into w: inout DXFText) {
        handle += 1
        let metresPerMillimetre = sheet.scale / 1000
        func head(_ type: String, _ subclass: String) {
            w.pair(0, type); w.pair(5, hex(handle)); w.pair(330, hex(owner)); w.pair(100, "AcDbEntity"); w.pair(8, layer)
            w.pair(100, subclass)
        }
        switch item {
        case .polygon(let pts, _, _, _, _):
            head("LWPOLYLINE", "AcDbPolyline")
            w.pair(90, String(pts.count)); w.pair(70, "1")
            for p in pts {
                let q = cad(sheet, p)
                w.pair(10, num(q.x)); w.pair(20, num(q.y))
            }
        case .line(let a, let b, _, _, _):
            head("LINE", "AcDbLine")
            let p = cad(sheet, a), q = cad(sheet, b)
            w.pair(10, num(p.x)); w.pair(20, num(p.y)); w.pair(30, "0.0")
            w.pair(11, num(q.x)); w.pair(21, num(q.y)); w.pair(31, "0.0")
        case .arc(let c, let r, let start, let end, _, _, _):
            head("ARC", "AcDbCircle")
            let q = cad(sheet, c)
            w.pair(10, num(q.x)); w.pair(20, num(q.y)); w.pair(30, "0.0"); w.pair(40, num(r * metresPerMillimetre))
            w.pair(100, "AcDbArc")
            // Y is flipped: increasing paper angles run clockwise in CAD space; the sheet's turn is
            // taken back out (world angle = paper angle − rotation).
            w.pair(50, num(degrees(sheet.rotation - end))); w.pair(51, num(degrees(sheet.rotation - start)))
        case .text(let text, let at, let size, let angle, _, _, _, _):
            head("TEXT", "AcDbText")
            let q = cad(sheet, at)
            w.pair(10, num(q.x)); w.pair(20, num(q.y)); w.pair(30, "0.0")
            w.pair(40, num(size * metresPerMillimetre * 0.72)); w.pair(1, escape(text))
            w.pair(50, num(degrees(sheet.rotation - angle))); w.pair(7, "STANDARD"); w.pair(72, "1")
            w.pair(11, num(q.x)); w.pair(21, num(q.y)); w.pair(31, "0.0")
            w.pair(100, "AcDbText"); w.pair(73, "2")
        }
    }

    static func degrees(_ radians: Double) -> Double {
        var d = radians * 180 / Double.pi
        while d < 0 { d += 360 }
        while d >= 360 { d -= 360 }
        return d
    }

    static func num(_ v: Double) -> String {
        let s = MeasureFormatter.fixed(v.isFinite ? v : 0, decimals: 6)
        return s == "-0.000000" ? "0.000000" : s
    }

    /// DXF text values are one line; non-ASCII characters are written as `\U+XXXX` escapes, which
    /// every AC1015 reader decodes regardless of code page.
    static func escape(_ s: String) -> String {
        var out = ""
        for ch in s.unicodeScalars {
            if ch.value < 0x20 { continue }
            if ch.value < 0x80 { out.unicodeScalars.append(ch) } else {
                var h = String(ch.value, radix: 16, uppercase: true)
                while h.count < 4 { h = "0" + h }
                out += "\\U+" + h
            }
        }
        return out
    }
}

/// DXF group-code/value text.
struct DXFText {
    var text = ""
    mutating func pair(_ code: Int, _ value: String) {
        text += code < 10 ? "  \(code)\n" : code < 100 ? " \(code)\n" : "\(code)\n"
        text += value + "\n"
    }
}
