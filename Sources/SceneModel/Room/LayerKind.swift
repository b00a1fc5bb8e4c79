/// The kind of a layer, which fixes its place in the layer order and how viewers treat it.
public struct LayerKind: RoomVocabularyName {
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    public static let walls = LayerKind("walls")
    public static let doors = LayerKind("doors")
    public static let windows = LayerKind("windows")
    public static let openings = LayerKind("openings")
    public static let floors = LayerKind("floors")
    /// `objects.<category>` layers, one per RoomPlan object category.
    public static let objects = LayerKind("objects")
    /// `group.<name>` layers: the top-level groups of USD that is not a RoomPlan export.
    public static let group = LayerKind("group")
    public static let unclassified = LayerKind("unclassified")

    /// Layer kinds in display order.
    public static let canonicalOrder: [LayerKind] = [
        .walls, .doors, .windows, .openings, .floors, .objects, .group, .unclassified,
    ]

    /// The kind's position in `canonicalOrder` (kinds outside it sort last).
    public var displayRank: Int { LayerKind.canonicalOrder.firstIndex(of: self) ?? LayerKind.canonicalOrder.count }
}
