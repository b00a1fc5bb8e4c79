import Testing
import Manifest
import SceneModel

/// What the manifest says about the sample room: order, identity, node indices, geometry figures.
@Suite struct ManifestContentTests {
    let document: JSONDocument
    let input: ManifestInput

    init() throws {
        input = SampleRoom.input()
        document = try ManifestTestSupport.buildValidated(input).document
    }

    func vector(_ v: JSONDocument?) -> [Double] { v?.arrayValue?.compactMap(\.numberValue) ?? [] }

    func element(_ identifier: String) -> JSONDocument? {
        document["elements"]?.arrayValue?.first { $0["identifier"]?.stringValue == identifier }
    }

    @Test func elementsFollowLayerOrderThenElementOrder() {
        let ids = document["elements"]?.arrayValue?.compactMap { $0["identifier"]?.stringValue }
        #expect(ids == [SampleRoom.wallBack, SampleRoom.wallLeft, SampleRoom.wallRight, SampleRoom.door, SampleRoom.floor,
                        SampleRoom.chairA, SampleRoom.chairB, SampleRoom.table])
        let layers = document["layers"]?.arrayValue?.compactMap { $0["id"]?.stringValue }
        #expect(layers == ["walls", "doors", "floors", "objects.chair", "objects.table"])
    }

    @Test func nodeIndicesComeFromTheGLBWriterMap() throws {
        for (i, layer) in input.layered.layers.enumerated() {
            #expect(document["layers"]?[i]?["node"] == .number(Double(input.glbNodeIndex[layer.node]!)))
            #expect(document["layers"]?[i]?["node_name"] == .string(NodeName.layer(layer.id)))
        }
        for e in input.layered.elements {
            #expect(element(e.identifier)?["node"] == .number(Double(input.glbNodeIndex[e.node]!)))
            #expect(element(e.identifier)?["node_name"] == .string(e.identifier))
        }
        // The map is depth-first, not scene order: the first wall's node is glTF node 1.
        #expect(element(SampleRoom.wallBack)?["node"] == .number(1))
    }

    @Test func parentsAndRoomPlanFieldsPassThrough() {
        #expect(element(SampleRoom.door)?["parent"] == .string(SampleRoom.wallBack))
        #expect(element(SampleRoom.door)?["is_open"] == .bool(true))
        #expect(element(SampleRoom.door)?["geometry"] == .string("synthesized"))
        #expect(element(SampleRoom.door)?["source_prim_path"] == .null)
        #expect(element(SampleRoom.chairA)?["parent"] == .string(SampleRoom.table))
        #expect(element(SampleRoom.chairB)?["parent"] == .string(SampleRoom.table))
        #expect(element(SampleRoom.table)?["parent"] == .null)
        #expect(element(SampleRoom.wallBack)?["is_open"] == .null)
        #expect(element(SampleRoom.chairA)?["attributes"]?.objectValue?.map(\.key) == ["ChairArmType", "ChairType"])
        #expect(element(SampleRoom.wallRight)?["confidence"] == .string("medium"))
        let corners = element(SampleRoom.floor)?["polygon_corners"]?.arrayValue?.map(vector)
        #expect(corners == [[-2, -1.5, 0], [2, -1.5, 0], [2, 1.5, 0], [-2, 1.5, 0]])
        #expect(vector(element(SampleRoom.wallLeft)?["transform"]) == [0, 0, -1, 0, 0, 1, 0, 0, 1, 0, 0, 0, -2, 1.25, 0, 1])
        #expect(vector(element(SampleRoom.table)?["dimensions"]) == [1.2, 0.75, 0.8])
    }

    @Test func elementBoundsAreWorldSpaceBoxesOfTheirMeshes() {
        let left = element(SampleRoom.wallLeft)?["bounds"]
        #expect(vector(left?["min"]) == [-2, 0, -1.5])
        #expect(vector(left?["max"]) == [-2, 2.5, 1.5])
        let floor = element(SampleRoom.floor)?["bounds"]
        #expect(vector(floor?["min"]) == [-2, 0, -1.5])
        #expect(vector(floor?["max"]) == [2, 0, 1.5])
        let chair = element(SampleRoom.chairA)?["bounds"]
        #expect(vector(chair?["min"]) == [-0.65, 0, 0.65])
        #expect(vector(chair?["max"]) == [-0.15, 0.9, 1.15])
    }

    @Test func layerTrianglesCountEveryInstanceOfASharedMesh() {
        let triangles = document["layers"]?.arrayValue?.compactMap { $0["triangles"]?.numberValue }
        #expect(triangles == [6, 2, 2, 24, 12])
        let counts = document["layers"]?.arrayValue?.compactMap { $0["element_count"]?.numberValue }
        #expect(counts == [3, 1, 1, 2, 1])
        #expect(Int(triangles?.reduce(0, +) ?? 0) == input.layered.scene.instancedTriangleCount)
    }

    @Test func sceneBoundsEqualBoundsOfScene() {
        let b = Bounds.of(scene: input.layered.scene)
        #expect(vector(document["bounds"]?["min"]) == [b.min.x, b.min.y, b.min.z])
        #expect(vector(document["bounds"]?["max"]) == [b.max.x, b.max.y, b.max.z])
        #expect(vector(document["bounds"]?["min"]) == [-2, 0, -1.5])
    }

    @Test func headerSectionsAreFilledFromTheInput() {
        #expect(document["generator"]?["name"] == .string("crowdroom-transcode-worker"))
        #expect(document["units"]?["output"] == .string("metres, +Y up"))
        #expect(document["units"]?["source_up_axis"] == .string("Y"))
        #expect(document["inputs"]?.arrayValue?.compactMap { $0["role"]?.stringValue } == ["usd", "roomplan_json"])
        #expect(document["inputs"]?[1]?["sha256"] == .string(SampleRoom.jsonSHA.lowercased()))
        #expect(document["thumbnails"]?.arrayValue?.compactMap { $0["kind"]?.stringValue } == ["hero", "plan"])
        #expect(document["thumbnails"]?[1]?["camera"]?["fov_degrees"] == .null)
        #expect(document["stories"] == .array([.number(0)]))
        #expect(document["metrics"]?["counts_per_story"]?["0"] == .number(8))
        #expect(document["quality"]?["high_confidence_wall_share"] == .number(0.666667))
        #expect(document["source"]?["is_roomplan"] == .bool(true))
        #expect(document["warnings"]?.arrayValue?.count == 2)
    }

    @Test func offlineManifestHasNullIds() throws {
        var input = SampleRoom.input()
        input.versionId = nil
        input.roomId = nil
        let document = try ManifestTestSupport.buildValidated(input).document
        #expect(document["version_id"] == .null)
        #expect(document["room_id"] == .null)
        #expect(document.objectValue?.contains { $0.key == "version_id" } == true)
    }

    @Test func stringsWithQuotesControlCharactersAndUnicodeRoundTrip() throws {
        var input = SampleRoom.input()
        let message = "quote \" backslash \\ newline \n tab \t bell \u{07} NUL \u{00} é ✓ 😀 \u{2028}"
        input.warnings = [SceneWarning(code: "TEST", message: message, primPath: "/Wörld/Ünïcode")]
        input.layered.elements[0].attributes = ["Key \"q\"": "value\nline"]
        let (bytes, document) = try ManifestTestSupport.buildValidated(input)
        #expect(document["warnings"]?[0]?["message"] == .string(message))
        #expect(document["warnings"]?[0]?["prim_path"] == .string("/Wörld/Ünïcode"))
        #expect(element(in: document, SampleRoom.wallBack)?["attributes"]?["Key \"q\""] == .string("value\nline"))
        #expect(!bytes.contains { $0 < 0x20 && $0 != 0x0A })
        #expect(String(decoding: bytes, as: UTF8.self).contains("é ✓ 😀"))
    }

    func element(in document: JSONDocument, _ identifier: String) -> JSONDocument? {
        document["elements"]?.arrayValue?.first { $0["identifier"]?.stringValue == identifier }
    }

    @Test func missingGLBNodesAreNullWithOneWarning() throws {
        var input = SampleRoom.input()
        input.glbNodeIndex = [:]
        let document = try ManifestTestSupport.buildValidated(input).document
        #expect(document["layers"]?.arrayValue?.allSatisfy { $0["node"] == .null } == true)
        #expect(document["elements"]?.arrayValue?.allSatisfy { $0["node"] == .null } == true)
        let warnings = document["warnings"]?.arrayValue ?? []
        #expect(warnings.count == 3)
        #expect(warnings.last?["code"] == .string(ManifestBuilder.unmappedNodeWarningCode))
        #expect(warnings.last?["message"]?.stringValue?.hasPrefix("13 layer/element node(s)") == true)
    }

    @Test func elementWithoutGeometryHasNullBoundsAndStoriesIncludeSections() throws {
        var input = SampleRoom.input()
        var layered = input.layered
        let node = layered.scene.addNode(Node(name: "0D1E2F3A-4B5C-4D6E-8F70-8192A3B4C5D6", parent: layered.layers[0].node))
        layered.elements.append(RoomElement(
            identifier: "0D1E2F3A-4B5C-4D6E-8F70-8192A3B4C5D6", category: ElementCategory("opening"), layer: LayerID("walls"), geometry: .none,
            node: node))
        layered.layers[0].elements.append(layered.elements.count - 1)
        layered.sections.append(RoomSection(label: "bedroom", center: SIMD3(0, 3, 0), story: 1))
        layered.metrics.countsPerStory[-1] = 1
        input.layered = layered
        input.glbNodeIndex[node] = 99
        let document = try ManifestTestSupport.buildValidated(input).document
        let opening = document["elements"]?[3]
        #expect(opening?["identifier"] == .string("0D1E2F3A-4B5C-4D6E-8F70-8192A3B4C5D6"))
        #expect(opening?["bounds"] == .null)
        #expect(opening?["dimensions"] == .null)
        #expect(opening?["story"] == .null)
        #expect(opening?["confidence"] == .null)
        #expect(document["stories"] == .array([.number(0), .number(1)]))
        #expect(document["metrics"]?["counts_per_story"]?.objectValue?.map(\.key) == ["-1", "0"])
    }

    @Test func nonFiniteOptionalMeasuresBecomeNull() throws {
        var input = SampleRoom.input()
        input.layered.metrics.floorArea = .nan
        input.layered.metrics.wallLength = .infinity
        input.layered.quality.highConfidenceWallShare = .nan
        let document = try ManifestTestSupport.buildValidated(input).document
        #expect(document["metrics"]?["floor_area"] == .null)
        #expect(document["metrics"]?["wall_length"] == .null)
        #expect(document["quality"]?["high_confidence_wall_share"] == .null)
    }

    @Test func emptySceneGivesNullBoundsAndEmptyLists() throws {
        let input = ManifestInput(
            layered: LayeredScene(scene: Scene()), generatorVersion: "0.1.0",
            glb: Artifact(path: "model.glb", bytes: 0, sha256: SampleRoom.glbSHA), glbNodeIndex: [:],
            stats: Stats(meshes: 0, triangles: 0, vertices: 0, materials: 0, textures: 0, glbBytes: 0))
        let document = try ManifestTestSupport.buildValidated(input).document
        #expect(document["bounds"] == .null)
        #expect(document["elements"] == .array([]))
        #expect(document["quality"]?["grade"] == .null)
        #expect(document["source"]?["format"] == .null)
        #expect(document["units"]?["source_meters_per_unit"] == .number(0.01))
    }

    @Test func nonRoomPlanInputWithPathDerivedIdentifiers() throws {
        var scene = Scene(metadata: SceneMetadata(sourceUpAxis: .z, sourceMetersPerUnit: 0.01, sourceFormat: "usdc"))
        let mesh = scene.addMesh(SampleRoom.box)
        let layerNode = scene.addNode(Node(name: "layer_group_Furniture"))
        let elementNode = scene.addNode(Node(
            name: "usd:/World/Furniture/Sofa_1", parent: layerNode, localTransform: .translation(1, 0.5, 0), mesh: mesh))
        let layered = LayeredScene(
            scene: scene,
            layers: [RoomLayer(id: LayerID("group.Furniture"), kind: LayerKind("group"), node: layerNode, elements: [0])],
            elements: [RoomElement(
                identifier: "usd:/World/Furniture/Sofa_1", category: ElementCategory("unclassified"), layer: LayerID("group.Furniture"),
                sourcePrimPath: "/World/Furniture/Sofa_1", geometry: .usd, node: elementNode)],
            metrics: RoomMetrics(countsPerLayer: [LayerID("group.Furniture"): 1]))
        let input = ManifestInput(
            layered: layered, generatorVersion: "0.1.0",
            inputs: [InputFile(role: "usd", name: "chair.usdc", format: "usdc", bytes: 512, sha256: SampleRoom.usdSHA)],
            glb: Artifact(path: "model.glb", bytes: 100, sha256: SampleRoom.glbSHA),
            glbNodeIndex: [layerNode: 0, elementNode: 1],
            stats: Stats(meshes: 1, triangles: 12, vertices: 8, materials: 0, textures: 0, glbBytes: 100))
        let document = try ManifestTestSupport.buildValidated(input).document
        #expect(document["elements"]?[0]?["identifier"] == .string("usd:/World/Furniture/Sofa_1"))
        #expect(document["elements"]?[0]?["node_name"] == .string("usd__World_Furniture_Sofa_1"))
        #expect(document["layers"]?[0]?["node_name"] == .string("layer_group_Furniture"))
        #expect(document["source"]?["is_roomplan"] == .bool(false))
        #expect(document["units"]?["source_up_axis"] == .string("Z"))
        #expect(vector(document["elements"]?[0]?["bounds"]?["max"]) == [1.5, 1, 0.5])
    }
}
