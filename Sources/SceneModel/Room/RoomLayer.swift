/// One layer: a named group of elements the editor toggles as a whole.
public struct RoomLayer: Hashable, Sendable {
    /// Layer id: `walls`, `doors`, `windows`, `openings`, `floors`, `objects.<category>` (RoomPlan's
    /// object categories, e.g. `objects.chair`), `unclassified`, or `group.<name>` for top-level
    /// groups of USD that is not a RoomPlan export.
    public var id: LayerID
    /// `walls`, `doors`, `windows`, `openings`, `floors`, `objects`, `unclassified` or `group`.
    public var kind: LayerKind
    /// The object category for `objects.*` layers (`chair`, `table`, …), else nil.
    public var category: ElementCategory?
    /// The layer's root node in `LayeredScene.scene`.
    public var node: NodeIndex
    /// Indices into `LayeredScene.elements`, in order.
    public var elements: [Int]
    /// Whether viewers show the layer initially.
    public var defaultVisible: Bool

    public init(id: LayerID, kind: LayerKind, category: ElementCategory? = nil, node: NodeIndex, elements: [Int] = [],
                defaultVisible: Bool = true) {
        self.id = id
        self.kind = kind
        self.category = category
        self.node = node
        self.elements = elements
        self.defaultVisible = defaultVisible
    }
}
