import SceneModel
import Testing

/// The node names the writer gives: what three.js's `GLTFLoader` shows unchanged, short enough for
/// Blender, unique, and the same for the same scene.
@Suite struct NodeNameTests {
    /// three.js's `PropertyBinding.sanitizeNodeName` as `GLTFLoader` applies it to node names:
    /// white space becomes `_`, `[ ] . : /` are removed.
    static func threeJSSanitized(_ name: String) -> String {
        var out = ""
        for c in name.unicodeScalars {
            if c.properties.isWhitespace { out += "_" } else if !"[].:/".unicodeScalars.contains(c) { out.unicodeScalars.append(c) }
        }
        return out
    }

    static let awkward = [
        "walls", "objects.chair", "group.Furniture", "usd:/World/Furniture/Sofa_1", "Mesh 1\tA\n",
        "[0]", "a.b:c/d", "Stuhl ä", "😀", "", ".", String(repeating: "x", count: 100),
        "6D6C1F0E-5C8B-4E0B-9C3E-7A1F2B3C4D5E",
    ]

    @Test func layerNamesAreLayerAndTheIdWithUnderscores() {
        #expect(NodeName.layer(.walls) == "layer_walls")
        #expect(NodeName.layer(LayerID("objects.chair")) == "layer_objects_chair")
        #expect(NodeName.layer(.group("Furniture")) == "layer_group_Furniture")
        #expect(NodeName.room("living.1") == "room_living_1")
    }

    @Test func aRoomPlanUUIDIsKeptAndAPathLosesNothingButItsPunctuation() {
        #expect(NodeName.element("6D6C1F0E-5C8B-4E0B-9C3E-7A1F2B3C4D5E") == "6D6C1F0E-5C8B-4E0B-9C3E-7A1F2B3C4D5E")
        #expect(NodeName.element("usd:/World/Furniture/Sofa_1") == "usd__World_Furniture_Sofa_1")
        #expect(NodeName.element("Stuhl ä") == "Stuhl__")
        #expect(NodeName.element("") == "node")
    }

    /// A path longer than 63 characters keeps its start and its end, where the prim's own name is.
    @Test func aLongPathKeepsItsStartAndItsEnd() {
        let path = "usd:/bathroom_1/Geom/bathroom_1/Geom/bathroom/Geom/bathroom/Geom/bathroom/Mesh_grp/Walls_grp/Wall0"
        let name = NodeName.element(path)
        #expect(name == "usd__bathroom_1_Geom_oom_Geom_bathroom_Mesh_grp_Walls_grp_Wall0")
        #expect(name.count == 63 && name != NodeName.element(path.replacingOccurrences(of: "Wall0", with: "Wall1")))
    }

    @Test func everyNameIsOneThreeJSAndBlenderKeep() {
        for raw in Self.awkward {
            for name in [NodeName.element(raw), NodeName.layer(LayerID(raw)), NodeName.room(raw)] {
                #expect(NodeName.isLoaderSafe(name), "\(name)")
                #expect(Self.threeJSSanitized(name) == name, "three.js would show \(name) otherwise")
                #expect(name.utf8.count <= 63, "Blender keeps 63 bytes of \(name)")
            }
        }
        #expect(!NodeName.isLoaderSafe("layer:walls") && !NodeName.isLoaderSafe("") && !NodeName.isLoaderSafe("a b"))
    }

    @Test func aNameAlreadyGivenTakesTheFirstFreeSuffix() {
        var claims = NodeName.Claims()
        #expect(["a", "a", "a-2", "a.b", "a:b", "a"].map { claims.claim($0) } == ["a", "a-2", "a-2-2", "a_b", "a_b-2", "a-3"])
        let long = String(repeating: "y", count: 80)
        let first = claims.claim(long), second = claims.claim(long)
        #expect(first.count == 63 && second.count == 63 && second.hasSuffix("-2") && first != second)
    }

    /// Layers first, then elements, then the other nodes: a helper named like a layer node gives
    /// way, and the names of layers and elements do not depend on the helpers.
    @Test func layersAndElementsClaimTheirNamesFirst() {
        var scene = Scene()
        let walls = scene.addNode(Node(name: "anything"))
        let wall = scene.addNode(Node(name: "W", parent: walls))
        let helper = scene.addNode(Node(name: "layer_walls", parent: wall))
        let twin = scene.addNode(Node(name: "W.1", parent: walls))
        let unnamed = scene.addNode(Node(name: "", parent: wall))
        let layered = LayeredScene(
            scene: scene, layers: [RoomLayer(id: .walls, kind: .walls, node: walls, elements: [0, 1])],
            elements: [RoomElement(identifier: "W", category: .wall, layer: .walls, geometry: .usd, node: wall),
                       RoomElement(identifier: "W:1", category: .wall, layer: .walls, geometry: .usd, node: twin)])
        let names = layered.nodeNames(others: [helper, unnamed])
        #expect(names == [walls: "layer_walls", wall: "W", twin: "W_1", helper: "layer_walls-2"])
        let alone = layered.nodeNames()
        #expect(alone == [walls: "layer_walls", wall: "W", twin: "W_1"])
        #expect(layered.nodeNames(others: [helper, unnamed]) == names, "the same scene gets the same names")
    }
}
