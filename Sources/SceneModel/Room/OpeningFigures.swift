/// One row of a plan's door and window schedule: a door, window or opening as built, measured
/// from RoomPlan's element (metres). A door both rooms of a home scanned is one row with both
/// identifiers.
public struct OpeningFigures: Hashable, Sendable {
    /// `door`, `window` or `opening`.
    public var kind: String
    /// The element's identifier, then those of the same opening scanned from the other room.
    public var identifiers: [String]
    public var story: Int
    /// RoomPlan's width and height of the element.
    public var width: Double
    public var height: Double?
    /// Height of its bottom edge above the floor of its story (the window's sill); nil when the
    /// story has no floor.
    public var sillHeight: Double?
    /// The rooms it belongs to (plan names), two for a door between rooms.
    public var rooms: [String]
    /// The identifiers of the walls it is in (RoomPlan's host, else the wall it lies on).
    public var walls: [String]

    public init(kind: String, identifiers: [String], story: Int, width: Double, height: Double?, sillHeight: Double?,
                rooms: [String], walls: [String]) {
        self.kind = kind
        self.identifiers = identifiers
        self.story = story
        self.width = width
        self.height = height
        self.sillHeight = sillHeight
        self.rooms = rooms
        self.walls = walls
    }
}
