import Foundation
import SceneModel
import Testing

@testable import GLBWriter

/// Write, re-read with the test reader, and compare with what went in.
@Suite struct RoundTripTests {
    /// Walls (two elements), doors (one open door), objects.chair (a chair made of two meshes).
    static func room() -> LayeredScene {
        var b = RoomBuilder()
        let wallMesh = b.scene.addMesh(Meshes.quad())
        let cube = b.scene.addMesh(Meshes.cube8())
        let walls = b.addLayer("walls")
        let doors = b.addLayer("doors")
        let chairs = b.addLayer("objects.chair", kind: "objects", category: "chair")
        b.addElement(
            "WALL-A", layer: walls, category: "wall", transform: .translation(0, 0, -2), mesh: wallMesh,
            dimensions: SIMD3(4, 2.5, 0), story: 0, sourcePrimPath: "/Room/Wall_0")
        b.addElement(
            "WALL-B", layer: walls, category: "wall", transform: .rotation(axis: 1, degrees: 90), mesh: wallMesh,
            confidence: "medium", dimensions: SIMD3(3, 2.5, 0))
        b.addElement(
            "DOOR-1", layer: doors, category: "door", transform: .translation(1, 0, -2), confidence: "low",
            isOpen: true, parent: "WALL-A", geometry: .synthesized)
        let chair = b.addElement(
            "CHAIR-1", layer: chairs, category: "chair", transform: .translation(0.5, 0, 0.5),
            dimensions: SIMD3(0.5, 0.9, 0.5), attributes: ["ChairType": "swivel", "ChairArm": "existing"])
        b.addChild("seat", of: chair, transform: .scale(0.5, 0.1, 0.5), mesh: cube)
        b.addChild("back", of: chair, transform: .translation(0, 0.45, -0.25), mesh: cube)
        b.addChild("helper", of: chair)
        return b.layered
    }

    @Test func nodeNamesAndHierarchySurvive() throws {
        let layered = Self.room()
        let (output, reader) = try writeAndRead(layered)
        let names = reader.nodes.map { $0["name"] as? String ?? "" }
        #expect(
            names == [
                "layer_walls", "WALL-A", "WALL-B", "layer_doors", "DOOR-1", "layer_objects_chair",
                "CHAIR-1", "seat", "back",
            ])
        let roots = (reader.array("scenes")[0]["nodes"] as? [Any] ?? []).compactMap(int)
        #expect(roots == [0, 3, 5])
        #expect((reader.nodes[6]["children"] as? [Any])?.compactMap(int) == [7, 8])
        for layer in layered.layers { #expect(output.nodeIndex[layer.node] == reader.node(named: NodeName.layer(layer.id))) }
        for element in layered.elements {
            #expect(output.nodeIndex[element.node] == reader.node(named: element.identifier))
        }
        #expect(output.nodeIndex.count == 9, "the empty helper node is not written")
    }

    @Test func layerExtrasCarryKindAndCategory() throws {
        let (_, reader) = try writeAndRead(Self.room())
        let chairs = try #require(reader.crowdroom(5))
        #expect(chairs["kind"] as? String == "layer")
        #expect(chairs["layer"] as? String == "objects.chair")
        #expect(chairs["layerKind"] as? String == "objects")
        #expect(chairs["category"] as? String == "chair")
        #expect(bool(chairs["defaultVisible"]) == true)
        #expect(try #require(reader.crowdroom(0))["category"] == nil, "nil category omitted")
    }

    @Test func elementExtrasCarryEverySemanticField() throws {
        let (_, reader) = try writeAndRead(Self.room())
        let wall = try #require(reader.crowdroom(1))
        #expect(wall["identifier"] as? String == "WALL-A")
        #expect(wall["category"] as? String == "wall")
        #expect(wall["layer"] as? String == "walls")
        #expect(wall["confidence"] as? String == "high")
        #expect((wall["dimensions"] as? [Any])?.compactMap(double) == [4, 2.5, 0])
        #expect(int(wall["story"]) == 0)
        #expect(wall["geometry"] as? String == "usd")
        #expect(wall["sourcePrimPath"] as? String == "/Room/Wall_0")
        #expect((wall["attributes"] as? [String: Any])?.isEmpty == true)
        #expect(wall["isOpen"] == nil && wall["parent"] == nil, "nil fields are omitted")

        let door = try #require(reader.crowdroom(4))
        #expect(bool(door["isOpen"]) == true)
        #expect(door["parent"] as? String == "WALL-A")
        #expect(door["geometry"] as? String == "synthesized")
        #expect(reader.nodes[4]["mesh"] == nil, "an element without geometry is still written")

        let chair = try #require(reader.crowdroom(6))
        #expect(chair["attributes"] as? [String: String] == ["ChairArm": "existing", "ChairType": "swivel"])
    }

    @Test func extrasKeysAreSortedInTheText() throws {
        let (_, reader) = try writeAndRead(Self.room())
        let text = reader.jsonText
        let keys = [
            "\"attributes\"", "\"category\"", "\"confidence\"", "\"dimensions\"", "\"geometry\"",
            "\"identifier\"", "\"kind\"", "\"layer\"", "\"sourcePrimPath\"", "\"story\"",
        ]
        let wallStart = try #require(text.range(of: "{\"crowdroom\":{\"attributes\""))
        let tail = text[wallStart.lowerBound...]
        let positions = keys.map { tail.range(of: $0)!.lowerBound }
        #expect(positions == positions.sorted())
        #expect(text.contains("\"attributes\":{\"ChairArm\":\"existing\",\"ChairType\":\"swivel\"}"))
    }

    @Test func transformsAreWrittenAsColumnMajorMatricesExceptIdentity() throws {
        let (_, reader) = try writeAndRead(Self.room())
        #expect(reader.nodes[0]["matrix"] == nil, "identity layer transform omitted")
        let m = (reader.nodes[1]["matrix"] as? [Any])?.compactMap(double)
        #expect(m == [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, -2, 1])
        for key in ["translation", "rotation", "scale"] { #expect(reader.nodes[1][key] == nil) }
    }

    @Test func countsMatchTheFile() throws {
        let (output, reader) = try writeAndRead(Self.room())
        #expect(output.meshCount == reader.meshes.count)
        #expect(output.meshCount == 2, "quad shared by two walls, cube shared by seat and back")
        var triangles = 0
        var vertices = 0
        for m in reader.meshes.indices {
            let prims = reader.meshes[m]["primitives"] as? [[String: Any]] ?? []
            vertices += int(reader.accessors[attribute(reader, mesh: m, "POSITION")!]["count"]) ?? 0
            for p in prims.indices {
                triangles += (int(reader.accessors[indicesAccessor(reader, mesh: m, primitive: p)!]["count"]) ?? 0) / 3
            }
        }
        #expect(output.triangleCount == triangles && triangles == 2 + 12)
        #expect(output.vertexCount == vertices && vertices == 4 + 24)
        #expect(output.materialCount == reader.materials.count && output.materialCount == 1)
        #expect(output.textureCount == 0 && output.imageCount == 0)
        #expect(output.warnings.isEmpty)
    }

    @Test func positionsRoundTripExactly() throws {
        let quad = Meshes.quad()
        let (_, reader) = try writeAndRead(texturedRoom(quad))
        #expect(try reader.floats(attribute(reader, "POSITION")!) == quad.positions)
        #expect(try reader.floats(attribute(reader, "TEXCOORD_0")!) == quad.uv0)
        #expect(try reader.integers(indicesAccessor(reader)!) == quad.indices)
        let a = reader.accessors[attribute(reader, "POSITION")!]
        #expect((a["min"] as? [Any])?.compactMap(double) == [0, 0, 0])
        #expect((a["max"] as? [Any])?.compactMap(double) == [1, 1, 0])
    }

    @Test func minAndMaxAreExactForNonRepresentableDecimals() throws {
        var mesh = Meshes.triangle()
        mesh.positions = [0.1, -0.3, 1e-7, 2.675, 0.7, -1e6, 0.2, 1.1, 3.3333333]
        let (_, reader) = try writeAndRead(singleMeshRoom(mesh))
        let a = reader.accessors[attribute(reader, "POSITION")!]
        let mins = (a["min"] as? [Any])?.compactMap(double) ?? []
        #expect(mins.map(Float.init) == [0.1, -0.3, -1e6])
        // Written as the float's exact value, so readers comparing in double precision agree too.
        #expect(reader.jsonText.contains("\"min\":[0.10000000149011612,-0.30000001192092896,-1000000]"))
    }

    @Test func verticesColorsAreWrittenOnlyWhenTheyVary() throws {
        let constant = Meshes.quad(colors: [Float](repeating: 0.5, count: 16))
        let (_, r1) = try writeAndRead(singleMeshRoom(constant))
        #expect(attribute(r1, "COLOR_0") == nil)
        var varying = [Float](repeating: 1, count: 16)
        varying[0] = 0.25
        varying[5] = 2  // clamped to 1
        let (_, r2) = try writeAndRead(singleMeshRoom(Meshes.quad(colors: varying)))
        let colors = try r2.floats(try #require(attribute(r2, "COLOR_0")))
        #expect(colors.count == 16 && colors[0] == 0.25 && colors[5] == 1)
    }
}
