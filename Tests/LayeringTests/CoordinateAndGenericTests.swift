import Foundation
import SceneModel
import Testing

@testable import Layering

@Suite struct CoordinateTests {
    /// `referenceOriginTransform` is reported, not applied: element transforms stay in RoomPlan
    /// world space exactly as the JSON gives them.
    @Test func referenceOriginIsReportedNotApplied() throws {
        var r = TestRoom.outline([SIMD2(0, 0), SIMD2(5, 0), SIMD2(5, 4), SIMD2(0, 4)])
        r.objects = [.init(category: "table", center: SIMD3(2, 0.4, 2), size: SIMD3(1, 0.8, 1))]
        let without = try RoomLayering.layer(scene: nil, capturedRoomJSON: r.json())
        let origin: [Double] = [0, 0, -1, 0, 0, 1, 0, 0, 1, 0, 0, 0, 10, -2, 3, 1]
        r.referenceOrigin = origin
        let with = try RoomLayering.layer(scene: nil, capturedRoomJSON: r.json())
        #expect(without.referenceOriginTransform == nil)
        #expect(with.referenceOriginTransform == Matrix4(columnMajor: origin))
        #expect(with.elements == without.elements)
        #expect(with.scene == without.scene)
        #expect(with.metrics == without.metrics)
        let table = try #require(with.elements.first { $0.category == "table" })
        #expect(table.transform.translation == SIMD3(2, Double(Float(0.4)), 2))
    }

    @Test func noInputIsAnError() {
        #expect(throws: LayeringError(code: .emptyInput, message: "neither a USD scene nor CapturedRoom JSON was given")) {
            try RoomLayering.layer(scene: nil, capturedRoomJSON: nil)
        }
    }

    @Test func elementLimitIsEnforced() throws {
        let r = TestRoom.outline([SIMD2(0, 0), SIMD2(5, 0), SIMD2(5, 4), SIMD2(0, 4)])
        do {
            _ = try RoomLayering.layer(scene: nil, capturedRoomJSON: r.json(), options: LayeringOptions(maxElements: 3))
            Issue.record("no error")
        } catch let e as LayeringError {
            #expect(e.code == .limitExceeded)
        }
    }

    @Test func singularJSONTransformKeepsItsTranslation() throws {
        let text = """
        {"walls": [], "objects": [{"category": {"chair": {}}, "dimensions": [0.5, 1, 0.5], "identifier": "C",
          "transform": [0,0,0,0, 0,0,0,0, 0,0,0,0, 1,2,3,1]}]}
        """
        let l = try RoomLayering.layer(scene: nil, capturedRoomJSON: Array(text.utf8))
        checkLayoutContract(l)
        #expect(l.elements[0].transform == .translation(1, 2, 3))
        #expect(l.warnings.contains { $0.code == LayeringWarningCode.jsonValueIgnored })
    }

    @Test func duplicateAndEmptyIdentifiersStayUnique() throws {
        let chair = """
        {"category": "chair", "dimensions": [0.5, 1, 0.5], "identifier": "%@", "transform": [1,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,0,1]}
        """
        let text = "{\"objects\": [" + ["SAME", "SAME", ""].map { chair.replacingOccurrences(of: "%@", with: $0) }
            .joined(separator: ",") + "]}"
        let l = try RoomLayering.layer(scene: nil, capturedRoomJSON: Array(text.utf8))
        checkLayoutContract(l)
        #expect(l.elements.map(\.identifier).sorted() == ["SAME", "SAME#2", "json:objects[2]"])
        #expect(l.warnings.contains { $0.code == LayeringWarningCode.duplicateIdentifier })
    }
}

@Suite struct USDIdentityTests {
    @Test(arguments: [
        ("Door(Isopen: False)", "door", false), ("Door(Isopen: True)", "door", true), ("Door(isOpen: true)", "door", true),
        ("Wall", "wall", nil), ("Chair", "chair", nil), ("WasherDryer", "washerDryer", nil), ("Television", "television", nil),
        ("Stairs", "stairs", nil), ("Spaceship", nil, nil),
    ] as [(String, String?, Bool?)])
    func customDataCategories(_ raw: String, _ category: String?, _ isOpen: Bool?) {
        let p = RoomPlanNames.parseUSDCategory(raw)
        #expect(p.category?.rawValue == category && p.isOpen == isOpen)
    }

    @Test func namesOfPrimsAndGroups() {
        #expect(RoomPlanNames.category(ofPrimName: "Wall12") == "wall")
        #expect(RoomPlanNames.category(ofPrimName: "Chair0") == "chair")
        #expect(RoomPlanNames.category(ofPrimName: "Wall0_color") == nil)
        #expect(RoomPlanNames.category(ofPrimName: "model") == nil)
        #expect(RoomPlanNames.category(ofGroupName: "Walls_grp") == "wall")
        #expect(RoomPlanNames.category(ofGroupName: "Wall_3_grp") == "wall")
        #expect(RoomPlanNames.category(ofGroupName: "Television_grp") == "television")
        #expect(RoomPlanNames.category(ofGroupName: "Arch_grp") == nil)
        #expect(RoomPlanNames.ordinal(ofPrimName: "Door12") == 12)
        #expect(RoomPlanNames.sectionLabel(ofPrimName: "livingRoom1") == "livingRoom")
    }

    static func cube() -> Mesh {
        var b = MeshBuilder()
        b.box(min: SIMD3(-0.5, -0.5, -0.5), max: SIMD3(0.5, 0.5, 0.5))
        return b.mesh(name: "cube")
    }

    /// A hand-built RoomPlan-like scene: two element layers referenced onto one wall group (the
    /// group's composed customData shows only the strongest), children in reverse reference order.
    @Test func identityIsReadPerReferencedLayer() throws {
        var s = Scene(meshes: [Self.cube()], materials: [Material(name: "m")])
        s.meshes[0].primitives[0].material = MaterialIndex(0)
        let room = s.addNode(Node(name: "Room", sourcePath: "/Room", kind: "assembly"))
        let sec = s.addNode(Node(name: "Section_grp", parent: room, sourcePath: "/Room/Section_grp"))
        s.addNode(Node(name: "livingRoom0", parent: sec, localTransform: .translation(1, 0, 2), sourcePath: "/Room/Section_grp/livingRoom0"))
        let grp = s.addNode(Node(
            name: "Wall_0_grp", parent: room, sourcePath: "/Room/Wall_0_grp",
            customData: ["UUID": .string("W0"), "Category": .string("Wall")],
            referencedCustomData: [
                ["UUID": .string("W0"), "Category": .string("Wall")],
                ["UUID": .string("D1"), "Category": .string("Door(Isopen: True)")],
                ["UUID": .string("D2"), "Category": .string("Door(Isopen: False)")],
            ]))
        let wall = Matrix4.translation(0, 1.25, 0)
        s.addNode(Node(name: "Door2", parent: grp, localTransform: .translation(1, 1, 0) * .scale(0.9, 2, 0.0005),
                       mesh: MeshIndex(0), sourcePath: "/Room/Wall_0_grp/Door2", sourceType: "Cube"))
        s.addNode(Node(name: "Door1", parent: grp, localTransform: .translation(-1, 1, 0) * .scale(0.8, 2, 0.0005),
                       mesh: MeshIndex(0), sourcePath: "/Room/Wall_0_grp/Door1", sourceType: "Cube"))
        s.addNode(Node(name: "Wall0", parent: grp, localTransform: wall * .scale(4, 2.5, 0.0001), mesh: MeshIndex(0),
                       sourcePath: "/Room/Wall_0_grp/Wall0", sourceType: "Cube"))
        let l = try RoomLayering.layer(scene: s, capturedRoomJSON: nil)
        checkLayoutContract(l)
        #expect(l.isRoomPlan)
        #expect(l.elements.map(\.identifier) == ["W0", "D1", "D2"])
        let d1 = l.elements[1], d2 = l.elements[2]
        #expect(d1.sourcePrimPath == "/Room/Wall_0_grp/Door1" && d1.isOpen == true && d1.parentIdentifier == "W0")
        #expect(d2.sourcePrimPath == "/Room/Wall_0_grp/Door2" && d2.isOpen == false)
        #expect(d1.transform == .translation(-1, 1, 0))
        #expect(near(d1.dimensions?.x ?? 0, 0.8) && d1.dimensions?.z == 0)
        #expect(l.elements[0].transform == wall)
        // Geometry below the element: the scale only.
        let child = try #require(l.scene.nodes.first { $0.parent == d1.node })
        #expect(child.localTransform == .scale(0.8, 2, 0.0005))
        #expect(l.sections == [RoomSection(label: "livingRoom", center: SIMD3(1, 0, 2))])
        // The material came along, re-indexed.
        #expect(l.scene.materials.count == 1 && l.scene.meshes.count == 1)

        // With JSON whose door transforms say Door1 is D2 (reference order differs from names),
        // the JSON transforms decide.
        let json = """
        {"walls": [{"dimensions": [4, 2.5, 0], "identifier": "W0", "transform": [1,0,0,0, 0,1,0,0, 0,0,1,0, 0,1.25,0,1]}],
         "doors": [{"category": {"door": {"isOpen": true}}, "dimensions": [0.8, 2, 0], "identifier": "D1",
                    "transform": [1,0,0,0, 0,1,0,0, 0,0,1,0, 1,1,0,1]},
                   {"category": {"door": {"isOpen": false}}, "dimensions": [0.9, 2, 0], "identifier": "D2",
                    "transform": [1,0,0,0, 0,1,0,0, 0,0,1,0, -1,1,0,1]}]}
        """
        let j = try RoomLayering.layer(scene: s, capturedRoomJSON: Array(json.utf8))
        checkLayoutContract(j)
        #expect(j.elements.first { $0.identifier == "D1" }?.sourcePrimPath == "/Room/Wall_0_grp/Door2")
        #expect(j.elements.first { $0.identifier == "D2" }?.sourcePrimPath == "/Room/Wall_0_grp/Door1")
        #expect(j.elements.allSatisfy { $0.geometry == .usd })
    }

    @Test func usdElementsMissingFromTheJSONAreReported() throws {
        var s = Scene(meshes: [Self.cube()])
        let grp = s.addNode(Node(name: "Chair_grp", sourcePath: "/Room/Object_grp/Chair_grp",
                                 referencedCustomData: [["UUID": .string("C0"), "Category": .string("Chair")]]))
        s.addNode(Node(name: "Chair0", parent: grp, mesh: MeshIndex(0), sourcePath: "/Room/Object_grp/Chair_grp/Chair0"))
        s.addNode(Node(name: "Extra", mesh: MeshIndex(0), sourcePath: "/Extra"))
        let json = #"{"walls": [], "objects": []}"#
        let l = try RoomLayering.layer(scene: s, capturedRoomJSON: Array(json.utf8))
        checkLayoutContract(l)
        #expect(l.layers.map(\.id) == ["objects.chair", "unclassified"])
        #expect(l.warnings.contains { $0.code == LayeringWarningCode.usdElementUnmatched && $0.message.hasPrefix("1 ") })
        #expect(l.warnings.contains { $0.code == LayeringWarningCode.unclassifiedGeometry && $0.message.hasPrefix("1 ") })
        #expect(l.elements.first { $0.layer == "unclassified" }?.identifier == "usd:/Extra")
    }
}

@Suite struct NonRoomPlanTests {
    @Test func topLevelGroupsBecomeLayers() throws {
        var s = Scene(meshes: [USDIdentityTests.cube()], metadata: SceneMetadata(defaultPrim: "World"))
        let world = s.addNode(Node(name: "World", sourcePath: "/World"))
        let furniture = s.addNode(Node(name: "Furniture", parent: world, sourcePath: "/World/Furniture"))
        let lamp = s.addNode(Node(name: "Lamp", parent: furniture, localTransform: .translation(1, 0, 0), sourcePath: "/World/Furniture/Lamp"))
        s.addNode(Node(name: "Shade", parent: lamp, localTransform: .translation(0, 1, 0), mesh: MeshIndex(0),
                       sourcePath: "/World/Furniture/Lamp/Shade"))
        s.addNode(Node(name: "Desk", parent: furniture, localTransform: .scale(2, 1, 1), mesh: MeshIndex(0),
                       sourcePath: "/World/Furniture/Desk"))
        s.addNode(Node(name: "Helpers", parent: world, sourcePath: "/World/Helpers"))  // no geometry
        s.addNode(Node(name: "Floor", parent: world, mesh: MeshIndex(0), sourcePath: "/World/Floor"))
        s.addNode(Node(name: "Other", sourcePath: "/Other", kind: ""))  // not below the default prim
        let l = try RoomLayering.layer(scene: s, capturedRoomJSON: nil)
        checkLayoutContract(l)
        #expect(!l.isRoomPlan && l.quality.grade == nil)
        #expect(l.layers.map(\.id) == ["group.Floor", "group.Furniture"])
        #expect(l.layers.allSatisfy { $0.kind == "group" })
        #expect(l.elements.map(\.identifier) == ["usd:/World/Floor", "usd:/World/Furniture/Desk", "usd:/World/Furniture/Lamp"])
        #expect(l.elements.allSatisfy { $0.category == "unclassified" && $0.geometry == .usd })
        let lampElement = try #require(l.elements.first { $0.identifier == "usd:/World/Furniture/Lamp" })
        #expect(lampElement.transform == .translation(1, 0, 0))
        let desk = try #require(l.elements.first { $0.identifier == "usd:/World/Furniture/Desk" })
        #expect(desk.transform == .scale(2, 1, 1))
        #expect(near(desk.dimensions?.x ?? 0, 2))
    }

    @Test func severalRootsWithoutDefaultPrim() throws {
        var s = Scene(meshes: [USDIdentityTests.cube()])
        s.addNode(Node(name: "A", mesh: MeshIndex(0), sourcePath: "/A"))
        let b = s.addNode(Node(name: "B", sourcePath: "/B"))
        s.addNode(Node(name: "B1", parent: b, mesh: MeshIndex(0), sourcePath: "/B/B1"))
        s.addNode(Node(name: "B2", parent: b, mesh: MeshIndex(0), sourcePath: "/B/B2"))
        let l = try RoomLayering.layer(scene: s, capturedRoomJSON: nil)
        checkLayoutContract(l)
        #expect(l.layers.map(\.id) == ["group.A", "group.B"])
        #expect(l.layers.map(\.elements.count) == [1, 2])
    }

    @Test func brokenSceneIndicesDoNotTrap() throws {
        var s = Scene(meshes: [USDIdentityTests.cube()])
        s.addNode(Node(name: "A", parent: NodeIndex(99), mesh: MeshIndex(0), sourcePath: "/A"))
        s.addNode(Node(name: "B", mesh: MeshIndex(7), sourcePath: "/B"))
        s.addNode(Node(name: "C", parent: NodeIndex(3), mesh: MeshIndex(0), sourcePath: "/C"))
        s.addNode(Node(name: "D", parent: NodeIndex(2), mesh: MeshIndex(0), sourcePath: "/D"))  // cycle C ↔ D
        s.meshes[0].primitives[0].material = MaterialIndex(5)
        let l = try RoomLayering.layer(scene: s, capturedRoomJSON: nil)
        checkLayoutContract(l)
        #expect(l.elements.map(\.identifier) == ["usd:/A"])
        #expect(throws: LayeringError.self) {
            try RoomLayering.layer(scene: s, capturedRoomJSON: nil, options: LayeringOptions(maxSceneNodes: 2))
        }
    }
}

@Suite struct CarryOverTests {
    /// Only the meshes, materials and textures the elements use are carried over, re-indexed.
    @Test func onlyUsedResourcesAreCarriedOver() throws {
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3]
        var s = Scene(
            meshes: [USDIdentityTests.cube(), USDIdentityTests.cube(), USDIdentityTests.cube()],
            materials: [Material(name: "unused"), Material(name: "textured", baseColorTexture: TextureRef(texture: TextureIndex(1)))],
            textures: [Texture(bytes: [9], mimeType: "image/png", sourcePath: "unused.png"),
                       Texture(bytes: png, mimeType: "image/png", sourcePath: "wood.png")])
        s.meshes[2].primitives[0].material = MaterialIndex(1)
        let root = s.addNode(Node(name: "World", sourcePath: "/World"))
        s.addNode(Node(name: "Table", parent: root, mesh: MeshIndex(2), sourcePath: "/World/Table"))
        s.addNode(Node(name: "Chair", parent: root, localTransform: .translation(1, 0, 0), mesh: MeshIndex(2),
                       sourcePath: "/World/Chair"))
        let l = try RoomLayering.layer(scene: s, capturedRoomJSON: nil)
        checkLayoutContract(l)
        #expect(l.scene.meshes.count == 1 && l.scene.materials.map(\.name) == ["textured"])
        #expect(l.scene.textures.map(\.sourcePath) == ["wood.png"])
        #expect(l.scene.materials[0].baseColorTexture?.texture == TextureIndex(0))
        #expect(l.scene.meshes[0].primitives[0].material == MaterialIndex(0))
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: TestFiles.packageRoot.path + "/samples/room.usdz")))
    func benchmarkRoomSampleLayers() throws {
        let l = try RoomLayering.layer(
            scene: try TestFiles.scene(TestFiles.packageRoot.path + "/samples/room.usdz"), capturedRoomJSON: nil)
        checkLayoutContract(l)
        #expect(l.isRoomPlan && !l.elements.isEmpty)
        #expect(!l.layers.contains { $0.id == "unclassified" })
        print("room.usdz layers: \(l.metrics.countsPerLayer)")
    }
}
