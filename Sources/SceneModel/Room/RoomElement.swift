/// One element of the room (a wall, a door, a chair, a floor, or an unclassified USD group).
public struct RoomElement: Hashable, Sendable {
    /// RoomPlan identifier (uppercase UUID) when known; otherwise a stable id derived from the
    /// source prim path.
    public var identifier: String
    /// `wall`, `door`, `window`, `opening`, `floor`, an object category (`chair`, …), or
    /// `unclassified`.
    public var category: ElementCategory
    /// Id of the layer the element belongs to.
    public var layer: LayerID
    /// `high`, `medium`, `low` or `unknown`; nil when the input has no confidence.
    public var confidence: String?
    /// Width, height, depth in metres (RoomPlan `dimensions`; surfaces have depth 0); nil if unknown.
    public var dimensions: SIMD3<Double>?
    /// World transform (metres, +Y up); RoomPlan's column-major element transform when known.
    public var transform: Matrix4
    /// Host wall of a door/window/opening, or the object this object belongs to (a chair's table).
    public var parentIdentifier: String?
    /// RoomPlan story index, when present.
    public var story: Int?
    /// RoomPlan object attributes (e.g. `ChairType: swivel`), sorted by key when serialised.
    public var attributes: [String: String]
    /// Doors only: whether RoomPlan saw the door open.
    public var isOpen: Bool?
    /// Path of the USD prim the element came from, when it came from USD.
    public var sourcePrimPath: String?
    public var geometry: GeometrySource
    /// The element's node in `LayeredScene.scene` (child of its layer's node).
    public var node: NodeIndex
    /// Floors: polygon corners in the element's local XY plane (metres), as in the JSON.
    public var polygonCorners: [SIMD3<Double>]
    /// The name of the structure room the element belongs to (`StructureRoom.name`, `Bedroom 2`);
    /// nil for a single room and for an element of no room.
    public var room: String? = nil
    /// For a wall of a home scanned from both sides, the identifiers of the walls of the rooms
    /// beside it that are the same wall seen from there (`SharedWall`), sorted; empty otherwise.
    public var sharedWith: [String] = []

    public init(
        identifier: String, category: ElementCategory, layer: LayerID, confidence: String? = nil,
        dimensions: SIMD3<Double>? = nil, transform: Matrix4 = .identity, parentIdentifier: String? = nil,
        story: Int? = nil, attributes: [String: String] = [:], isOpen: Bool? = nil, sourcePrimPath: String? = nil,
        geometry: GeometrySource, node: NodeIndex, polygonCorners: [SIMD3<Double>] = []
    ) {
        self.identifier = identifier
        self.category = category
        self.layer = layer
        self.confidence = confidence
        self.dimensions = dimensions
        self.transform = transform
        self.parentIdentifier = parentIdentifier
        self.story = story
        self.attributes = attributes
        self.isOpen = isOpen
        self.sourcePrimPath = sourcePrimPath
        self.geometry = geometry
        self.node = node
        self.polygonCorners = polygonCorners
    }
}
