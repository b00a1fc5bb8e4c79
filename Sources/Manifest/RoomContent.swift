import SceneModel
import JSONCore

/// The room part of the manifest, built from a `LayeredScene`: `layers`, `elements`, `sections`,
/// `stories`, `metrics`, `quality` and `source`. Checks the scene's indices and values on the way.
struct RoomContent {
    var layers: JSONValue = .array([])
    var elements: JSONValue = .array([])
    var sections: JSONValue = .array([])
    var stories: JSONValue = .array([])
    var metrics: JSONValue = .null
    var quality: JSONValue = .null
    var source: JSONValue = .null
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
        var layerIds = Set<LayerID>()
        for (i, l) in layered.layers.enumerated() where !layerIds.insert(l.id).inserted {
            throw ManifestError.duplicate(field: "layers[\(i)].id", value: l.id.rawValue)
        }
        layers = .array(try layered.layers.enumerated().map { try layer($1, field: "layers[\($0)]") })
        elements = .array(try elementOrder().map { try element(layered.elements[$0], field: "elements[\($0)]") })
        sections = .array(try layered.sections.enumerated().map { i, s in
            .object([
                "label": .string(try FieldChecks.nonEmpty(s.label, field: "sections[\(i)].label")),
                "center": try FieldChecks.vector(s.center, field: "sections[\(i)].center"),
                "story": .int(s.story),
            ])
        })
        let storySet = Set(layered.elements.compactMap(\.story) + layered.sections.compactMap(\.story))
        stories = .array(storySet.sorted().map { .int($0) })
        metrics = try metricsObject(layered.metrics)
        quality = try qualityObject(layered.quality)
        let meta = layered.scene.metadata
        source = .object([
            "format": .string(meta.sourceFormat.isEmpty ? nil : meta.sourceFormat),
            "is_roomplan": .bool(layered.isRoomPlan),
            "reference_origin_transform": try layered.referenceOriginTransform.map {
                try FieldChecks.matrix($0, field: "source.reference_origin_transform")
            } ?? .null,
        ])
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

    private mutating func layer(_ layer: RoomLayer, field: String) throws -> JSONValue {
        let node = try checkedNode(layer.node, field: "\(field).node")
        let summary = geometry.summary(of: layer.node)
        return .object([
            "id": .string(try FieldChecks.layerId(layer.id, field: "\(field).id")),
            "kind": .string(try FieldChecks.oneOf(layer.kind.rawValue, Self.layerKinds, field: "\(field).kind")),
            "category": .string(layer.category?.rawValue),
            "node": try glbIndex(node, label: "layer \(layer.id)", field: "\(field).node"),
            "node_name": .string(nodeNames[node]),
            "element_count": .int(layer.elements.count),
            "triangles": .int(summary.triangles),
            "bounds": ManifestNumbers.bounds(summary.bounds),
            "default_visible": .bool(layer.defaultVisible),
            "palette": .string(layerPalette[layer.id].map { CategoryPalette.hex($0 & 0xFF_FFFF) }),
        ])
    }

    private mutating func element(_ e: RoomElement, field: String) throws -> JSONValue {
        let node = try checkedNode(e.node, field: "\(field).node")
        guard layered.layers.contains(where: { $0.id == e.layer }) else {
            throw ManifestError.invalidValue(field: "\(field).layer", value: e.layer.rawValue, expected: "the id of a layer")
        }
        var dimensions = JSONValue.null
        if let d = e.dimensions { dimensions = try FieldChecks.vector(d, field: "\(field).dimensions") }
        var attributes: [String: JSONValue] = [:]
        for (key, value) in e.attributes {
            attributes[try FieldChecks.nonEmpty(key, field: "\(field).attributes")] = .string(value)
        }
        let corners = try e.polygonCorners.enumerated().map { i, c in
            try FieldChecks.vector(c, field: "\(field).polygon_corners[\(i)]")
        }
        return .object([
            "identifier": .string(try FieldChecks.identifier(e.identifier, field: "\(field).identifier")),
            "category": .string(try FieldChecks.nonEmpty(e.category.rawValue, field: "\(field).category")),
            "layer": .string(e.layer.rawValue),
            "confidence": try FieldChecks.oneOf(e.confidence, Self.confidences, field: "\(field).confidence"),
            "dimensions": dimensions,
            "transform": try FieldChecks.matrix(e.transform, field: "\(field).transform"),
            "parent": .string(try e.parentIdentifier.map { try FieldChecks.identifier($0, field: "\(field).parent") }),
            "story": .int(e.story),
            "attributes": .object(attributes),
            "is_open": .bool(e.isOpen),
            "source_prim_path": .string(e.sourcePrimPath),
            "geometry": .string(e.geometry.rawValue),
            "polygon_corners": .array(corners),
            "node": try glbIndex(node, label: "element \(e.identifier)", field: "\(field).node"),
            "node_name": .string(nodeNames[node]),
            "bounds": ManifestNumbers.bounds(geometry.summary(of: node).bounds),
        ])
    }

    private func metricsObject(_ m: RoomMetrics) throws -> JSONValue {
        var perLayer: [String: JSONValue] = [:]
        for (id, n) in m.countsPerLayer {
            let key = try FieldChecks.layerId(id, field: "metrics.counts_per_layer")
            perLayer[key] = try FieldChecks.count(n, field: "metrics.counts_per_layer.\(id)")
        }
        var perStory: [String: JSONValue] = [:]
        for (story, n) in m.countsPerStory {
            perStory[String(story)] = try FieldChecks.count(n, field: "metrics.counts_per_story.\(story)")
        }
        return .object([
            "floor_area": ManifestNumbers.measure(m.floorArea),
            "floor_area_source": try FieldChecks.oneOf(
                m.floorAreaSource, Self.floorAreaSources, field: "metrics.floor_area_source"),
            "perimeter": ManifestNumbers.measure(m.perimeter),
            "wall_count": try FieldChecks.count(m.wallCount, field: "metrics.wall_count"),
            "wall_length": ManifestNumbers.measure(m.wallLength),
            "ceiling_height": ManifestNumbers.measure(m.ceilingHeight),
            "counts_per_layer": .object(perLayer),
            "counts_per_story": .object(perStory),
            "shared_walls": try HomeContent.sharedWalls(m.sharedWalls),
            "floor_levels": try HomeContent.floorLevels(m.floorLevels),
        ])
    }

    /// The grade object; `field` names it in errors (`quality`, `quality.rooms[2]`). A home's
    /// grade also lists its rooms' (`rooms`, empty for a single room; a room's object has `room`
    /// instead).
    private func qualityObject(_ q: QualityGrade, field: String = "quality", room: String? = nil) throws -> JSONValue {
        let share = ManifestNumbers.measure(q.highConfidenceWallShare)
        if case .double(let s) = share, !(0...1).contains(s) {
            throw ManifestError.invalidValue(
                field: "\(field).high_confidence_wall_share", value: String(s), expected: "a share in 0…1")
        }
        var out: [String: JSONValue] = [
            "grade": try FieldChecks.oneOf(q.grade, Self.grades, field: "\(field).grade"),
            "high_confidence_wall_share": share,
            "wall_confidence_grade": try FieldChecks.oneOf(
                q.wallConfidenceGrade, Self.grades, field: "\(field).wall_confidence_grade"),
            "furniture_count": try FieldChecks.count(q.furnitureCount, field: "\(field).furniture_count"),
            "furniture_grade": try FieldChecks.oneOf(q.furnitureGrade, Self.grades, field: "\(field).furniture_grade"),
            "walls_closed": .bool(q.wallsClosed),
            "closure_grade": try FieldChecks.oneOf(q.closureGrade, Self.grades, field: "\(field).closure_grade"),
            "notes": .array(q.notes.map { .string($0) }),
        ]
        if let room {
            out["room"] = .string(try FieldChecks.nonEmpty(room, field: "\(field).room"))
        } else {
            out["rooms"] = .array(try q.rooms.enumerated().map { i, r in
                try qualityObject(r.quality, field: "\(field).rooms[\(i)]", room: r.room)
            })
        }
        return .object(out)
    }

    private func checkedNode(_ node: NodeIndex, field: String) throws -> NodeIndex {
        guard node.rawValue >= 0, node.rawValue < layered.scene.nodes.count else {
            throw ManifestError.indexOutOfRange(field: field, index: node.rawValue, count: layered.scene.nodes.count)
        }
        return node
    }

    /// The glTF node index of `node`, or `null` (remembered for the warning) when the GLB writer
    /// reported none.
    private mutating func glbIndex(_ node: NodeIndex, label: String, field: String) throws -> JSONValue {
        guard let i = glbNodeIndex[node] else {
            unmappedNodes.append(label)
            return .null
        }
        return try FieldChecks.count(i, field: field)
    }
}
