/// A room organised for the apps: the scene's node tree arranged as layer nodes, each holding one
/// node per element, plus the semantics of every element (RoomPlan identity, category, confidence,
/// dimensions, …), the sections, metrics and quality grade. Produced by `Layering`; read by the
/// GLB writer, the thumbnailer and the manifest builder. Units are metres, +Y up.
///
/// Node layout contract (every producer must follow it, every consumer may rely on it):
/// - `layers[i].node` is a root node of `scene` (parent nil) named `layer:<id>`, identity transform;
/// - `elements[j].node` is a child of its layer's node, named by the element's identifier, whose
///   local transform is the element's world transform (`elements[j].transform`);
/// - the element's geometry hangs below its node (meshes on the element node itself or on
///   descendants, with transforms relative to the element node);
/// - layer and element order is deterministic (layers in `RoomLayer.canonicalOrder`, then by id;
///   elements in their layer by identifier) and `layers[i].elements` lists indices into `elements`.
public struct LayeredScene: Hashable, Sendable {
    public var scene: Scene
    public var layers: [RoomLayer]
    public var elements: [RoomElement]
    /// RoomPlan sections (iOS 17+): labels and centres, not geometry.
    public var sections: [RoomSection]
    public var metrics: RoomMetrics
    public var quality: QualityGrade
    /// True when the input carried RoomPlan identity (a CapturedRoom JSON, or USD element layers
    /// with `customData` Category/UUID).
    public var isRoomPlan: Bool
    /// The JSON's `referenceOriginTransform` (column-major), when present. See `Layering` docs for
    /// what it does to the output.
    public var referenceOriginTransform: Matrix4?
    /// Findings of layering (unmatched elements, synthesized geometry, …) with stable codes.
    public var warnings: [SceneWarning]

    public init(
        scene: Scene, layers: [RoomLayer] = [], elements: [RoomElement] = [], sections: [RoomSection] = [],
        metrics: RoomMetrics = RoomMetrics(), quality: QualityGrade = QualityGrade(), isRoomPlan: Bool = false,
        referenceOriginTransform: Matrix4? = nil, warnings: [SceneWarning] = []
    ) {
        self.scene = scene
        self.layers = layers
        self.elements = elements
        self.sections = sections
        self.metrics = metrics
        self.quality = quality
        self.isRoomPlan = isRoomPlan
        self.referenceOriginTransform = referenceOriginTransform
        self.warnings = warnings
    }
}

/// One layer: a named group of elements the editor toggles as a whole.
public struct RoomLayer: Hashable, Sendable {
    /// Layer id: `walls`, `doors`, `windows`, `openings`, `floors`, `objects.<category>` (RoomPlan's
    /// object categories, e.g. `objects.chair`), `unclassified`, or `group.<name>` for top-level
    /// groups of USD that is not a RoomPlan export.
    public var id: String
    /// `walls`, `doors`, `windows`, `openings`, `floors`, `objects`, `unclassified` or `group`.
    public var kind: String
    /// The object category for `objects.*` layers (`chair`, `table`, …), else nil.
    public var category: String?
    /// The layer's root node in `LayeredScene.scene`.
    public var node: NodeIndex
    /// Indices into `LayeredScene.elements`, in order.
    public var elements: [Int]
    /// Whether viewers show the layer initially.
    public var defaultVisible: Bool

    public init(id: String, kind: String, category: String? = nil, node: NodeIndex, elements: [Int] = [],
                defaultVisible: Bool = true) {
        self.id = id
        self.kind = kind
        self.category = category
        self.node = node
        self.elements = elements
        self.defaultVisible = defaultVisible
    }

    /// Layer kinds in display order; `objects.*` layers sort by category after `floors`.
    public static let canonicalOrder = ["walls", "doors", "windows", "openings", "floors", "objects", "group",
                                        "unclassified"]

    /// RoomPlan's 16 object categories (CapturedRoom.Object.Category), as they appear in the JSON.
    public static let objectCategories = [
        "bathtub", "bed", "chair", "dishwasher", "fireplace", "oven", "refrigerator", "sink", "sofa", "stairs",
        "storage", "stove", "table", "television", "toilet", "washerDryer",
    ]
}

/// Where an element's geometry comes from.
public enum GeometrySource: String, Hashable, Sendable {
    /// Geometry read from the USD file.
    case usd
    /// Geometry built from the CapturedRoom JSON because no USD element matched.
    case synthesized
    /// No geometry (e.g. a JSON element the input cannot place).
    case none
}

/// One element of the room (a wall, a door, a chair, a floor, or an unclassified USD group).
public struct RoomElement: Hashable, Sendable {
    /// RoomPlan identifier (uppercase UUID) when known; otherwise a stable id derived from the
    /// source prim path.
    public var identifier: String
    /// `wall`, `door`, `window`, `opening`, `floor`, an object category (`chair`, …), or
    /// `unclassified`.
    public var category: String
    /// Id of the layer the element belongs to.
    public var layer: String
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

    public init(
        identifier: String, category: String, layer: String, confidence: String? = nil,
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

/// A RoomPlan section (iOS 17+): a labelled point, not geometry.
public struct RoomSection: Hashable, Sendable {
    /// `livingRoom`, `bedroom`, `unidentified`, …
    public var label: String
    /// Centre in world space (metres).
    public var center: SIMD3<Double>
    public var story: Int?

    public init(label: String, center: SIMD3<Double>, story: Int? = nil) {
        self.label = label
        self.center = center
        self.story = story
    }
}

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
    public var countsPerLayer: [String: Int]
    /// Elements per story (key: story index; elements without a story count under -1).
    public var countsPerStory: [Int: Int]

    public init(
        floorArea: Double? = nil, floorAreaSource: String? = nil, perimeter: Double? = nil, wallCount: Int = 0,
        wallLength: Double = 0, ceilingHeight: Double? = nil, countsPerLayer: [String: Int] = [:],
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
