/// The app's scan quality grade: A, B or C, with the inputs of each rule.
public struct QualityGrade: Hashable, Sendable {
    /// `A`, `B` or `C`; nil when the input is not a room (no walls and no JSON).
    public var grade: String?
    /// Share of walls with high confidence (0…1) and its grade.
    public var highConfidenceWallShare: Double?
    public var wallConfidenceGrade: String?
    /// Number of furniture objects and its grade.
    public var furnitureCount: Int
    public var furnitureGrade: String?
    /// Whether the walls form a closed loop within the tolerance, and its grade (`A` or `C`).
    public var wallsClosed: Bool?
    public var closureGrade: String?
    /// Human-readable reasons, in rule order.
    public var notes: [String]
    /// For a home of several rooms, each room's own grade (the rules applied to the room's
    /// elements alone); the home's `grade` is then the worst of them. Empty for a single room.
    public var rooms: [RoomGrade] = []

    public init(
        grade: String? = nil, highConfidenceWallShare: Double? = nil, wallConfidenceGrade: String? = nil,
        furnitureCount: Int = 0, furnitureGrade: String? = nil, wallsClosed: Bool? = nil, closureGrade: String? = nil,
        notes: [String] = []
    ) {
        self.grade = grade
        self.highConfidenceWallShare = highConfidenceWallShare
        self.wallConfidenceGrade = wallConfidenceGrade
        self.furnitureCount = furnitureCount
        self.furnitureGrade = furnitureGrade
        self.wallsClosed = wallsClosed
        self.closureGrade = closureGrade
        self.notes = notes
    }
}

/// One room's grade within a home.
public struct RoomGrade: Hashable, Sendable {
    /// The room's name (`StructureRoom.name`).
    public var room: String
    public var quality: QualityGrade

    public init(room: String, quality: QualityGrade) { (self.room, self.quality) = (room, quality) }
}
