import Foundation
import Layering
import SceneModel
import Testing
import TestSupport
import USDParse
@testable import FloorPlan

/// Labels of a plan never cover one another: on every sample room, the shared corpus's scans, both
/// languages and both unit systems; and the two ways a label gives way (a dimension's text slides
/// along its line, an object's name is left out) do what they say.
@Suite struct LabelPlacementTests {
    /// The rooms to check: every RoomPlan sample from its JSON, the two-story variant, and the
    /// corpus's RoomPlan scans (USDZ alone, as the worker gets them, and the JSON-only room).
    static func rooms() throws -> [(name: String, layered: LayeredScene)] {
        var out: [(String, LayeredScene)] = []
        for s in ["ios16_mesh", "mesh_opening_unmatched", "model_catalog", "parametric_two_sections"] {
            out.append((s, try PlanFixtures.layered(s)))
        }
        out.append(("parametric_two_sections, two stories", try PlanFixtures.twoStories("parametric_two_sections")))
        let corpus = TestPaths.packageRoot.appendingPathComponent("../shared/corpus/roomplan").standardizedFileURL
        let usdz = corpus.appendingPathComponent("usdz")
        for name in ((try? FileManager.default.contentsOfDirectory(atPath: usdz.path)) ?? []).sorted() where name.hasSuffix(".usdz") {
            let bytes = [UInt8](try Data(contentsOf: usdz.appendingPathComponent(name)))
            guard let scene = try? USDParser.parseScene(bytes, name: name).scene,
                let layered = try? RoomLayering.layer(scene: scene, capturedRoomJSON: nil)
            else { continue }
            out.append((name, layered))
        }
        let json = corpus.appendingPathComponent("json/lodge_single_livingroom.json")
        if let bytes = FileManager.default.contents(atPath: json.path) {
            out.append(("lodge_single_livingroom.json", try RoomLayering.layer(scene: nil, capturedRoomJSON: [UInt8](bytes))))
        }
        return out
    }

    static func boxes(_ sheet: PlanSheet) -> [(text: String, box: LabelBox)] {
        sheet.items.compactMap { item in
            guard case .text(let s, let at, let size, let angle, _, _, _, _) = item else { return nil }
            return (s, LabelBox(s, at: at, size: size, angle: angle))
        }
    }

    @Test func noLabelCoversAnother() throws {
        var plans = 0
        for (name, layered) in try Self.rooms() {
            for options in [PlanOptions(), PlanOptions(units: .imperial), PlanOptions(locale: .zhHans)] {
                guard let plan = PlanBuilder.build(layered, options: options).plan else { continue }
                plans += 1
                for sheet in plan.sheets {
                    let labels = Self.boxes(sheet)
                    #expect(labels.count >= 4, "\(name): \(labels.count) labels")
                    for i in labels.indices {
                        for j in labels.indices where j > i && labels[i].box.overlaps(labels[j].box) {
                            Issue.record("\(name) (\(options.units), \(options.locale)): '\(labels[i].text)' covers '\(labels[j].text)'")
                        }
                    }
                }
            }
        }
        #expect(plans >= 15, "\(plans) plans checked")
    }

    @Test func boxesMeetOnlyWhereTheyShareArea() {
        let a = LabelBox("0.00 m", at: SIMD2(0, 0), size: 2.3, angle: 0)
        // Side by side with room to spare, then nudged into each other.
        let width = 2 * a.half.x
        #expect(!a.overlaps(LabelBox("0.00 m", at: SIMD2(width + 0.01, 0), size: 2.3, angle: 0)))
        #expect(a.overlaps(LabelBox("0.00 m", at: SIMD2(width - 0.5, 0), size: 2.3, angle: 0)))
        // Crossing at right angles through the same centre, and a turned box whose corner reaches
        // into the first although their centres are farther apart than the first's half length.
        #expect(a.overlaps(LabelBox("0.00 m", at: SIMD2(0, 0), size: 2.3, angle: Double.pi / 2)))
        let turned = LabelBox("0.00 m", at: SIMD2(a.half.x + 2.5, 2.0), size: 2.3, angle: Double.pi / 4)
        #expect(a.overlaps(turned) == turned.overlaps(a))
        #expect(!a.overlaps(LabelBox("0.00 m", at: SIMD2(a.half.x + 6, 6), size: 2.3, angle: Double.pi / 4)))
    }

    /// A sheet whose dimensions and names are drawn on top of one another by hand.
    static func crowded() throws -> SheetDrawing {
        let layered = try PlanFixtures.layered("parametric_two_sections")
        let g = PlanGeometry(layered)
        var sheet = PlanSheet(story: 0, width: 297, height: 210, scale: 100, origin: SIMD2(100, 100), items: [], title: "")
        sheet.items = []
        return SheetDrawing(
            sheet: sheet, geometry: g, options: PlanOptions(), format: MeasureFormatter(units: .metric),
            vocabulary: PlanVocabulary(locale: .en), outlines: [])
    }

    @Test func aDimensionTextSlidesAlongItsOwnLine() throws {
        var d = try Self.crowded()
        // Two 3 m dimensions on the same line, one over the other: the later one gives way.
        d.dimension(from: SIMD2(0, 0), to: SIMD2(3, 0), outward: SIMD2(0, -1), offset: 0.5, start: 0.1, metres: 3)
        d.dimension(from: SIMD2(0, 0), to: SIMD2(3, 0), outward: SIMD2(0, -1), offset: 0.5, start: 0.1, metres: 3.01)
        let before = Self.boxes(d.sheet)
        #expect(before.count == 2 && before[0].box.overlaps(before[1].box))
        d.separateLabels()
        let after = Self.boxes(d.sheet)
        try #require(after.count == 2)
        #expect(after[0].box == before[0].box, "the first is settled where it was drawn")
        #expect(!after[0].box.overlaps(after[1].box))
        let shift = after[1].box.centre - before[1].box.centre
        #expect(abs(shift.y) < 1e-9 && abs(shift.x) > 0, "moved along the line only: \(shift)")
        // It stays within the line (30 mm long at 1:100) and clear of its slashed ends.
        #expect(abs(shift.x) + after[1].box.half.x <= 15)
        #expect(d.slides.isEmpty)
    }

    @Test func theTextWithLeastRoomSettlesFirst() throws {
        var d = try Self.crowded()
        // A 0.5 m wall at 1:100 has 5 mm of line, less than its own text: drawn second, it still
        // keeps its place, and the 3 m dimension's text slides along its longer line instead.
        d.dimension(from: SIMD2(0, 0), to: SIMD2(3, 0), outward: SIMD2(0, -1), offset: 0.5, start: 0.1, metres: 3)
        d.dimension(from: SIMD2(1.25, 0), to: SIMD2(1.75, 0), outward: SIMD2(0, -1), offset: 0.5, start: 0.1, metres: 0.5)
        let before = Self.boxes(d.sheet)
        d.separateLabels()
        let after = Self.boxes(d.sheet)
        try #require(after.count == 2)
        #expect(after[1].box == before[1].box)
        #expect(after[0].box.centre.y == before[0].box.centre.y && after[0].box.centre.x != before[0].box.centre.x)
        #expect(!after[0].box.overlaps(after[1].box))
    }

    @Test func aShortDimensionMovesOutFromItsLineAtMostTwiceItsHeight() throws {
        var d = try Self.crowded()
        // Three 0.5 m dimensions on one spot: none can slide, and each text, wider than its 5 mm
        // line, reaches the tips of the other two's extension lines. The first moves out (up the
        // page, away from the wall) until clear of them and of the others' texts; the second then
        // keeps its place; the third, with no place clear of both labels and lines, takes the
        // nearest clear of labels: the other side of its line.
        for _ in 0..<3 {
            d.dimension(from: SIMD2(1.25, 0), to: SIMD2(1.75, 0), outward: SIMD2(0, -1), offset: 0.5, start: 0.1, metres: 0.5)
        }
        let before = Self.boxes(d.sheet)
        d.separateLabels()
        let after = Self.boxes(d.sheet)
        try #require(after.count == 3)
        #expect(after[1].box == before[1].box)
        let out = before[0].box.centre.y - after[0].box.centre.y
        #expect(after[0].box.centre.x == before[0].box.centre.x && out > 0 && out <= 2 * 2.3, "moved out by \(out) mm")
        let across = after[2].box.centre - before[2].box.centre
        #expect(abs(across.x) < 1e-9 && abs(across.y - 2 * 0.85 * 2.3) < 1e-9, "turned over its line: \(across)")
        for (i, j) in [(0, 1), (0, 2), (1, 2)] { #expect(!after[i].box.overlaps(after[j].box), "\(i) and \(j)") }
    }

    @Test func aDimensionTextBlockedOnItsSideTurnsOverItsLine() throws {
        var d = try Self.crowded()
        d.dimension(from: SIMD2(0, 0), to: SIMD2(3, 0), outward: SIMD2(0, -1), offset: 0.5, start: 0.1, metres: 3)
        let before = try #require(Self.boxes(d.sheet).first)
        // The line is at y = 95 mm; a footprint fills its outer side along all of it and as far
        // out as the text may move, stopping 0.4 mm short of the line.
        d.add(Self.footprint(SIMD2(95, before.box.centre.y - 8), SIMD2(135, 94.6)))
        d.separateLabels()
        let after = try #require(Self.boxes(d.sheet).first)
        let across = after.box.centre - before.box.centre
        #expect(abs(across.x) < 1e-9 && abs(across.y - 2 * 0.85 * 2.3) < 1e-9, "turned over its line: \(across)")
    }

    @Test func aTextMovingOutOfTheWayDoesNotTakeAnotherDimensionsPlace() throws {
        // A 0.5 m dimension whose text sits on a footprint moves out from its line; where it goes
        // when alone is found first.
        func shortDimensionOnAFootprint() throws -> (SheetDrawing, LabelBox) {
            var d = try Self.crowded()
            d.dimension(from: SIMD2(1.25, 0), to: SIMD2(1.75, 0), outward: SIMD2(0, -1), offset: 0.5, start: 0.1, metres: 0.5)
            let home = try #require(Self.boxes(d.sheet).first).box
            d.add(Self.footprint(home.centre - SIMD2(2, 0), home.centre + SIMD2(2, 3)))
            return (d, home)
        }
        var (alone, home) = try shortDimensionOnAFootprint()
        alone.separateLabels()
        let spot = try #require(Self.boxes(alone.sheet).first).box
        #expect(spot.centre.y < home.centre.y, "alone, it moves out to \(spot.centre)")
        // Now another dimension's text is drawn on that spot, free to slide 20 mm along its line.
        var (d, _) = try shortDimensionOnAFootprint()
        let other = d.sheet.items.count
        d.add(.text("2.00 m", at: spot.centre, size: 2.3, angle: 0, colour: 0, bold: false, role: .dimension(metres: 2), layer: .dimensions))
        d.slides[other] = LabelSlide(direction: SIMD2(1, 0), reach: 20, away: SIMD2(0, -1), size: 2.3, ownItems: other..<(other + 1))
        let otherHome = LabelBox("2.00 m", at: spot.centre, size: 2.3, angle: 0)
        d.separateLabels()
        let after = Self.boxes(d.sheet)
        try #require(after.count == 2)
        #expect(!after[0].box.overlaps(otherHome), "the short one did not move onto the other's text")
        #expect(after[1].box == otherHome, "so the other keeps its place")
        #expect(!after[0].box.overlaps(after[1].box))
    }

    @Test func thousandsOfLabelsOnOneSpotCostABoundedNumberOfTests() throws {
        var d = try Self.crowded()
        // 3,000 dimensions of one 4 m wall and 3,000 names on the same spot: the placement stops
        // once its budget of box tests is spent, and every label after that stays as drawn.
        for _ in 0..<3_000 {
            d.dimension(from: SIMD2(0, 0), to: SIMD2(4, 0), outward: SIMD2(0, -1), offset: 0.5, start: 0.1, metres: 4)
        }
        for _ in 0..<3_000 {
            d.add(.text("Chair", at: SIMD2(120, 93), size: 2, angle: 0, colour: 0, bold: false, role: .objectName, layer: .text))
        }
        let tests = d.separateLabels()
        // Two budgets: the tests against settled labels, and those against drawn shapes and the
        // places other dimensions' texts are drawn.
        #expect(tests >= SettledLabels.maxTests && tests <= 2 * SettledLabels.maxTests, "\(tests) box tests")
        let texts = Self.boxes(d.sheet).map(\.text)
        #expect(texts.filter { $0 == "4.00 m" }.count == 3_000, "no dimension is ever left out")
        #expect(texts.filter { $0 == "Chair" }.count == 3_000, "names come after the dimensions, when nothing is tested any more")
    }

    /// A footprint drawn (on the furniture layer) as the rectangle `lo`…`hi`, paper millimetres.
    static func footprint(_ lo: SIMD2<Double>, _ hi: SIMD2<Double>) -> PlanItem {
        .polygon([lo, SIMD2(hi.x, lo.y), hi, SIMD2(lo.x, hi.y)], fill: 0xEEEEEE, stroke: 0, strokeWidth: 0.25, layer: .furniture)
    }

    /// Draws a 3 m dimension (a 30 mm line at 1:100), then `obstacle(centre)` over its text, and
    /// checks that the text slides along its own line, off every piece `pieces(centre)` of the
    /// obstacle, without leaving the line; the obstacle itself stays as drawn.
    static func expectSlideOff(
        _ obstacle: (SIMD2<Double>) -> PlanItem, pieces: (SIMD2<Double>) -> [LabelBox], count: Int
    ) throws {
        var d = try crowded()
        d.dimension(from: SIMD2(0, 0), to: SIMD2(3, 0), outward: SIMD2(0, -1), offset: 0.5, start: 0.1, metres: 3)
        let before = try #require(boxes(d.sheet).first)
        let shape = obstacle(before.box.centre)
        d.add(shape)
        let pieces = pieces(before.box.centre)
        #expect(pieces.count == count && pieces.contains { $0.overlaps(before.box) })
        d.separateLabels()
        let after = try #require(boxes(d.sheet).first)
        let shift = after.box.centre - before.box.centre
        #expect(abs(shift.y) < 1e-9 && abs(shift.x) > 0, "moved along the line only: \(shift)")
        #expect(!pieces.contains { $0.overlaps(after.box) }, "clear of the obstacle")
        #expect(abs(shift.x) + after.box.half.x <= 15, "still on its 30 mm line")
        #expect(d.sheet.items.contains(shape), "the obstacle itself is not touched")
    }

    @Test func aDimensionTextMovesOffAFootprintAlongItsLine() throws {
        // A 6 mm box over the middle of the text.
        try Self.expectSlideOff(
            { c in Self.footprint(c - SIMD2(3, 3), c + SIMD2(3, 3)) },
            pieces: { c in LabelBox.pieces(ofRectangle: [c - SIMD2(3, 3), c + SIMD2(3, -3), c + SIMD2(3, 3), c + SIMD2(-3, 3)]) },
            count: 1)
    }

    @Test func aDimensionTextMovesOffAnotherDimensionsLine() throws {
        // Another dimension's extension line, 20 mm long, straight through the middle of the text.
        try Self.expectSlideOff(
            { c in .line(c - SIMD2(0, 10), c + SIMD2(0, 10), width: 0.18, colour: 0, layer: .dimensions) },
            pieces: { c in LabelBox.pieces(ofSegment: c - SIMD2(0, 10), c + SIMD2(0, 10), width: 0.18) },
            count: 3)
    }

    @Test func aDimensionTextWithNoPlaceClearOfShapesStaysWhereItWas() throws {
        var d = try Self.crowded()
        d.dimension(from: SIMD2(0, 0), to: SIMD2(3, 0), outward: SIMD2(0, -1), offset: 0.5, start: 0.1, metres: 3)
        let before = try #require(Self.boxes(d.sheet).first)
        // A wall-sized block under the whole line and everywhere the text could go.
        d.add(Self.footprint(before.box.centre - SIMD2(40, 40), before.box.centre + SIMD2(40, 40)))
        d.separateLabels()
        #expect(Self.boxes(d.sheet).first?.box == before.box)
    }

    @Test func thousandsOfShapesCostABoundedNumberOfTests() throws {
        var d = try Self.crowded()
        // 60 dimensions of one 4 m wall on one spot: all but the first search for a free place.
        for _ in 0..<60 {
            d.dimension(from: SIMD2(0, 0), to: SIMD2(4, 0), outward: SIMD2(0, -1), offset: 0.5, start: 0.1, metres: 4)
        }
        // 5,000 specks just below the texts' row, in the cells every position tried reaches into
        // but in the way of none, then one block over the whole spot: every test runs through the
        // specks before it meets the block.
        let first = try #require(Self.boxes(d.sheet).first).box
        for k in 0..<5_000 {
            let at = first.centre + SIMD2(Double(k % 100) * 0.4 - 20, first.half.y + 0.1)
            d.add(Self.footprint(at, at + SIMD2(0.1, 0.1)))
        }
        d.add(Self.footprint(first.centre - SIMD2(30, 30), first.centre + SIMD2(30, first.half.y)))
        let tests = d.separateLabels()
        #expect(tests >= SettledLabels.maxTests && tests <= 2 * SettledLabels.maxTests, "\(tests) box tests")
        #expect(Self.boxes(d.sheet).count == 60, "no dimension is left out")
    }

    @Test func anObjectNameThatWouldCoverALabelIsLeftOut() throws {
        var d = try Self.crowded()
        d.dimension(from: SIMD2(0, 0), to: SIMD2(3, 0), outward: SIMD2(0, -1), offset: 0.5, start: 0.1, metres: 3)
        guard case .text(_, let at, _, _, _, _, _, _) = try #require(d.sheet.items.last) else {
            Issue.record("the dimension's text is its last item")
            return
        }
        d.add(.text("Sofa", at: at, size: 2, angle: 0, colour: 0, bold: false, role: .objectName, layer: .text))
        d.add(.text("Table", at: at + SIMD2(0, 40), size: 2, angle: 0, colour: 0, bold: false, role: .objectName, layer: .text))
        d.separateLabels()
        let texts = Self.boxes(d.sheet).map(\.text)
        #expect(texts == ["3.00 m", "Table"], "\(texts)")
    }
}
