#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
        self.centre = centre
        half = SIMD2(SheetDrawing.textWidth(text, size: size) / 2, size / 2) + Self.clearance
        along = SIMD2(cosine(angle), sine(angle))
        across = SIMD2(-along.y, along.x)
    }

    /// Whether the two rectangles share any area (separating-axis test on the four edge
    /// directions; touching edges do not count).
    func overlaps(_ o: LabelBox) -> Bool {
        let d = o.centre - centre
        for axis in [along, across, o.along, o.across] {
            let r1 = half.x * abs((along * axis).sum()) + half.y * abs((across * axis).sum())
            let r2 = o.half.x * abs((o.along * axis).sum()) + o.half.y * abs((o.across * axis).sum())
            if abs((d * axis).sum()) >= r1 + r2 { return false }
        }
        return true
    }
}

/// Where a dimension's text may go instead of the middle of its line: `reach` paper millimetres
/// either way along `direction` (so it stays on the line), and out to `LabelSlide.awayLimit` text
/// heights further from the line along `away`.
struct LabelSlide {
    /// How far from its line a text may be pushed, in text heights.
    static let awayLimit = 2.0

    var direction: SIMD2<Double>
    var reach: Double
    var away: SIMD2<Double>
    /// The text's height, millimetres.
    var size: Double
}

extension SheetDrawing {
    /// Paper millimetres between the positions tried when a dimension's text slides along its line.
    static let slideStep = 0.5

    /// Keeps labels from covering one another. Labels are settled in order of importance (title and
    /// notes, room names and areas, dimensions, object names; dimensions with the least room to
    /// slide first, otherwise as drawn) and each is
    /// checked against those settled before it: a dimension's text that would cover one slides along
    /// its dimension line to the nearest free place, or where the line is too short, moves up to
    /// twice its own height further from the line (where there is still none it stays in the middle), and
    /// an object's name that would cover one is left out (the footprint
    /// keeps its category colour). Room labels and the frame are not moved.
    mutating func separateLabels() {
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
            case .title, .note: rank = 0
            case .roomName, .roomArea: rank = 1
            case .dimension: rank = 2
            case .objectName: rank = 3
            }
            labels.append(Label(index: i, rank: rank, box: LabelBox(s, at: at, size: size, angle: angle)))
        }
        // Among dimensions, the texts with the least room to move settle first.
        func room(_ l: Label) -> Double { l.rank == 2 ? slides[l.index]?.reach ?? 0 : 0 }
        labels.sort { ($0.rank, room($0), $0.index) < ($1.rank, room($1), $1.index) }
        var settled: [LabelBox] = []
        var dropped = Set<Int>()
        func free(_ b: LabelBox) -> Bool { !settled.contains { $0.overlaps(b) } }
        for label in labels {
            var box = label.box
            if label.rank >= 2 && !free(box) {
                if label.rank == 3 {
                    dropped.insert(label.index)
                    continue
                }
                if let slide = slides[label.index], let moved = Self.nearestFree(box, slide: slide, free: free) {
                    box = moved
                    sheet.items[label.index] = Self.moved(sheet.items[label.index], to: moved.centre)
                }
            }
            settled.append(box)
        }
        if !dropped.isEmpty {
            sheet.items = sheet.items.enumerated().filter { !dropped.contains($0.offset) }.map(\.element)
        }
        slides = [:]
    }

    /// The first free position, `slideStep` apart: along the line nearest the middle first (the
    /// positive side first at equal distance), then the same a step further from the line, and so
    /// on out to the slide's limit; nil when none is free.
    static func nearestFree(_ box: LabelBox, slide: LabelSlide, free: (LabelBox) -> Bool) -> LabelBox? {
        let steps = Int((slide.reach / slideStep).rounded(.down))
        let awaySteps = Int((slide.size * LabelSlide.awayLimit / slideStep).rounded(.down))
        for j in 0...awaySteps {
            for k in 0...steps where j > 0 || k > 0 {
                for sign in k == 0 ? [1.0] : [1.0, -1.0] {
                    var b = box
                    b.centre += slide.direction * (sign * Double(k) * slideStep) + slide.away * (Double(j) * slideStep)
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
