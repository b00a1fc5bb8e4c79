import SceneModel

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Colours of the plan (0xRRGGBB).
enum PlanColours {
    static let paper: UInt32 = 0xFFFFFF
    static let floor: UInt32 = 0xF4F1EA
    static let wall: UInt32 = 0x2E2E2E
    static let door: UInt32 = 0x5A5A5A
    static let window: UInt32 = 0x3B7DD8
    static let opening: UInt32 = 0x8A8A8A
    static let dimension: UInt32 = 0x4A4A4A
    static let text: UInt32 = 0x1E1E1E
    static let roomText: UInt32 = 0x2F4F6F
}

/// Builds the floor plan of a room as values: per story, a sheet at a standard drawing scale on
/// A4 (or larger) paper with the floor, object footprints and their names, walls of the stated
/// thickness with gaps for openings, door leaves and swing arcs, windows, open passages, a
/// dimension for every wall of at least `minimumDimensionedWall`, the overall width and depth,
/// each room's name and area, a scale bar and a title with the story's total area.
public enum PlanBuilder {
    /// Drawing scales tried, largest drawing first (1 : s).
    static let scales: [Double] = [20, 25, 50, 75, 100, 125, 150, 200, 250, 500, 1000, 2000]
    /// Paper margin, title band and footer band, millimetres.
    static let margin = 12.0, header = 12.0, footer = 14.0
    /// World space kept around the walls for dimension lines, metres.
    static let dimensionBand = 1.4

    /// The plan of `layered`, or nil with the reason when the input is not a room (no wall to draw:
    /// a single object, a teapot, a scan without walls).
    public static func build(_ layered: LayeredScene, options: PlanOptions = PlanOptions()) -> (plan: FloorPlan?, note: String?) {
        var g = PlanGeometry(layered)
        HomePlanWalls.redraw(&g, thickness: options.wallThickness)
        guard g.isRoom else {
            return (nil, layered.elements.isEmpty ? "no room elements: the input is not a room scan"
                : "no walls: a plan is drawn only for scans with walls")
        }
        let vocabulary = PlanVocabulary(locale: options.locale)
        let format = MeasureFormatter(units: options.units)
        let outlines = Dictionary(uniqueKeysWithValues: g.stories.map { ($0, RoomPartition.outlines(g, story: $0)) })
        let rooms = layered.rooms.isEmpty
            ? RoomPartition.rooms(g, outlines: outlines, sections: layered.sections, vocabulary: vocabulary)
            : RoomPartition.rooms(g, structure: layered.rooms, vocabulary: vocabulary)
        var sheets: [PlanSheet] = []
        let rotation = sheetRotation(g)
        for story in g.stories where !g.walls(story: story).isEmpty {
            var sheet = layout(g, story: story, rotation: rotation)
            let here = rooms.filter { $0.story == story }
            let total = here.reduce(0) { $0 + $1.area }
            sheet.title = vocabulary.title(story: story, storyCount: g.stories.count, totalArea: format.area(total))
            var d = SheetDrawing(
                sheet: sheet, geometry: g, options: options, format: format, vocabulary: vocabulary, outlines: outlines[story] ?? [])
            d.drawFloor(here, outlines: d.outlines)
            d.drawObjects()
            d.drawWalls()
            if g.isHome {
                d.drawHomeDimensions(here)
            } else {
                d.drawDimensions(outline: d.outlines.first?.polygon)
            }
            d.drawRoomLabels(here)
            d.drawFrame()
            d.separateLabels()
            sheets.append(d.sheet)
        }
        var plan = FloorPlan(sheets: sheets, rooms: rooms, options: options)
        plan.openings = OpeningSchedule.rows(g, rooms: rooms)
        if g.isHome {
            plan.sheets += ScheduleSheet.sheets(rooms: rooms, openings: plan.openings, format: format, vocabulary: vocabulary,
                                                stories: sheets.count)
        }
        return (plan, nil)
    }

    /// The turn of every sheet (radians, at most π/4 either way): the walls of all stories
    /// (`WallOrientation`) run square to the paper, with up on the paper the wall direction nearest
    /// the world's −Z, as in the rendered top-down view.
    static func sheetRotation(_ g: PlanGeometry) -> Double {
        let angle = WallOrientation.dominantAngle(g.walls.map { w in (atan2(w.direction.y, w.direction.x), w.length) })
        let up = WallOrientation.up(angle: angle)
        // The turn that takes `up` to the paper's up, (0, −1).
        let r = -Double.pi / 2 - atan2(up.y, up.x)
        return abs(r) < 1e-9 ? 0 : r
    }

    /// Paper, scale and origin for one story: the walls, floors and objects with room for the
    /// dimension lines, centred in the drawable area at the largest scale that fits, the world
    /// turned by `rotation`.
    static func layout(_ g: PlanGeometry, story: Int, rotation: Double = 0) -> PlanSheet {
        var pts = g.walls(story: story).flatMap { [$0.a, $0.b] } + g.floors(story: story).flatMap { $0 }
        pts += g.objects(story: story).flatMap(\.corners)
        pts = pts.map { PlanSheet.turn($0, by: rotation) }
        var lo = pts.first ?? .zero, hi = lo
        for p in pts { lo = pointwiseMin(lo, p); hi = pointwiseMax(hi, p) }
        lo -= SIMD2(repeating: dimensionBand)
        hi += SIMD2(repeating: dimensionBand)
        let size = hi - lo
        let landscape = size.x >= size.y
        var paper = landscape ? SIMD2(297.0, 210.0) : SIMD2(210.0, 297.0)
        func drawable(_ p: SIMD2<Double>) -> SIMD2<Double> { SIMD2(p.x - 2 * margin, p.y - 2 * margin - header - footer) }
        var scale = scales.last!
        if let s = scales.first(where: { s in
            let a = drawable(paper)
            return size.x * 1000 / s <= a.x && size.y * 1000 / s <= a.y
        }) {
            scale = s
        } else {
            // Larger than 1:2000 on A4: enlarge the paper to fit at 1:2000.
            paper = pointwiseMax(paper, size * 1000 / scale + SIMD2(2 * margin, 2 * margin + header + footer))
        }
        let area = drawable(paper)
        let drawn = size * 1000 / scale
        let topLeft = SIMD2(margin + (area.x - drawn.x) / 2, margin + header + (area.y - drawn.y) / 2)
        let origin = topLeft - lo * (1000 / scale)
        var sheet = PlanSheet(story: story, width: paper.x, height: paper.y, scale: scale, origin: origin, items: [], title: "")
        sheet.rotation = rotation
        sheet.contentMin = pointwiseMax(topLeft - SIMD2(4, header), SIMD2(0, 0))
        sheet.contentMax = pointwiseMin(topLeft + drawn + SIMD2(4, footer), paper)
        return sheet
    }
}
