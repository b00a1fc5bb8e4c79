import SceneModel

/// The CAD layer an item of the plan belongs to (the DXF layers; SVG groups by the same names).
public enum PlanLayer: String, Sendable, CaseIterable {
    case floor = "FLOOR"
    case walls = "WALLS"
    case doors = "DOORS"
    case windows = "WINDOWS"
    case openings = "OPENINGS"
    case furniture = "FURNITURE"
    case dimensions = "DIMENSIONS"
    case text = "TEXT"

    /// Drawing order: floor, furniture under the walls, openings on the walls, then annotation.
    public static let drawOrder: [PlanLayer] = [.floor, .furniture, .walls, .doors, .windows, .openings, .dimensions, .text]
}

/// What a text says, for the backends that keep meaning (the SVG's classes and data attributes).
public enum PlanTextRole: Sendable, Equatable {
    /// A dimension and the length it states, metres (unrounded).
    case dimension(metres: Double)
    case roomName
    /// A room's area, square metres (unrounded).
    case roomArea(squareMetres: Double)
    /// A room's width and depth along the paper's axes, metres (unrounded).
    case roomSize(width: Double, depth: Double)
    case objectName
    case title
    case note
    /// A cell of a schedule table (`ScheduleSheet`).
    case schedule
}

/// What a sheet shows: a story's drawing, or the schedules of a home (rooms, doors and windows).
public enum PlanSheetKind: String, Sendable {
    /// A story drawn at its scale.
    case drawing
    /// A page of tables (`ScheduleSheet`), not in the DXF.
    case schedule
}

/// One drawn thing, in paper millimetres (origin at the sheet's top-left corner, y down; angles
/// in radians, clockwise on the page as y points down).
public enum PlanItem: Sendable, Equatable {
    /// A closed polygon, filled and/or outlined (`strokeWidth` 0: no outline).
    case polygon([SIMD2<Double>], fill: UInt32?, stroke: UInt32?, strokeWidth: Double, layer: PlanLayer)
    case line(SIMD2<Double>, SIMD2<Double>, width: Double, colour: UInt32, layer: PlanLayer)
    /// A circular arc from `start` to `end` (radians; the shorter way is not implied: it runs
    /// from `start` increasing to `end`).
    case arc(centre: SIMD2<Double>, radius: Double, start: Double, end: Double, width: Double, colour: UInt32, layer: PlanLayer)
    /// Text centred on `at` (horizontally and vertically), rotated by `angle`; `size` is the
    /// font size in millimetres.
    case text(String, at: SIMD2<Double>, size: Double, angle: Double, colour: UInt32, bold: Bool, role: PlanTextRole, layer: PlanLayer)

    public var layer: PlanLayer {
        switch self {
        case .polygon(_, _, _, _, let l), .line(_, _, _, _, let l), .arc(_, _, _, _, _, _, let l), .text(_, _, _, _, _, _, _, let l): return l
        }
    }
}

/// One story's sheet: paper size, drawing scale and items in drawing order.
public struct PlanSheet: Sendable, Equatable {
    public var story: Int
    /// Paper size in millimetres (A4, landscape or portrait, or larger for big plans).
    public var width: Double
    public var height: Double
    /// The drawing is at 1 : `scale` (paper millimetres × scale / 1000 = metres).
    public var scale: Double
    /// Where world point (x, z) = (0, 0) lands on the paper (mm), so that
    /// paper = origin + R(rotation) (x, z) × 1000 / scale.
    public var origin: SIMD2<Double>
    public var items: [PlanItem]
    public var title: String
    /// The paper rectangle (mm) of the drawing with its dimension lines, title above and scale
    /// bar below: what a raster of the sheet shows.
    public var contentMin: SIMD2<Double> = .zero
    public var contentMax: SIMD2<Double> = .zero
    /// How far the world is turned on the paper (radians, clockwise on the page as y points down;
    /// at most π/4 either way): a world direction at angle φ (`atan2(z, x)`) is drawn at φ + `rotation`.
    /// The sheet is turned so that most wall length runs square to the paper
    /// (`WallOrientation`); 0 when the walls already do.
    public var rotation: Double = 0
    /// A story's drawing, or a page of schedules (no world coordinates: `origin` and `scale` unused).
    public var kind: PlanSheetKind = .drawing

    /// The items in drawing order (by `PlanLayer.drawOrder`, then as added).
    public var orderedItems: [PlanItem] {
        PlanLayer.drawOrder.flatMap { layer in items.filter { $0.layer == layer } }
    }

    /// The paper point of a world point (x, z), metres.
    public func paper(_ world: SIMD2<Double>) -> SIMD2<Double> { origin + paperVector(world) * (1000 / scale) }

    /// The world point (x, z) of a paper point.
    public func world(_ paper: SIMD2<Double>) -> SIMD2<Double> { worldVector((paper - origin) * (scale / 1000)) }

    /// A world vector (x, z) turned onto the paper (same length, not scaled).
    public func paperVector(_ v: SIMD2<Double>) -> SIMD2<Double> { Self.turn(v, by: rotation) }

    /// A paper vector turned back into the world's (x, z) (same length, not scaled).
    public func worldVector(_ v: SIMD2<Double>) -> SIMD2<Double> { Self.turn(v, by: -rotation) }

    /// `v` turned by `angle` radians (clockwise on the page as y points down).
    static func turn(_ v: SIMD2<Double>, by angle: Double) -> SIMD2<Double> {
        guard angle != 0 else { return v }
        let c = cosine(angle), s = sine(angle)
        return SIMD2(c * v.x - s * v.y, s * v.x + c * v.y)
    }
}

/// The floor plan of a room: one sheet per story, the rooms measured on it, and the options it
/// was drawn with.
public struct FloorPlan: Sendable {
    public var sheets: [PlanSheet]
    public var rooms: [RoomFigures]
    /// The door and window schedule (`OpeningSchedule`).
    public var openings: [OpeningFigures] = []
    public var options: PlanOptions

    public init(sheets: [PlanSheet], rooms: [RoomFigures], options: PlanOptions) {
        self.sheets = sheets
        self.rooms = rooms
        self.options = options
    }
}
