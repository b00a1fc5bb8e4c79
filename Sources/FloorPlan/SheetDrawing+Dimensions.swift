import SceneModel

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension SheetDrawing {
    /// Dimension lines: one per wall of at least `minimumDimensionedWall`, outside the room and
    /// parallel to the wall, labelled with RoomPlan's wall length (drawn inside instead when a wall
    /// faces it within 0.6 m outside, as in a narrow recess), each with its drawing on the other
    /// side of the wall kept for `separateLabels`; then the overall width and depth along the
    /// paper's axes, unless a single wall spans them.
    mutating func drawDimensions(outline: [SIMD2<Double>]?) {
        let h = options.wallThickness / 2
        let walls = geometry.walls(story: sheet.story)
        for w in walls where w.length >= options.minimumDimensionedWall {
            let u = w.direction
            var out = -inward(w.mid, SIMD2(-u.y, u.x))
            // Outside a narrow recess the line would collide with the wall opposite: draw it inside.
            let line = w.mid + out * (h + 0.32)
            if walls.contains(where: { $0.identifier != w.identifier && RoomPartition.distance(line, $0.a, $0.b) < 0.6 }) {
                out = -out
            }
            dimension(from: w.a, to: w.b, outward: out, offset: h + 0.32, start: h + 0.04, metres: w.length, otherSide: true)
        }
        guard !walls.isEmpty else { return }
        // Overall extents along the paper's axes (the sheet is turned square to the walls): the
        // world directions drawn rightwards and downwards.
        let ax = sheet.worldVector(SIMD2(1, 0)), ay = sheet.worldVector(SIMD2(0, 1))
        let pts = walls.flatMap { [$0.a, $0.b] } + (outline ?? [])
        let xs = pts.map { ($0 * ax).sum() }, ys = pts.map { ($0 * ay).sum() }
        guard let x0 = xs.min(), let x1 = xs.max(), let y0 = ys.min(), let y1 = ys.max(), x1 - x0 > 0.01, y1 - y0 > 0.01 else { return }
        func world(_ x: Double, _ y: Double) -> SIMD2<Double> { ax * x + ay * y }
        // Width below the room (on the +ay side), depth beside it (on the +ax side); left out when
        // one wall already spans it (its own dimension says the same).
        func spanned(_ axis: SIMD2<Double>, _ length: Double) -> Bool {
            walls.contains { abs(($0.direction * axis).sum()) > 0.999 && abs($0.length - length) < 0.005 }
        }
        if !spanned(ax, x1 - x0) {
            dimension(from: world(x0, y1), to: world(x1, y1), outward: ay, offset: h + 0.95, start: h + 0.1, metres: x1 - x0)
        }
        if !spanned(ay, y1 - y0) {
            dimension(from: world(x1, y0), to: world(x1, y1), outward: ax, offset: h + 0.95, start: h + 0.1, metres: y1 - y0)
        }
    }

    /// A dimension between world points `a` and `b`, drawn `offset` metres along `outward`:
    /// extension lines from `start` metres out, the dimension line with slashed ends, and the text
    /// centred above the line, upright. With `otherSide`, the same dimension drawn along `−outward`
    /// is kept for `separateLabels`, which draws that instead when this side has no clear place for
    /// the text or its line crosses a shape or a label, and the other side's line crosses nothing
    /// and its text finds a clear place there.
    mutating func dimension(
        from a: SIMD2<Double>, to b: SIMD2<Double>, outward: SIMD2<Double>, offset: Double, start: Double, metres: Double,
        otherSide: Bool = false
    ) {
        let first = sheet.items.count
        var drawn = dimensionItems(from: a, to: b, outward: outward, offset: offset, start: start, metres: metres)
        for item in drawn.items { add(item) }
        drawn.slide.ownItems = first..<sheet.items.count
        if otherSide {
            drawn.slide.otherSide = dimensionItems(from: a, to: b, outward: -outward, offset: offset, start: start, metres: metres).items
        }
        slides[sheet.items.count - 1] = drawn.slide
    }

    /// The items of a dimension (two extension lines, the dimension line, two end marks, then the
    /// text, last) and its text's slide (`ownItems` left for the caller to set).
    func dimensionItems(
        from a: SIMD2<Double>, to b: SIMD2<Double>, outward: SIMD2<Double>, offset: Double, start: Double, metres: Double
    ) -> (items: [PlanItem], slide: LabelSlide) {
        let text = format.length(metres)
        var items: [PlanItem] = []
        let da = a + outward * offset, db = b + outward * offset
        for (end, line) in [(a, da), (b, db)] {
            items.append(.line(p(end + outward * start), p(line + outward * 0.08), width: 0.13, colour: PlanColours.dimension, layer: .dimensions))
        }
        items.append(.line(p(da), p(db), width: 0.18, colour: PlanColours.dimension, layer: .dimensions))
        let u = Polygon2D.distance(a, b) > 1e-9 ? (b - a) / Polygon2D.distance(a, b) : SIMD2(1, 0)
        let slash = (u + outward) / 2.squareRoot() * (1.1 / mm)
        for q in [da, db] {
            items.append(.line(p(q - slash), p(q + slash), width: 0.3, colour: PlanColours.dimension, layer: .dimensions))
        }
        let size = 2.3
        let along = onPaper(u), away = onPaper(outward)
        let mid = p((da + db) / 2) + away * (size * 0.85)
        // The text may slide along the line as far as keeps it clear of the slashed ends.
        let reach = Polygon2D.distance(da, db) * mm / 2 - Self.textWidth(text, size: size) / 2 - 1.5
        let slide = LabelSlide(direction: along, reach: max(0, reach), away: away, flip: away * (-2 * size * 0.85), size: size)
        items.append(.text(text, at: mid, size: size, angle: Self.upright(atan2(along.y, along.x)), colour: PlanColours.dimension, bold: false,
                           role: .dimension(metres: metres), layer: .dimensions))
        return (items, slide)
    }
}
