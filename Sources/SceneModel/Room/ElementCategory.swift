/// What an element of a room is: a RoomPlan surface (`wall`, `door`, `window`, `opening`,
/// `floor`), one of RoomPlan's object categories (`chair`, `washerDryer`, …), `unclassified`, or
/// any other category a producer names. The raw value is the spelling written to the manifest and
/// the GLB extras.
public struct ElementCategory: RoomVocabularyName {
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    public static let wall = ElementCategory("wall")
    public static let door = ElementCategory("door")
    public static let window = ElementCategory("window")
    public static let opening = ElementCategory("opening")
    public static let floor = ElementCategory("floor")
    public static let unclassified = ElementCategory("unclassified")

    /// RoomPlan's surfaces, in the order RoomPlan lists them.
    public static let surfaces: [ElementCategory] = [.wall, .door, .window, .opening, .floor]

    /// RoomPlan's 16 object categories (CapturedRoom.Object.Category), as they appear in the JSON.
    public static let objects: [ElementCategory] = [
        "bathtub", "bed", "chair", "dishwasher", "fireplace", "oven", "refrigerator", "sink", "sofa", "stairs",
        "storage", "stove", "table", "television", "toilet", "washerDryer",
    ].map { ElementCategory($0) }

    /// True for `wall`, `door`, `window`, `opening` and `floor`.
    public var isSurface: Bool { ElementCategory.surfaces.contains(self) }

    /// The layer that elements of this category belong to: `walls`, `doors`, `windows`,
    /// `openings`, `floors`, `unclassified` (also for an empty category) or `objects.<category>`.
    public var layer: LayerID {
        switch self {
        case .wall: return .walls
        case .door: return .doors
        case .window: return .windows
        case .opening: return .openings
        case .floor: return .floors
        case .unclassified, ElementCategory(""): return .unclassified
        default: return .objects(self)
        }
    }
}
