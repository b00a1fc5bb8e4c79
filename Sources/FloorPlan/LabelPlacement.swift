/// The paper rectangle a label covers: its estimated text box (`SheetDrawing.textWidth` wide, one
/// em tall), centred on the text's anchor and turned with it, grown by `LabelBox.clearance`.
struct LabelBox: Equatable {
    /// Paper millimetres kept free around every label.
    static let clearance = 0.35

    var centre: SIMD2<Double>
    var half: SIMD2<Double>
    /// Unit vectors along the text and across it.
    var along: SIMD2<Double>
    var across: SIMD2<Double>

    init(_ text: String, at centre: SIMD2<Double>, size: Double, angle: Double) {
        self.init(centre: centre, half: SIMD2(SheetDrawing.textWidth(text, size: size) / 2, size / 2) + Self.clearance,
                  along: SIMD2(cosine(angle), sine(angle)))
    }

    /// A drawn rectangle (no clearance): `half` its half sides along the unit vector `along` and
    /// across it.
    init(centre: SIMD2<Double>, half: SIMD2<Double>, along: SIMD2<Double>) {
        self.centre = centre
        self.half = half
        self.along = along
        across = SIMD2(-along.y, along.x)
    }

    /// The pieces, at most `SettledLabels.cell` long, of a drawn rectangle given by its four
    /// corners in order (an object's footprint, a stretch of wall, a window); empty for any other
    /// polygon or a degenerate one.
    static func pieces(ofRectangle c: [SIMD2<Double>]) -> [LabelBox] {
        guard c.count == 4, c.allSatisfy({ $0.x.isFinite && $0.y.isFinite }) else { return [] }
        var u = c[1] - c[0], v = c[3] - c[0]
        var lu = (u * u).sum().squareRoot(), lv = (v * v).sum().squareRoot()
        guard lu > 1e-9, lv > 1e-9, abs((u * v).sum()) < 1e-6 * lu * lv else { return [] }
        if lv > lu { swap(&u, &v); swap(&lu, &lv) }
        let along = u / lu
        let count = min(Int((lu / SettledLabels.cell).rounded(.up)), 1_000)
        let step = lu / Double(count)
        let start = c[0] + v / 2
        return (0..<count).map { k in
            LabelBox(centre: start + along * (step * (Double(k) + 0.5)), half: SIMD2(step / 2, lv / 2), along: along)
        }
    }

    /// The pieces of a drawn line from `a` to `b`, `width` paper millimetres wide, as those of the
    /// rectangle it covers; empty for a line of no length.
    static func pieces(ofSegment a: SIMD2<Double>, _ b: SIMD2<Double>, width: Double) -> [LabelBox] {
        let d = b - a, length = (d * d).sum().squareRoot()
        guard length > 1e-9, width.isFinite, width > 0 else { return [] }
        let n = SIMD2(-d.y, d.x) / length * (width / 2)
        return pieces(ofRectangle: [a - n, b - n, b + n, a + n])
    }

    /// Whether the two rectangles share any area (separating-axis test on the four edge
    /// directions; touching edges do not count).
    func overlaps(_ o: LabelBox) -> Bool {
        let d = o.centre - centre
        func separates(_ axis: SIMD2<Double>) -> Bool {
            let r1 = half.x * abs((along * axis).sum()) + half.y * abs((across * axis).sum())
            let r2 = o.half.x * abs((o.along * axis).sum()) + o.half.y * abs((o.across * axis).sum())
            return abs((d * axis).sum()) >= r1 + r2
        }
        return !(separates(along) || separates(across) || separates(o.along) || separates(o.across))
    }
}

/// Where a dimension's text may go instead of the middle of its line: `reach` paper millimetres
/// either way along `direction` (so it stays on the line), on the other side of the line (moved by
/// `flip`), and out to `LabelSlide.awayLimit` text heights further from the line along `away`.
struct LabelSlide {
    /// How far from its line a text may be pushed, in text heights.
    static let awayLimit = 2.0

    var direction: SIMD2<Double>
    var reach: Double
    var away: SIMD2<Double>
    /// The move that puts the text the same distance from its line on the other side (zero: it
    /// stays on its side).
    var flip = SIMD2<Double>.zero
    /// The text's height, millimetres.
    var size: Double
    /// The dimension's own sheet items: its lines (extension lines, dimension line, end marks),
    /// which its text is drawn against and need not keep clear of, and the text itself.
    var ownItems: Range<Int> = 0..<0
    /// The same dimension drawn on the other side of what it measures, item for item as
    /// `ownItems` (the text last), or empty; its text slides as this one does, mirrored.
    var otherSide: [PlanItem] = []

    /// The items of a wall's dimension, as `SheetDrawing.dimensionItems` draws them: two extension
    /// lines, the dimension line (at `dimensionLine`), two end marks, then the text.
    static let dimensionItemCount = 6
    static let dimensionLine = 2

    /// The slide of the text of `otherSide`: the same line direction and reach, the sides swapped.
    var mirrored: LabelSlide {
        LabelSlide(direction: direction, reach: reach, away: -away, flip: -flip, size: size, ownItems: ownItems)
    }
}

/// The labels settled so far, bucketed on a grid of `cell` paper millimetres so that a box is
/// tested only against its neighbours, with a budget of `maxTests` box tests per sheet: a hostile
/// sheet (thousands of labels on one spot) costs a bounded time, and once the budget is spent the
/// remaining labels stay where they were drawn.
struct SettledLabels {
    static let cell = 8.0
    static let maxTests = 1_000_000

    private(set) var boxes: [LabelBox] = []
    /// The sheet item each box was drawn for (−1: none given).
    private var owners: [Int] = []
    /// Boxes that only matter to where a label moves, not to whether it must (`isFree`'s `soft`).
    private var softness: [Bool] = []
    /// Boxes taken back (`retire`), no longer tested.
    private var retired: [Bool] = []
    /// The boxes of each owner given.
    private var boxesOfOwner: [Int: [Int]] = [:]
    private var cells: [SIMD2<Int>: [Int]] = [:]
    private(set) var tests = 0
    var spent: Bool { tests >= Self.maxTests }

    mutating func insert(_ b: LabelBox, owner: Int = -1, soft: Bool = false) {
        for c in Self.cells(of: b) { cells[c, default: []].append(boxes.count) }
        boxes.append(b)
        owners.append(owner)
        softness.append(soft)
        retired.append(false)
        if owner >= 0 { boxesOfOwner[owner, default: []].append(boxes.count - 1) }
    }

    /// Inserts the boxes covering a line item (nothing for other items), drawn for item `owner`.
    mutating func insert(line item: PlanItem, owner: Int) {
        guard case .line(let a, let b, let width, _, _) = item else { return }
        for piece in LabelBox.pieces(ofSegment: a, b, width: width) { insert(piece, owner: owner) }
    }

    /// Takes back every box drawn for the items `owners` (a dimension drawn again elsewhere).
    mutating func retire(owners range: Range<Int>) {
        for owner in range { for i in boxesOfOwner[owner] ?? [] { retired[i] = true } }
    }

    /// Whether `b` covers no settled box other than those drawn for the items `except`, soft boxes
    /// counting only when `soft`; false once the budget is spent.
    mutating func isFree(_ b: LabelBox, except: Range<Int> = 0..<0, soft: Bool = false) -> Bool {
        for c in Self.cells(of: b) {
            for i in cells[c] ?? [] where !except.contains(owners[i]) && (soft || !softness[i]) && !retired[i] {
                guard tests < Self.maxTests else { return false }
                tests += 1
                if boxes[i].overlaps(b) { return false }
            }
        }
        return !spent
    }

    /// The grid cells the box's axis-aligned bounds reach into.
    static func cells(of b: LabelBox) -> [SIMD2<Int>] {
        let e = SIMD2(abs(b.along.x), abs(b.along.y)) * b.half.x + SIMD2(abs(b.across.x), abs(b.across.y)) * b.half.y
        func index(_ v: Double) -> Int { Int((min(max(v, -1e9), 1e9) / cell).rounded(.down)) }
        let lo = SIMD2(index(b.centre.x - e.x), index(b.centre.y - e.y))
        let hi = SIMD2(index(b.centre.x + e.x), index(b.centre.y + e.y))
        guard lo.x <= hi.x, lo.y <= hi.y else { return [] }
        var out: [SIMD2<Int>] = []
        for y in lo.y...hi.y { for x in lo.x...hi.x { out.append(SIMD2(x, y)) } }
        return out
    }
}

extension SheetDrawing {
    /// Paper millimetres between the positions tried when a dimension's text slides along its line.
    static let slideStep = 0.5

    /// Keeps labels from covering one another. Labels are settled in order of importance (title and
    /// notes, room names and areas, dimensions, object names; dimensions with the least room to
    /// slide first, otherwise as drawn) and each is checked against those settled before it: a
    /// dimension's text that would cover one, or an object's footprint, a wall, a window, a door or
    /// another dimension's lines, slides along its dimension line (on its own side, then on the
    /// other) to the nearest place clear of both, or failing that moves up to twice its own height
    /// further out from the line, never onto where another dimension's text is drawn. A wall's
    /// dimension with no such place, or whose line crosses a shape or a label, is drawn on the
    /// other side of the wall instead when that side is clear (`otherSidePlace`). Where no
    /// place is clear of both it takes the nearest clear of labels alone, and where there is none
    /// it stays in the middle. An object's name that would cover a label is left out (the footprint
    /// keeps its category colour). Room labels and the frame are not moved. The work is bounded by
    /// `SettledLabels.maxTests` box tests against labels and as many against drawn shapes and
    /// other dimensions' texts; returns the box tests it made.
    @discardableResult
    mutating func separateLabels() -> Int {
        struct Label {
            var index: Int
            var rank: Int
            var box: LabelBox
        }
        var labels: [Label] = []
        for (i, item) in sheet.items.enumerated() {
            guard case .text(let s, let at, let size, let angle, _, _, let role, _) = item else { continue }
            let rank: Int
            switch role {
            case .title, .note, .schedule: rank = 0
            case .roomName, .roomArea, .roomSize: rank = 1
            case .dimension: rank = 2
            case .objectName: rank = 3
            }
            labels.append(Label(index: i, rank: rank, box: LabelBox(s, at: at, size: size, angle: angle)))
        }
        // Among dimensions, the texts with the least room to move settle first.
        func room(_ l: Label) -> Double { l.rank == 2 ? slides[l.index]?.reach ?? 0 : 0 }
        labels.sort { ($0.rank, room($0), $0.index) < ($1.rank, room($1), $1.index) }
        var settled = SettledLabels()
        // What a dimension's text would rather not cover: object footprints, walls, windows, door
        // leaves and jambs, and the lines of the other dimensions; and, only as a place to move
        // to, where the other dimensions' texts are drawn (so that one moving out of the way does
        // not take another's place).
        var shapes = SettledLabels()
        for label in labels where label.rank == 2 { shapes.insert(label.box, owner: label.index, soft: true) }
        for (i, item) in sheet.items.enumerated() {
            switch item {
            case .polygon(let corners, _, _, _, let layer) where [.furniture, .walls, .windows].contains(layer):
                for piece in LabelBox.pieces(ofRectangle: corners) { shapes.insert(piece, owner: i) }
            case .line(_, _, _, _, let layer) where [.dimensions, .doors].contains(layer):
                shapes.insert(line: item, owner: i)
            default:
                continue
            }
        }
        var dropped = Set<Int>()
        for label in labels {
            var box = label.box
            // `isFree` is also false when the budget runs out during it: then the label stays as drawn.
            if label.rank == 3 && !settled.spent && !settled.isFree(box) && !settled.spent {
                dropped.insert(label.index)
                continue
            }
            if label.rank == 2 && !settled.spent, let slide = slides[label.index] {
                let clear = settled.isFree(box)
                // First the nearest place clear of labels and shapes; where there is none, the
                // nearest clear of labels.
                var moved: LabelBox?
                let own = slide.ownItems
                let blocked = !settled.spent && (!clear || !shapes.isFree(box, except: own)) && !shapes.spent
                if blocked {
                    moved = Self.nearestFree(box, slide: slide, free: { settled.isFree($0) && shapes.isFree($0, except: own, soft: true) },
                                             spent: { settled.spent || shapes.spent })
                }
                // Nowhere clear on this side, or its line crosses a shape or a label: the dimension
                // drawn on the other side of what it measures, if its line crosses nothing there
                // and its text finds a clear place.
                // (The line is tested only when the text alone does not already decide it.)
                let tryOther = slide.otherSide.count == LabelSlide.dimensionItemCount && ((blocked && moved == nil)
                    || !Self.lineIsClear(
                        sheet.items[own.lowerBound + LabelSlide.dimensionLine], own: own, settled: &settled, shapes: &shapes))
                if tryOther, let place = otherSidePlace(slide, settled: &settled, shapes: &shapes) {
                    for (k, item) in slide.otherSide.enumerated() { sheet.items[own.lowerBound + k] = item }
                    shapes.retire(owners: own)
                    for (k, item) in slide.otherSide.enumerated() { shapes.insert(line: item, owner: own.lowerBound + k) }
                    moved = place
                }
                if moved == nil && !clear && !settled.spent {
                    moved = Self.nearestFree(box, slide: slide, free: { settled.isFree($0) }, spent: { settled.spent })
                }
                if let moved {
                    box = moved
                    sheet.items[label.index] = Self.moved(sheet.items[label.index], to: moved.centre)
                }
            }
            settled.insert(box)
        }
        if !dropped.isEmpty {
            sheet.items = sheet.items.enumerated().filter { !dropped.contains($0.offset) }.map(\.element)
        }
        slides = [:]
        return settled.tests + shapes.tests
    }

    /// Paper millimetres at each end of a dimension line on the other side that need not be
    /// clear: there it meets the walls at the ends of what it measures.
    static let otherSideEndClearance = 2.0

    /// Where the text of `slide.otherSide` goes: its first place clear of labels and shapes, as
    /// `nearestFree` finds it with the mirrored slide, provided the other side's dimension line is
    /// clear (`lineIsClear`); nil otherwise, when there is no other side or once either budget is
    /// spent.
    func otherSidePlace(_ slide: LabelSlide, settled: inout SettledLabels, shapes: inout SettledLabels) -> LabelBox? {
        let other = slide.otherSide
        guard other.count == LabelSlide.dimensionItemCount,
            case .text(let s, let at, let size, let angle, _, _, _, _) = other[other.count - 1], !settled.spent, !shapes.spent
        else { return nil }
        let own = slide.ownItems
        guard Self.lineIsClear(other[LabelSlide.dimensionLine], own: own, settled: &settled, shapes: &shapes) else { return nil }
        let start = LabelBox(s, at: at, size: size, angle: angle)
        if settled.isFree(start) && shapes.isFree(start, except: own, soft: true) { return start }
        return Self.nearestFree(
            start, slide: slide.mirrored, free: { settled.isFree($0) && shapes.isFree($0, except: own, soft: true) },
            spent: { settled.spent || shapes.spent })
    }

    /// Whether a dimension line (all but `otherSideEndClearance` at each end) covers no settled
    /// label, shape or other dimension's text; false once either budget is spent.
    static func lineIsClear(_ line: PlanItem, own: Range<Int>, settled: inout SettledLabels, shapes: inout SettledLabels) -> Bool {
        guard case .line(let a, let b, let width, _, _) = line else { return false }
        let d = b - a, length = (d * d).sum().squareRoot(), trim = otherSideEndClearance
        guard length > 2 * trim else { return !settled.spent && !shapes.spent }
        let u = d / length
        for piece in LabelBox.pieces(ofSegment: a + u * trim, b - u * trim, width: width) {
            guard settled.isFree(piece), shapes.isFree(piece, except: own, soft: true) else { return false }
        }
        return true
    }

    /// The first free position, `slideStep` apart: along the line nearest the middle first (the
    /// positive side first at equal distance), then the same on the other side of the line, then a
    /// step further out from the line on its own side, and so on out to the slide's limit; nil when
    /// none is free or once `spent` says the budget is gone.
    static func nearestFree(
        _ box: LabelBox, slide: LabelSlide, free: (LabelBox) -> Bool, spent: () -> Bool
    ) -> LabelBox? {
        let steps = Int((min(slide.reach, 1e4) / slideStep).rounded(.down))
        let awaySteps = Int((min(slide.size * LabelSlide.awayLimit, 1e3) / slideStep).rounded(.down))
        // Rows of positions along the line: its own side, the other side, then further out.
        var rows = [SIMD2<Double>.zero]
        if slide.flip != .zero { rows.append(slide.flip) }
        rows += (0..<awaySteps).map { slide.away * (Double($0 + 1) * slideStep) }
        for (row, shift) in rows.enumerated() {
            for k in 0...steps where row > 0 || k > 0 {
                for sign in k == 0 ? [1.0] : [1.0, -1.0] {
                    guard !spent() else { return nil }
                    var b = box
                    b.centre += slide.direction * (sign * Double(k) * slideStep) + shift
                    if free(b) { return b }
                }
            }
        }
        return nil
    }

    static func moved(_ item: PlanItem, to at: SIMD2<Double>) -> PlanItem {
        guard case .text(let s, _, let size, let angle, let colour, let bold, let role, let layer) = item else { return item }
        return .text(s, at: at, size: size, angle: angle, colour: colour, bold: bold, role: role, layer: layer)
    }
}
