/// A room organised for the apps: the scene's node tree arranged as layer nodes, each holding one
/// node per element, plus the semantics of every element (RoomPlan identity, category, confidence,
/// dimensions, …), the sections, metrics and quality grade. Produced by `Layering`; read by the
/// GLB writer, the thumbnailer and the manifest builder. Units are metres, +Y up.
///
/// Node layout contract (every producer must follow it, every consumer may rely on it):
/// - `layers[i].node` is a root node of `scene` (parent nil) named `NodeName.layer(id)`, identity
///   transform;
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
    /// The rooms of a multi-room structure (RoomPlan `CapturedStructure`, or several rooms merged),
    /// in input order; empty for a single room.
    public var rooms: [StructureRoom] = []
    /// How many JSON elements were joined to a USD element (by UUID, or by transform and
    /// dimensions); 0 without a JSON or without a USD scene.
    public var linkedElements: Int = 0
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
