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
