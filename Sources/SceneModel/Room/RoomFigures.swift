/// The measured figures of one room of a floor plan: a RoomPlan section, or the whole floor of a
/// story when the scan has no sections. Areas in square metres, lengths in metres, unrounded.
public struct RoomFigures: Hashable, Sendable {
    /// RoomPlan's section label (`livingRoom`, `bedroom`, …), or `room` for a scan without sections.
    public var label: String
    /// The label in the plan's language (`Living room`, `客厅`, …).
    public var name: String
    public var story: Int
    /// Area of the room's polygon (openings and wall thickness not subtracted).
    public var area: Double
    /// Length of the polygon's boundary.
    public var perimeter: Double
    /// The section's centre in world space; nil for a room without a section.
    public var center: SIMD3<Double>?
    /// Which polygon the figures measure: `floor` (RoomPlan's floor polygon), `walls` (the outline
    /// of the story's walls, when it has no floor polygon); `…+split` when a floor shared by several
    /// sections was divided between them; `room` for a room of a multi-room structure (its own
    /// RoomPlan floor).
    public var polygonSource: String
    /// Identifiers of the elements in the room: objects whose centre lies inside the polygon, and
    /// walls, doors, windows and openings whose centre lies within 0.15 m of it; for a room of a
    /// structure, the elements the structure assigns to it.
    public var elements: [String]
    /// The polygon's corners in world XZ (metres), counter-clockwise seen from above.
    public var polygon: [SIMD2<Double>]
    /// RoomPlan's width (metres) of each of the room's walls, by identifier.
    public var wallLengths: [String: Double] = [:]

    public init(
        label: String, name: String, story: Int, area: Double, perimeter: Double, center: SIMD3<Double>?,
        polygonSource: String, elements: [String], polygon: [SIMD2<Double>]
    ) {
        self.label = label
        self.name = name
        self.story = story
        self.area = area
        self.perimeter = perimeter
        self.center = center
        self.polygonSource = polygonSource
        self.elements = elements
        self.polygon = polygon
    }
}
