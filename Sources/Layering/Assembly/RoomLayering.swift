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
            throw LayeringError(code: .emptyInput, message: "neither a USD scene nor CapturedRoom JSON was given")
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
            throw LayeringError(code: .emptyInput, message: "neither a USD scene nor CapturedRoom JSON was given")
        }
        var warnings: [SceneWarning] = []
        let json = try validatedJSONElements(room, options: options, warnings: &warnings)

        // USD elements.
        let index = try scene.map { try SourceSceneIndex($0, maxNodes: options.maxSceneNodes) }
        let collected = index.map { collectUSDElements($0, json: json, hasJSON: room != nil, options: options) }
        let usd = collected?.elements ?? []
        warnings += collected?.warnings ?? []
        guard json.count + usd.count <= options.maxElements else {
            throw LayeringError.limit(
                "\(json.count + usd.count) elements; the limit is \(options.maxElements) (maxElements)", at: nil)
        }

        try checkPairing(json: json, usd: usd)
        let link = ElementLinker(json: json, usd: usd, options: options)
        if link.linkedByTransform > 0 {
            warnings.append(SceneWarning(
                code: LayeringWarningCode.linkedByTransform,
                message: "\(link.linkedByTransform) USD elements without UUID linked to JSON elements by transform and dimensions"))
        }

        // Plan the elements: JSON first (file order), then USD-only ones (scene order).
        var synthesizer = GeometrySynthesizer(options: options)
        var plan = ElementPlan()
        plan.addJSONElements(json, usd: usd, link: link, hasUSD: index != nil, synthesizer: &synthesizer)
        plan.addUSDOnlyElements(usd, link: link, hasJSON: room != nil)
        plan.makeIdentifiersUnique()
        let curves = plan.curves()
        plan.linkHosts(usd: usd, link: link)
        let floorMeasures = index.map { plan.floorMeasures(index: $0, usd: usd) } ?? [:]
        plan.reportFindings()
        warnings += plan.warnings
        warnings += synthesizer.warnings
        let planned = plan.planned

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
        let sections = room.map(Self.sections(of:)) ?? collected?.sections ?? []

        var layered = LayeredScene(
            scene: scene, layers: assembled.layers, elements: elements, sections: sections,
            metrics: measured.metrics, quality: quality, isRoomPlan: room != nil || collected?.identityFound == true,
            referenceOriginTransform: room?.referenceOriginTransform.map { Matrix4(columnMajorFloats: $0) },
            warnings: warnings)
        layered.rooms = structureRooms
        layered.linkedElements = link.usdForJSON.reduce(0) { $0 + ($1 == nil ? 0 : 1) }
        return layered
    }

    /// The JSON elements, with an identifier each (`json:<path>` when it has none) and usable
    /// frames (a singular transform keeps only its translation, with a warning).
    /// - Throws: `ROOMPLAN_LIMIT_EXCEEDED` past `maxElements` or `maxPolygonCorners`.
    private static func validatedJSONElements(
        _ room: CapturedRoom?, options: LayeringOptions, warnings: inout [SceneWarning]
    ) throws -> [JSONElement] {
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
                warnings.append(SceneWarning(
                    code: LayeringWarningCode.jsonValueIgnored,
                    message: "\(json[j].jsonPath).transform is singular; only its translation is used"))
            }
        }
        return json
    }

    /// The USD scene's elements: RoomPlan ones (by identity or names, or whenever a JSON was
    /// given), else one per group of a generic scene; with the USD's sections and findings.
    private static func collectUSDElements(
        _ index: SourceSceneIndex, json: [JSONElement], hasJSON: Bool, options: LayeringOptions
    ) -> (elements: [USDElement], identityFound: Bool, sections: [RoomSection], warnings: [SceneWarning]) {
        var frames: [String: Matrix4] = [:]
        for e in json where frames[e.identifier.uppercased()] == nil { frames[e.identifier.uppercased()] = e.transform }
        var collector = USDElementCollector(index: index, options: options, jsonFrames: frames)
        let look = USDElementCollector.looksLikeRoomPlan(index)
        if !hasJSON && !look.identity && !look.names {
            collector.collectGeneric()
        } else {
            collector.collectRoomPlan()
        }
        return (collector.elements, collector.identityFound, collector.sections(), collector.warnings)
    }

    /// The room's sections as annotations (centres widened to Double).
    private static func sections(of room: CapturedRoom) -> [RoomSection] {
        room.sections.map {
            RoomSection(label: $0.label, center: SIMD3(Double($0.center.x), Double($0.center.y), Double($0.center.z)),
                        story: $0.story)
        }
    }

    /// Refuses a USD whose element UUIDs are none of the JSON's: the two files are of different
    /// rooms (an export paired with another scan's JSON), and linking would silently keep neither.
    static func checkPairing(json: [JSONElement], usd: [USDElement]) throws {
        let uuids = Set(usd.compactMap { $0.uuid?.uppercased() })
        guard !uuids.isEmpty, !json.isEmpty else { return }
        guard json.contains(where: { uuids.contains($0.identifier.uppercased()) }) else {
            throw LayeringError(
                code: .inputsMismatched,
                message: "none of the USD's \(uuids.count) element UUIDs is among the JSON's \(json.count) elements: "
                    + "the two files are of different rooms")
        }
    }
}
