import SceneModel

/// Turns a RoomPlan scan — the USD scene read from the `.usdz`, the `CapturedRoom` JSON, or both —
/// into a `LayeredScene`: layer nodes holding one node per element, the elements' semantics,
/// sections, metrics and the quality grade. Pure: values in, values out; findings are returned in
/// `LayeredScene.warnings`.
///
/// **Layers.** `walls`, `doors`, `windows`, `openings`, `floors`, `objects.<category>` (one per
/// RoomPlan object category present), `unclassified` (USD geometry without RoomPlan identity), and
/// `group.<name>` for non-RoomPlan USD (below). Only layers with elements are created. Sections are
/// `RoomSection` annotations, never geometry; geometry-less prims (e.g. `Section_grp` helpers) never
/// become elements.
///
/// **Identity and linking.** A USD element is identified by the `UUID`/`Category` in the root
/// `customData` of its element layer (read per referenced layer from `Node.referencedCustomData`,
/// because several element layers are referenced onto one `Wall_<i>_grp`), mapped to its geometry
/// child (see `USDElementCollector`); exports without customData (SceneKit re-exports) are
/// recognised by RoomPlan group and prim names (`Walls_grp/Wall0`, `Object_grp/Storage_grp/Storage0`).
/// JSON elements link to USD elements by UUID (case-insensitive); USD elements without UUID link
/// by transform and dimensions within `LayeringOptions` tolerances (plan 0.10 m, vertical 0.30 m,
/// 10°, dimensions 0.05 m + 40 %, walls 0.16 m wider). Unmatched elements are reported with counts
/// in both directions (`ROOMPLAN_JSON_ELEMENT_UNMATCHED`, `ROOMPLAN_USD_ELEMENT_UNMATCHED`).
/// A linked element takes its semantics (identifier, category, confidence, dimensions, transform,
/// parent, story, attributes, door state, polygon) from the JSON and its geometry from the USD
/// (`GeometrySource.usd`). A JSON element without a USD element gets synthesized geometry
/// (`GeometrySource.synthesized`; thicknesses: walls 0.16 m toward local −Z, doors and windows
/// 0.08 m and openings 0.02 m centred on the wall plane, floors a 0.0001 m prism below the floor
/// polygon, objects the `dimensions` box; see `GeometrySynthesizer`). A USD element without a JSON
/// element keeps its USD identity: identifier = UUID, or `usd:<prim path>` when it has none.
///
/// **Coordinates.** RoomPlan world space is kept: metres, +Y up, right-handed. Element transforms
/// are the JSON's column-major matrices exactly (Float32 widened to Double); USD element
/// transforms are the gprim's world matrix without its scale (a parametric `Cube`'s
/// `xformOp:scale`), which RoomPlan writes bit-identical to the JSON. USD geometry keeps its world
/// placement: below the element node its transform is `inverse(elementWorld) × geometryWorld`.
///
/// **`referenceOriginTransform`** is only reported in `LayeredScene.referenceOriginTransform`; it
/// is not applied to anything. Reason: the USD and the JSON agree in RoomPlan world space (their
/// matrices are bit-identical), sections' centres and every consumer (manifest, editor, app) use
/// that space, and the reference origin is an optional extra (absent from some exports) that a
/// consumer can apply itself when it wants to align several scans. Applying it in some files but
/// not others would move rooms depending on the iOS version.
///
/// **Non-RoomPlan USD** (no JSON, no customData identity, no RoomPlan group names): each child of
/// the default prim (or of the only root; or each root when there are several and no default
/// prim) that draws geometry becomes layer `group.<child name>`, with one element per child of it
/// that draws geometry (the child itself when it has none; its own mesh, if any, as one more
/// element); a mesh on the default prim itself becomes layer `group.<default prim name>`. Such
/// elements have category `unclassified`, identifier `usd:<prim path>`, and their node's world
/// transform. No quality grade is given.
///
/// **Structures** (`CapturedStructure`, several rooms): the model is the top-level (merged)
/// lists; each element names its room and `LayeredScene.rooms` holds the rooms measured from their
/// own floors; see `StructureRooms`. The rooms' floors are levelled within each story and the walls
/// two rooms scanned from both sides are found and counted once (`HomeWalls`).
///
/// **Metrics and grade**: see `RoomMeasurements` and `QualityGrader`.
public enum RoomLayering {
    /// Joins the USD scene (nil when only JSON was uploaded) with the CapturedRoom JSON bytes (nil
    /// when only USD) into a `LayeredScene` following the node layout contract.
    ///
    /// - Throws: `LayeringError` — `ROOMPLAN_EMPTY_INPUT` when both are nil; the decoder's
    ///   `ROOMPLAN_JSON_INVALID`, `ROOMPLAN_JSON_TOO_LARGE`, `ROOMPLAN_LIMIT_EXCEEDED`; and
    ///   `ROOMPLAN_LIMIT_EXCEEDED` when the scene exceeds `maxSceneNodes` or the elements
    ///   `maxElements`.
    public static func layer(scene: Scene?, capturedRoomJSON: [UInt8]?, options: LayeringOptions = .init()) throws
        -> LayeredScene
    {
        guard scene != nil || capturedRoomJSON != nil else {
            throw LayeringError(code: LayeringError.emptyInput, message: "neither a USD scene nor CapturedRoom JSON was given")
        }
        var room: CapturedRoom?
        var warnings: [SceneWarning] = []
        if let bytes = capturedRoomJSON {
            let decoded = try CapturedRoomDecoder.decode(bytes, limits: options.json)
            room = decoded.0
            warnings = decoded.warnings
        }
        var out = try layer(scene: scene, capturedRoom: room, options: options)
        out.warnings.insert(contentsOf: warnings, at: 0)
        return out
    }

    /// As `layer(scene:capturedRoomJSON:options:)` with an already decoded room.
    public static func layer(scene: Scene?, capturedRoom room: CapturedRoom?, options: LayeringOptions = .init()) throws
        -> LayeredScene
    {
        guard scene != nil || room != nil else {
            throw LayeringError(code: LayeringError.emptyInput, message: "neither a USD scene nor CapturedRoom JSON was given")
        }
        var warnings: [SceneWarning] = []
        func warn(_ code: String, _ message: String) { warnings.append(SceneWarning(code: code, message: message)) }

        // JSON elements, with unique identifiers and usable frames.
        var json = room.map(JSONElement.all) ?? []
        guard json.count <= options.maxElements else {
            throw LayeringError.limit("\(json.count) JSON elements; the limit is \(options.maxElements) (maxElements)", at: nil)
        }
        for j in json.indices {
            guard json[j].polygonCorners.count <= options.json.maxPolygonCorners else {
                throw LayeringError.limit(
                    "\(json[j].polygonCorners.count) polygon corners; the limit is \(options.json.maxPolygonCorners) "
                        + "(maxPolygonCorners)", at: json[j].jsonPath + ".polygonCorners")
            }
            if json[j].identifier.isEmpty { json[j].identifier = "json:" + json[j].jsonPath }
            let t = json[j].transform
            if t.sanitizedFrame != t {
                json[j].transform = t.sanitizedFrame
                warn(LayeringWarningCode.jsonValueIgnored, "\(json[j].jsonPath).transform is singular; only its translation is used")
            }
        }

        // USD elements.
        let index = try scene.map { try SourceSceneIndex($0, maxNodes: options.maxSceneNodes) }
        var usd: [USDElement] = []
        var identityFound = false
        var usdSections: [RoomSection] = []
        if let index {
            var frames: [String: Matrix4] = [:]
            for e in json where frames[e.identifier.uppercased()] == nil { frames[e.identifier.uppercased()] = e.transform }
            var collector = USDElementCollector(index: index, options: options, jsonFrames: frames)
            let look = USDElementCollector.looksLikeRoomPlan(index)
            if room == nil && !look.identity && !look.names {
                collector.collectGeneric()
            } else {
                collector.collectRoomPlan()
            }
            usd = collector.elements
            identityFound = collector.identityFound
            usdSections = collector.sections()
            warnings += collector.warnings
        }
        guard json.count + usd.count <= options.maxElements else {
            throw LayeringError.limit(
                "\(json.count + usd.count) elements; the limit is \(options.maxElements) (maxElements)", at: nil)
        }

        try checkPairing(json: json, usd: usd)
        let link = ElementLinker(json: json, usd: usd, options: options)
        if link.linkedByTransform > 0 {
            warn(LayeringWarningCode.linkedByTransform,
                 "\(link.linkedByTransform) USD elements without UUID linked to JSON elements by transform and dimensions")
        }

        // Plan the elements: JSON first (file order), then USD-only ones (scene order).
        var planned: [PlannedElement] = []
        var synthesizer = GeometrySynthesizer(options: options)
        var curveOfPlanned: [Int: CapturedRoom.Curve] = [:]
        var usdFloorRoots: [Int: Int] = [:]  // planned index → USD element index (floors measured from USD)
        var identifierOfUSD = [String?](repeating: nil, count: usd.count)
        var unmatchedJSON: [String] = []
        var synthesizedCount = 0
        for (j, e) in json.enumerated() {
            var el = RoomElement(
                identifier: e.identifier, category: e.category, layer: e.category.layer,
                confidence: e.confidence, dimensions: e.dimensions, transform: e.transform,
                parentIdentifier: e.parentIdentifier, story: e.story, attributes: e.attributes,
                isOpen: e.category == .door ? e.isOpen : nil, geometry: .synthesized, node: NodeIndex(-1),
                polygonCorners: e.polygonCorners)
            if let u = link.usdForJSON[j] {
                let ue = usd[u]
                if let c = ue.category, c != e.category {
                    warn(LayeringWarningCode.categoryMismatch,
                         "\(e.jsonPath) is a \(e.category) but its USD element \(ue.sourcePath) is a \(c); the JSON wins")
                }
                el.sourcePrimPath = ue.sourcePath
                el.geometry = .usd
                if e.polygonCorners.count < 3, e.category == .floor { usdFloorRoots[planned.count] = u }
                planned.append(PlannedElement(element: el, geometry: .usd(root: ue.root, includeDescendants: ue.includeDescendants)))
            } else {
                if index != nil { unmatchedJSON.append(e.identifier) }
                synthesizedCount += 1
                let mesh = synthesizer.mesh(for: e)
                planned.append(PlannedElement(element: el, geometry: .synthesized(mesh, materialCategory: e.category)))
            }
            if let c = e.curve { curveOfPlanned[planned.count - 1] = c }
        }
        var unmatchedUSD: [String] = []
        var unclassified = 0
        var usdPlanned: [(planned: Int, usd: Int)] = []
        for (u, ue) in usd.enumerated() where link.jsonForUSD[u] == nil {
            let category = ue.category ?? .unclassified
            var dims = ue.dimensions
            if category.isSurface { dims.z = 0 }
            let el = RoomElement(
                identifier: ue.uuid ?? "usd:" + ue.sourcePath, category: category,
                layer: ue.layerOverride ?? category.layer, dimensions: dims, transform: ue.frame,
                isOpen: category == .door ? ue.isOpen : nil, sourcePrimPath: ue.sourcePath, geometry: .usd,
                node: NodeIndex(-1))
            if ue.category == nil {
                if ue.layerOverride == nil { unclassified += 1 }
            } else if room != nil {
                unmatchedUSD.append(el.identifier)
            }
            if category == .floor { usdFloorRoots[planned.count] = u }
            usdPlanned.append((planned.count, u))
            planned.append(PlannedElement(element: el, geometry: .usd(root: ue.root, includeDescendants: ue.includeDescendants)))
        }

        // Unique identifiers (a repeated UUID gets `#2`, `#3`, …).
        var seen: [String: Int] = [:]
        for i in planned.indices {
            let id = planned[i].element.identifier
            if let n = seen[id] {
                var k = n + 1
                while seen["\(id)#\(k)"] != nil { k += 1 }
                seen[id] = k
                planned[i].element.identifier = "\(id)#\(k)"
                seen[planned[i].element.identifier] = 1
                warn(LayeringWarningCode.duplicateIdentifier, "identifier \(id) is used more than once; renamed \(id)#\(k)")
            } else {
                seen[id] = 1
            }
        }
        var curves: [String: CapturedRoom.Curve] = [:]
        for (p, c) in curveOfPlanned { curves[planned[p].element.identifier] = c }
        for (j, u) in link.usdForJSON.enumerated() { if let u { identifierOfUSD[u] = planned[j].element.identifier } }
        for (p, u) in usdPlanned { identifierOfUSD[u] = planned[p].element.identifier }
        for (p, u) in usdPlanned {
            if let h = usd[u].hostElement { planned[p].element.parentIdentifier = identifierOfUSD[h] }
        }
        var floorMeasures: [String: (area: Double, perimeter: Double)] = [:]
        if let index {
            for (p, u) in usdFloorRoots {
                if let m = index.horizontalMeasure(of: usd[u].root, includeDescendants: usd[u].includeDescendants) {
                    floorMeasures[planned[p].element.identifier] = m
                }
            }
        }

        // Findings with counts.
        func list(_ ids: [String]) -> String {
            ids.count <= 20 ? ids.joined(separator: ", ") : ids.prefix(20).joined(separator: ", ") + ", …"
        }
        if !unmatchedJSON.isEmpty {
            warn(LayeringWarningCode.jsonElementUnmatched,
                 "\(unmatchedJSON.count) JSON elements have no USD element: \(list(unmatchedJSON))")
        }
        if !unmatchedUSD.isEmpty {
            warn(LayeringWarningCode.usdElementUnmatched,
                 "\(unmatchedUSD.count) USD elements have no JSON element: \(list(unmatchedUSD))")
        }
        if synthesizedCount > 0 {
            warn(LayeringWarningCode.geometrySynthesized, "\(synthesizedCount) elements have geometry built from the JSON")
        }
        if unclassified > 0 {
            warn(LayeringWarningCode.unclassifiedGeometry,
                 "\(unclassified) USD meshes have no RoomPlan identity; they are in the unclassified layer")
        }
        warnings += synthesizer.warnings

        let metadata = scene?.metadata
            ?? SceneMetadata(sourceUpAxis: .y, sourceMetersPerUnit: 1, defaultPrim: nil, sourceFormat: "roomplan-json")
        let assembled = LayeredSceneAssembler.assemble(
            planned, source: index, metadata: metadata, sceneWarnings: scene?.warnings ?? [])
        var elements = assembled.elements
        var scene = assembled.scene
        let structureRooms = StructureRooms.apply(room, to: &elements, warnings: &warnings)
        let levels = HomeWalls.levelFloors(&elements, scene: &scene)
        var measured = RoomMeasurements.metrics(
            elements: elements, curves: curves, usdFloorMeasures: floorMeasures, options: options)
        measured.metrics.floorLevels = levels
        HomeWalls.joinWalls(&elements, rooms: structureRooms, curves: curves, metrics: &measured.metrics, scene: &scene)
        let quality = QualityGrader.home(
            QualityGrader.grade(elements: elements, wallsClosed: measured.wallsClosed, hasJSON: room != nil),
            elements: elements, rooms: structureRooms, curves: curves, options: options)
        let sections = room.map { r in
            r.sections.map {
                RoomSection(label: $0.label, center: SIMD3(Double($0.center.x), Double($0.center.y), Double($0.center.z)),
                            story: $0.story)
            }
        } ?? usdSections

        var layered = LayeredScene(
            scene: scene, layers: assembled.layers, elements: elements, sections: sections,
            metrics: measured.metrics, quality: quality, isRoomPlan: room != nil || identityFound,
            referenceOriginTransform: room?.referenceOriginTransform.map { Matrix4(columnMajorFloats: $0) },
            warnings: warnings)
        layered.rooms = structureRooms
        layered.linkedElements = link.usdForJSON.reduce(0) { $0 + ($1 == nil ? 0 : 1) }
        return layered
    }

    /// Refuses a USD whose element UUIDs are none of the JSON's: the two files are of different
    /// rooms (an export paired with another scan's JSON), and linking would silently keep neither.
    static func checkPairing(json: [JSONElement], usd: [USDElement]) throws {
        let uuids = Set(usd.compactMap { $0.uuid?.uppercased() })
        guard !uuids.isEmpty, !json.isEmpty else { return }
        guard json.contains(where: { uuids.contains($0.identifier.uppercased()) }) else {
            throw LayeringError(
                code: LayeringError.inputsMismatched,
                message: "none of the USD's \(uuids.count) element UUIDs is among the JSON's \(json.count) elements: "
                    + "the two files are of different rooms")
        }
    }
}
