import SceneModel

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Draws one story onto its sheet, item by item, in paper millimetres.
struct SheetDrawing {
    var sheet: PlanSheet
    let geometry: PlanGeometry
    let options: PlanOptions
    let format: MeasureFormatter
    let vocabulary: PlanVocabulary
    /// The story's outlines (`RoomPartition.outlines`), found once by the builder.
    let outlines: [RoomPartition.Outline]

    /// Paper millimetres per metre.
    var mm: Double { 1000 / sheet.scale }
    func p(_ world: SIMD2<Double>) -> SIMD2<Double> { sheet.paper(world) }
    /// A world direction turned onto the paper (unit stays unit).
    func onPaper(_ world: SIMD2<Double>) -> SIMD2<Double> { sheet.paperVector(world) }

    mutating func add(_ item: PlanItem) { sheet.items.append(item) }

    /// Dimension texts' slides along their lines, by item index, for `separateLabels`.
    var slides: [Int: LabelSlide] = [:]

    /// An estimate of a text's width in millimetres (whether a label fits, where labels meet), from
    /// DejaVu Sans's advance widths in ems, rounded: CJK characters one em, digits 0.64, narrow
    /// punctuation and spaces 0.32, `m` and `w` 0.9, other lowercase letters 0.6, capitals 0.7.
    static func textWidth(_ s: String, size: Double) -> Double {
        s.unicodeScalars.reduce(0) { $0 + advance($1) } * size
    }

    private static func advance(_ c: Unicode.Scalar) -> Double {
        switch c {
        case _ where c.value >= 0x2E80: return 1.0
        case "0"..."9": return 0.64
        case " ", ".", ",", ":", ";", "'", "′", "·", "i", "j", "l", "I": return 0.32
        case "f", "t", "r", "\"", "″", "²", "³", "-": return 0.4
        case "m", "w", "M", "W", "×": return 0.9
        case "A"..."Z": return 0.7
        default: return 0.6
        }
    }

    /// How far from vertical a text may lean and still read from the bottom up (radians).
    static let verticalTolerance = 5 * Double.pi / 180

    /// An angle kept readable: text never upside down, and every text within
    /// `verticalTolerance` of vertical reads from the bottom up (from the sheet's right-hand side,
    /// as drafters letter vertical dimensions), so the vertical texts of a sheet turned square to
    /// its walls all read the same way. Radians in [−π/2 − tolerance, π/2 − tolerance).
    static func upright(_ angle: Double) -> Double {
        guard angle.isFinite else { return 0 }
        var a = angle.truncatingRemainder(dividingBy: 2 * Double.pi)
        while a >= Double.pi / 2 - verticalTolerance { a -= Double.pi }
        while a < -Double.pi / 2 - verticalTolerance { a += Double.pi }
        return a
    }

    mutating func drawFloor(_ rooms: [RoomFigures], outlines: [RoomPartition.Outline]) {
        // A structure's rooms are their own floors: those are filled (its merged floor may cover
        // what no room does); otherwise the story's outlines.
        let ownFloors = rooms.filter { $0.polygonSource == "room" }
        for polygon in ownFloors.isEmpty ? outlines.map(\.polygon) : ownFloors.map(\.polygon) {
            add(.polygon(polygon.map(p), fill: PlanColours.floor, stroke: nil, strokeWidth: 0, layer: .floor))
        }
        // Boundaries drawn between rooms that share one floor (split along the halfway lines), and
        // around each room of a structure.
        for r in rooms where r.polygonSource.hasSuffix("+split") || r.polygonSource == "room" {
            add(.polygon(r.polygon.map(p), fill: nil, stroke: PlanColours.opening, strokeWidth: 0.18, layer: .floor))
        }
    }

    mutating func drawObjects() {
        let objects = geometry.objects(story: sheet.story).sorted { ($0.halfWidth * $0.halfDepth, $0.identifier) > ($1.halfWidth * $1.halfDepth, $1.identifier) }
        for o in objects {
            let colour = CategoryPalette.object(o.category)
            add(.polygon(o.corners.map(p), fill: Self.lighten(colour, 0.45), stroke: Self.darken(colour, 0.55),
                         strokeWidth: 0.25, layer: .furniture))
        }
        for o in objects {
            let name = vocabulary.category(o.category.rawValue)
            let size = 2.0
            let long = 2 * max(o.halfWidth, o.halfDepth) * mm, short = 2 * min(o.halfWidth, o.halfDepth) * mm
            guard Self.textWidth(name, size: size) <= long * 0.9, size * 1.2 <= short else { continue }
            let axis = onPaper(o.halfWidth >= o.halfDepth ? o.axis : SIMD2(-o.axis.y, o.axis.x))
            add(.text(name, at: p(o.centre), size: size, angle: Self.upright(atan2(axis.y, axis.x)), colour: PlanColours.text,
                      bold: false, role: .objectName, layer: .text))
        }
    }

    /// One text of a room's label: what it says, its offset from the label's centre (mm), size and role.
    typealias LabelLine = (text: String, offset: SIMD2<Double>, size: Double, role: PlanTextRole)

    /// Each room's name above its area, near its section's centre (else its centroid), at the
    /// first of these that fits inside the room: the two lines clear of objects; side by side on
    /// one smaller line (`Room 1  9.2 m²`) clear of objects; the same two over objects; else the
    /// two lines at the anchor. A home's rooms (`roomLabelLayouts`) also state their size and try
    /// smaller layouts before the anchor.
    mutating func drawRoomLabels(_ rooms: [RoomFigures]) {
        for r in rooms {
            let at: SIMD2<Double>
            if let c = r.center, RoomPartition.contains(r.polygon, SIMD2(c.x, c.z)) {
                at = SIMD2(c.x, c.z)
            } else {
                at = Self.centroid(r.polygon)
            }
            let layouts = roomLabelLayouts(r)
            var placed: [LabelLine]?
            // Clear of objects (and in a home of walls and doors), then over objects, then (a home) over anything, smallest first.
            let passes = geometry.isHome ? [(true, true), (false, true), (false, false)] : [(true, false), (false, false)]
            search: for (avoidObjects, avoidStrokes) in passes {
                for (lines, size) in avoidStrokes || !geometry.isHome ? layouts : layouts.reversed() {
                    if let q = findSpot(near: p(at), size: size, inside: r.polygon.map(p), clearOf: lines.map { ($0.text, $0.offset, $0.size) },
                                        avoidObjects: avoidObjects, avoidStrokes: avoidStrokes) {
                        placed = lines.map { ($0.text, q + $0.offset, $0.size, $0.role) }
                        break search
                    }
                }
            }
            let fallback = layouts[geometry.isHome ? layouts.count - 1 : 0].0
            for t in placed ?? fallback.map({ ($0.text, p(at) + $0.offset, $0.size, $0.role) }) {
                add(.text(t.text, at: t.offset, size: t.size, angle: 0, colour: PlanColours.roomText, bold: t.role == .roomName,
                          role: t.role, layer: .text))
            }
        }
    }

    /// The label layouts tried for a room, in order, each with its box size (mm): for a single
    /// room, name above area, then both on one line; for a room of a home, name, area and size
    /// (`4.61 × 6.22 m`, its floor's extent along the paper's axes) on three lines, then on two,
    /// then name and area on one line, then the same smaller.
    func roomLabelLayouts(_ r: RoomFigures) -> [([LabelLine], SIMD2<Double>)] {
        let area = format.area(r.area)
        let areaRole = PlanTextRole.roomArea(squareMetres: r.area)
        func oneLine(_ nameSize: Double, _ areaSize: Double) -> ([LabelLine], SIMD2<Double>) {
            let wName = Self.textWidth(r.name, size: nameSize), wArea = Self.textWidth(area, size: areaSize), gap = 2.0
            let w = wName + gap + wArea
            return ([(r.name, SIMD2(-w / 2 + wName / 2, 0), nameSize, .roomName), (area, SIMD2(w / 2 - wArea / 2, 0), areaSize, areaRole)],
                    SIMD2(w, nameSize + 0.8))
        }
        guard geometry.isHome else {
            let two: [LabelLine] = [(r.name, SIMD2(0, -2.4), 3.6, .roomName), (area, SIMD2(0, 2.4), 2.8, areaRole)]
            return [(two, SIMD2(max(Self.textWidth(r.name, size: 3.6), Self.textWidth(area, size: 2.8)), 10)), oneLine(2.6, 2.4)]
        }
        let size = roomSize(r)
        var first = format.length(size.x)
        if first.hasSuffix(" m") { first.removeLast(2) }
        let sizeText = "\(first) × \(format.length(size.y))"
        let sizeRole = PlanTextRole.roomSize(width: size.x, depth: size.y)
        let three: [LabelLine] = [(r.name, SIMD2(0, -3.3), 3.0, .roomName), (area, SIMD2(0, 0.3), 2.5, areaRole),
                                  (sizeText, SIMD2(0, 3.4), 2.1, sizeRole)]
        let wide = [Self.textWidth(r.name, size: 3.0), Self.textWidth(area, size: 2.5), Self.textWidth(sizeText, size: 2.1)].max()!
        let second = area + "  " + sizeText
        let two: [LabelLine] = [(r.name, SIMD2(0, -1.6), 2.6, .roomName), (second, SIMD2(0, 1.6), 2.0, areaRole)]
        let wideTwo = max(Self.textWidth(r.name, size: 2.6), Self.textWidth(second, size: 2.0))
        return [(three, SIMD2(wide, 10.4)), (two, SIMD2(wideTwo, 6.2)), oneLine(2.4, 2.2), oneLine(1.9, 1.8)]
    }

    /// A room's floor's extent along the paper's axes (world metres): its width and depth as drawn.
    func roomSize(_ r: RoomFigures) -> SIMD2<Double> {
        let ax = sheet.worldVector(SIMD2(1, 0)), ay = sheet.worldVector(SIMD2(0, 1))
        let xs = r.polygon.map { ($0 * ax).sum() }, ys = r.polygon.map { ($0 * ay).sum() }
        return SIMD2((xs.max() ?? 0) - (xs.min() ?? 0), (ys.max() ?? 0) - (ys.min() ?? 0))
    }

    /// Title above the drawing, scale bar with the drawing scale below its left edge, and the
    /// wall-thickness note below its right edge.
    mutating func drawFrame() {
        let left = sheet.contentMin.x + 4, right = sheet.contentMax.x - 4
        add(.text(sheet.title, at: SIMD2((left + right) / 2, sheet.contentMin.y + 6), size: 4.2, angle: 0, colour: PlanColours.text,
                  bold: true, role: .title, layer: .text))
        let y = sheet.contentMax.y - 6
        let x0 = left
        let bar = format.scaleBar(maxMetres: min(60, (right - left) / 3) / mm)
        let length = bar.metres * mm
        let blocks = 4
        for k in 0..<blocks {
            let a = x0 + length * Double(k) / Double(blocks), b = x0 + length * Double(k + 1) / Double(blocks)
            add(.polygon([SIMD2(a, y), SIMD2(b, y), SIMD2(b, y + 1.6), SIMD2(a, y + 1.6)],
                         fill: k % 2 == 0 ? PlanColours.text : PlanColours.paper, stroke: PlanColours.text, strokeWidth: 0.2,
                         layer: .dimensions))
        }
        add(.text("0", at: SIMD2(x0, y - 2.2), size: 2.4, angle: 0, colour: PlanColours.text, bold: false, role: .note, layer: .text))
        add(.text(bar.label, at: SIMD2(x0 + length, y - 2.2), size: 2.4, angle: 0, colour: PlanColours.text, bold: false, role: .note,
                  layer: .text))
        let scaleText = "1:\(Int(sheet.scale))"
        add(.text(scaleText, at: SIMD2(x0 + length + 4 + Self.textWidth(scaleText, size: 2.6) / 2, y + 0.8), size: 2.6, angle: 0,
                  colour: PlanColours.text, bold: false, role: .note, layer: .text))
        let thickness = options.units == .metric
            ? "\(Int((options.wallThickness * 100).rounded())) cm" : format.length(options.wallThickness)
        let note = geometry.isHome ? vocabulary.homeWallNote(thickness) : vocabulary.wallNote(thickness)
        if geometry.isHome {
            add(.text(vocabulary.homeConvention, at: SIMD2((left + right) / 2, sheet.contentMin.y + 10.6), size: 2.2, angle: 0,
                      colour: PlanColours.dimension, bold: false, role: .note, layer: .text))
        }
        add(.text(note, at: SIMD2(right - Self.textWidth(note, size: 2.0) / 2, y + 4.6), size: 2.0,
                  angle: 0, colour: PlanColours.dimension, bold: false, role: .note, layer: .text))
    }

    static let searchRings = 30

    /// The point nearest `anchor` (paper mm) where a label box of `size` stays inside `polygon`
    /// and clear of every object footprint, and where the texts of `clearOf` (each at its offset from
    /// the point, with its size) cover no text already drawn; searched on `searchRings` rings 2 mm
    /// apart; `anchor` when none is.
    func freeSpot(
        near anchor: SIMD2<Double>, size: SIMD2<Double>, inside polygon: [SIMD2<Double>],
        clearOf texts: [(text: String, offset: SIMD2<Double>, size: Double)] = []
    ) -> SIMD2<Double> {
        findSpot(near: anchor, size: size, inside: polygon, clearOf: texts) ?? anchor
    }

    /// As `freeSpot`, nil when no place fits; `avoidObjects` false lets the box cover footprints,
    /// `avoidStrokes` keeps it off the walls, door leaves and swings drawn so far (and with
    /// `avoidObjects` false lets it cover object names, which then give way).
    func findSpot(
        near anchor: SIMD2<Double>, size: SIMD2<Double>, inside polygon: [SIMD2<Double>],
        clearOf texts: [(text: String, offset: SIMD2<Double>, size: Double)] = [], avoidObjects: Bool = true, avoidStrokes: Bool = false
    ) -> SIMD2<Double>? {
        // The object boxes that could meet a label placed within the search radius (at most 200).
        let reach = Double(Self.searchRings) * 2 + (size.x + size.y)
        let boxes = (avoidObjects ? geometry.objects(story: sheet.story) : []).map { o -> (SIMD2<Double>, SIMD2<Double>) in
            let c = o.corners.map(p)
            return (c.reduce(c[0], pointwiseMin), c.reduce(c[0], pointwiseMax))
        }
        .filter { b in b.0.x - reach < anchor.x && b.1.x + reach > anchor.x && b.0.y - reach < anchor.y && b.1.y + reach > anchor.y }
        .prefix(200)
        // The texts already drawn that could meet it, as the object boxes (at most 200).
        let drawn: [LabelBox] = texts.isEmpty ? [] : Array(sheet.items.lazy.compactMap { item -> LabelBox? in
            guard case .text(let s, let at, let size, let angle, _, _, let role, _) = item else { return nil }
            // Over objects in a home, their names give way (`separateLabels` leaves out a covering one).
            if avoidStrokes && !avoidObjects, case .objectName = role { return nil }
            return LabelBox(s, at: at, size: size, angle: angle)
        }
        .filter { b in abs(b.centre.x - anchor.x) < reach + 2 * b.half.x && abs(b.centre.y - anchor.y) < reach + 2 * b.half.x }
        .prefix(200))
        // In a home, the walls, door leaves and swings drawn so far too (a room's floor may hold
        // a wall of its own, and its doors swing over it).
        let strokes = avoidStrokes ? drawnStrokes(near: anchor, reach: reach) : []
        func fits(_ q: SIMD2<Double>) -> Bool {
            let lo = q - size / 2, hi = q + size / 2
            let corners = [lo, SIMD2(hi.x, lo.y), hi, SIMD2(lo.x, hi.y)]
            guard corners.allSatisfy({ RoomPartition.contains(polygon, $0) }) else { return false }
            guard !boxes.contains(where: { b in lo.x < b.1.x && hi.x > b.0.x && lo.y < b.1.y && hi.y > b.0.y }) else { return false }
            if !strokes.isEmpty {
                let box = LabelBox(centre: q, half: size / 2 + LabelBox.clearance, along: SIMD2(1, 0))
                guard !strokes.contains(where: { $0.overlaps(box) }) else { return false }
            }
            return !texts.contains { t in
                let box = LabelBox(t.text, at: q + t.offset, size: t.size, angle: 0)
                return drawn.contains { $0.overlaps(box) }
            }
        }
        if fits(anchor) { return anchor }
        for ring in 1...Self.searchRings {
            let r = Double(ring) * 2
            let steps = 8 * ring
            for k in 0..<steps {
                let t = Double(k) / Double(steps) * 2 * Double.pi
                let q = anchor + SIMD2(cosine(t), sine(t)) * r
                if fits(q) { return q }
            }
        }
        return nil
    }

    static func centroid(_ polygon: [SIMD2<Double>]) -> SIMD2<Double> {
        let a = Polygon2D.signedArea(polygon)
        guard abs(a) > 1e-9 else { return polygon.reduce(.zero, +) / Double(max(polygon.count, 1)) }
        var c = SIMD2<Double>.zero
        for i in polygon.indices {
            let p = polygon[i], q = polygon[(i + 1) % polygon.count]
            c += (p + q) * (p.x * q.y - q.x * p.y)
        }
        return c / (6 * a)
    }

    static func lighten(_ c: UInt32, _ t: Double) -> UInt32 { mix(c, 0xFFFFFF, t) }
    static func darken(_ c: UInt32, _ t: Double) -> UInt32 { mix(c, 0x000000, 1 - t) }
    static func mix(_ a: UInt32, _ b: UInt32, _ t: Double) -> UInt32 {
        var out: UInt32 = 0
        for shift in [16, 8, 0] as [UInt32] {
            let x = Double((a >> shift) & 0xFF), y = Double((b >> shift) & 0xFF)
            out |= UInt32((x + (y - x) * t).rounded()) << shift
        }
        return out
    }
}
