import SceneModel

/// The room part of the manifest, checked and derived from a `LayeredScene`: `layers`, `elements`,
/// `sections`, `stories`, `metrics`, `quality` and `source`. Checks the scene's indices and values
/// on the way (`ManifestError`, naming each value by its place in the layered scene).
struct RoomContent {
    var layers: [ManifestDocument.Layer] = []
    var elements: [ManifestDocument.Element] = []
    var stories: [Int] = []
    var source: ManifestDocument.Source
    /// Layers and elements whose node has no glTF node index, as `layer walls` / `element <id>`.
    private(set) var unmappedNodes: [String] = []

    private let layered: LayeredScene
    private let geometry: SubtreeGeometry
    private let glbNodeIndex: [NodeIndex: Int]
    private let layerPalette: [LayerID: UInt32]
    /// The name each layer and element node has in the GLB (`NodeName`), as the writer gives it.
    private let nodeNames: [NodeIndex: String]

    /// The accepted values of the closed vocabularies.
    static let layerKinds = LayerKind.canonicalOrder.map(\.rawValue)
    static let confidences = ["high", "medium", "low", "unknown"]
    static let grades = ["A", "B", "C"]
    static let floorAreaSources = ["floor", "walls"]

    init(
        layered: LayeredScene, geometry: SubtreeGeometry, glbNodeIndex: [NodeIndex: Int],
        layerPalette: [LayerID: UInt32] = [:]
    ) throws {
        self.layered = layered
        self.layerPalette = layerPalette
        self.geometry = geometry
        self.glbNodeIndex = glbNodeIndex
        self.nodeNames = layered.nodeNames()
        source = ManifestDocument.Source(format: nil, isRoomPlan: layered.isRoomPlan, referenceOriginTransform: nil)
        var layerIds = Set<LayerID>()
        for (i, l) in layered.layers.enumerated() where !layerIds.insert(l.id).inserted {
            throw ManifestError.duplicate(field: "layers[\(i)].id", value: l.id.rawValue)
        }
        layers = try layered.layers.enumerated().map { try layer($1, field: "layers[\($0)]") }
        elements = try elementOrder().map { try element(layered.elements[$0], field: "elements[\($0)]") }
        for (i, s) in layered.sections.enumerated() {
            _ = try FieldChecks.nonEmpty(s.label, field: "sections[\(i)].label")
            _ = try FieldChecks.vector(s.center, field: "sections[\(i)].center")
        }
        let storySet = Set(layered.elements.compactMap(\.story) + layered.sections.compactMap(\.story))
        stories = storySet.sorted()
        try Self.checkMetrics(layered.metrics)
        try Self.checkQuality(layered.quality)
        let meta = layered.scene.metadata
        source.format = meta.sourceFormat.isEmpty ? nil : meta.sourceFormat
        source.referenceOriginTransform = try layered.referenceOriginTransform.map {
            try FieldChecks.matrix($0, field: "source.reference_origin_transform")
        }
    }

    /// Elements in layer order, then in each layer's order; elements no layer lists follow in
    /// array order. Each element appears once.
    private func elementOrder() throws -> [Int] {
        var seen = Set<Int>()
        var order: [Int] = []
        for (li, layer) in layered.layers.enumerated() {
            for (k, e) in layer.elements.enumerated() {
                guard e >= 0, e < layered.elements.count else {
                    throw ManifestError.indexOutOfRange(
                        field: "layers[\(li)].elements[\(k)]", index: e, count: layered.elements.count)
                }
                if seen.insert(e).inserted { order.append(e) }
            }
        }
        for e in layered.elements.indices where !seen.contains(e) { order.append(e) }
        var identifiers = Set<String>()
        for e in order where !identifiers.insert(layered.elements[e].identifier).inserted {
            throw ManifestError.duplicate(field: "elements[\(e)].identifier", value: layered.elements[e].identifier)
        }
        return order
    }

    private mutating func layer(_ layer: RoomLayer, field: String) throws -> ManifestDocument.Layer {
        let node = try checkedNode(layer.node, field: "\(field).node")
        let summary = geometry.summary(of: layer.node)
        _ = try FieldChecks.layerId(layer.id, field: "\(field).id")
        _ = try FieldChecks.oneOf(layer.kind.rawValue, Self.layerKinds, field: "\(field).kind")
        return ManifestDocument.Layer(
            layer: layer, node: try glbIndex(node, label: "layer \(layer.id)", field: "\(field).node"),
            nodeName: nodeNames[node], triangles: summary.triangles, bounds: summary.bounds,
            palette: layerPalette[layer.id].map { CategoryPalette.hex($0 & 0xFF_FFFF) })
    }

    private mutating func element(_ e: RoomElement, field: String) throws -> ManifestDocument.Element {
        let node = try checkedNode(e.node, field: "\(field).node")
        guard layered.layers.contains(where: { $0.id == e.layer }) else {
            throw ManifestError.invalidValue(field: "\(field).layer", value: e.layer.rawValue, expected: "the id of a layer")
        }
        if let d = e.dimensions { _ = try FieldChecks.vector(d, field: "\(field).dimensions") }
        for key in e.attributes.keys { _ = try FieldChecks.nonEmpty(key, field: "\(field).attributes") }
        for (i, c) in e.polygonCorners.enumerated() { _ = try FieldChecks.vector(c, field: "\(field).polygon_corners[\(i)]") }
        _ = try FieldChecks.identifier(e.identifier, field: "\(field).identifier")
        _ = try FieldChecks.nonEmpty(e.category.rawValue, field: "\(field).category")
        _ = try FieldChecks.oneOfIfPresent(e.confidence, Self.confidences, field: "\(field).confidence")
        _ = try FieldChecks.matrix(e.transform, field: "\(field).transform")
        if let parent = e.parentIdentifier { _ = try FieldChecks.identifier(parent, field: "\(field).parent") }
        return ManifestDocument.Element(
            element: e, node: try glbIndex(node, label: "element \(e.identifier)", field: "\(field).node"),
            nodeName: nodeNames[node], bounds: geometry.summary(of: node).bounds)
    }

    private static func checkMetrics(_ m: RoomMetrics) throws {
        for (id, n) in m.countsPerLayer {
            _ = try FieldChecks.layerId(id, field: "metrics.counts_per_layer")
            _ = try FieldChecks.count(n, field: "metrics.counts_per_layer.\(id)")
        }
        for (story, n) in m.countsPerStory { _ = try FieldChecks.count(n, field: "metrics.counts_per_story.\(story)") }
        _ = try FieldChecks.oneOfIfPresent(m.floorAreaSource, Self.floorAreaSources, field: "metrics.floor_area_source")
        _ = try FieldChecks.count(m.wallCount, field: "metrics.wall_count")
        try HomeContent.check(sharedWalls: m.sharedWalls)
        try HomeContent.check(floorLevels: m.floorLevels)
    }

    /// Checks a grade; `field` names it in errors (`quality`, `quality.rooms[2]`). A room's grade
    /// (`room` set) has no rooms of its own.
    private static func checkQuality(_ q: QualityGrade, field: String = "quality", room: String? = nil) throws {
        if let s = ManifestDocument.written(q.highConfidenceWallShare), !(0...1).contains(s) {
            throw ManifestError.invalidValue(
                field: "\(field).high_confidence_wall_share", value: String(s), expected: "a share in 0…1")
        }
        _ = try FieldChecks.oneOfIfPresent(q.grade, Self.grades, field: "\(field).grade")
        _ = try FieldChecks.oneOfIfPresent(q.wallConfidenceGrade, Self.grades, field: "\(field).wall_confidence_grade")
        _ = try FieldChecks.count(q.furnitureCount, field: "\(field).furniture_count")
        _ = try FieldChecks.oneOfIfPresent(q.furnitureGrade, Self.grades, field: "\(field).furniture_grade")
        _ = try FieldChecks.oneOfIfPresent(q.closureGrade, Self.grades, field: "\(field).closure_grade")
        if let room {
            _ = try FieldChecks.nonEmpty(room, field: "\(field).room")
        } else {
            for (i, r) in q.rooms.enumerated() {
                try checkQuality(r.quality, field: "\(field).rooms[\(i)]", room: r.room)
            }
        }
    }

    private func checkedNode(_ node: NodeIndex, field: String) throws -> NodeIndex {
        guard node.rawValue >= 0, node.rawValue < layered.scene.nodes.count else {
            throw ManifestError.indexOutOfRange(field: field, index: node.rawValue, count: layered.scene.nodes.count)
        }
        return node
    }

    /// The glTF node index of `node`, or nil (remembered for the warning) when the GLB writer
    /// reported none.
    private mutating func glbIndex(_ node: NodeIndex, label: String, field: String) throws -> Int? {
        guard let i = glbNodeIndex[node] else {
            unmappedNodes.append(label)
            return nil
        }
        return try FieldChecks.count(i, field: field)
    }
}
