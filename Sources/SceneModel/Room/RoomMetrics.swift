/// Room measurements (metres, square metres).
public struct RoomMetrics: Hashable, Sendable {
    /// Floor area from the floor polygons, or from the wall footprint when there is no floor.
    public var floorArea: Double?
    /// `floor` or `walls`: what the area and perimeter were computed from.
    public var floorAreaSource: String?
    public var perimeter: Double?
    public var wallCount: Int
    /// Sum of wall widths.
    public var wallLength: Double
    /// Median wall height.
    public var ceilingHeight: Double?
    /// Elements per layer id.
    public var countsPerLayer: [LayerID: Int]
    /// Elements per story (key: story index; elements without a story count under -1).
    public var countsPerStory: [Int: Int]
    /// The walls of a home two rooms scanned from both sides (`SharedWallFinder`); `wallCount` and
    /// `wallLength` count each once. Empty for a single room.
    public var sharedWalls: [SharedWall] = []
    /// Per story, the height the rooms' floors of a home were levelled to. Empty for a single room.
    public var floorLevels: [FloorLevel] = []

    public init(
        floorArea: Double? = nil, floorAreaSource: String? = nil, perimeter: Double? = nil, wallCount: Int = 0,
        wallLength: Double = 0, ceilingHeight: Double? = nil, countsPerLayer: [LayerID: Int] = [:],
        countsPerStory: [Int: Int] = [:]
    ) {
        self.floorArea = floorArea
        self.floorAreaSource = floorAreaSource
        self.perimeter = perimeter
        self.wallCount = wallCount
        self.wallLength = wallLength
        self.ceilingHeight = ceilingHeight
        self.countsPerLayer = countsPerLayer
        self.countsPerStory = countsPerStory
    }
}

/// The level a story's room floors were brought to: RoomPlan scans each room from the phone's
/// own height, so the floors of one home land a few centimetres apart.
public struct FloorLevel: Hashable, Sendable {
    public var story: Int
    /// The story's floor height (world Y, metres): the median of its room floors' heights.
    public var height: Double
    /// How many room floors were moved, and the largest move (metres).
    public var moved: Int
    public var largestChange: Double
    /// Floors further than this from the level are left where they are (a real step), metres.
    public static let maxChange = 0.15

    public init(story: Int, height: Double, moved: Int, largestChange: Double) {
        self.story = story
        self.height = height
        self.moved = moved
        self.largestChange = largestChange
    }
}
