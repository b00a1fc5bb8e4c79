import SceneModel
import Testing

@testable import GLBWriter

/// Instancing, dropped nodes, transform rules and the layout contract.
@Suite struct NodeTreeTests {
    @Test func twoNodesDrawingOneMeshShareOneGLTFMesh() throws {
        var b = RoomBuilder()
        let m = b.scene.addMesh(Meshes.cube8())
        let layer = b.addLayer("objects.stool", kind: "objects", category: "stool")
        b.addElement("S1", layer: layer, category: "stool", transform: .translation(1, 0, 0), mesh: m)
        b.addElement("S2", layer: layer, category: "stool", transform: .translation(-1, 0, 0), mesh: m)
        let (output, reader) = try writeAndRead(b.layered)
        #expect(output.meshCount == 1 && reader.meshes.count == 1)
        #expect(int(reader.nodes[1]["mesh"]) == 0 && int(reader.nodes[2]["mesh"]) == 0)
        #expect(output.triangleCount == 12, "a shared mesh counts once")
    }

    @Test func identicalMeshesOfSeparateElementsAreWrittenOnceAndStaySelectable() throws {
        for compression in GLBCompression.allCases {
            var b = RoomBuilder()
            var chair = Meshes.cube8()
            let m1 = b.scene.addMesh(chair)
            chair.name = "chair copy"
            let m2 = b.scene.addMesh(chair)
            var other = Meshes.cube8()
            other.positions[0] += 0.5
            let m3 = b.scene.addMesh(other)
            let layer = b.addLayer("objects.chair", kind: "objects", category: "chair")
            b.addElement("C1", layer: layer, category: "chair", transform: .translation(1, 0, 0), mesh: m1)
            b.addElement("C2", layer: layer, category: "chair", transform: .translation(-1, 0, 0), mesh: m2)
            b.addElement("C3", layer: layer, category: "chair", transform: .translation(0, 0, 2), mesh: m3)
            let output = try GLBWriter.write(b.layered, options: GLBOptions(generator: "t", compression: compression))
            let reader = try GLBTestReader(output.bytes)
            #expect(output.meshCount == 2 && reader.meshes.count == 2, "\(compression)")
            let byName = Dictionary(uniqueKeysWithValues: reader.nodes.compactMap { n in
                (n["name"] as? String).map { ($0, int(n["mesh"])) }
            })
            // Each chair keeps its own element node; the two equal ones draw the same glTF mesh.
            #expect(byName["C1"] == 0 && byName["C2"] == 0 && byName["C3"] == 1, "\(compression) \(byName)")
            #expect(output.triangleCount == 24)
        }
    }

    @Test func meshWithoutTrianglesIsNotWrittenAndItsNodeKeepsNoMesh() throws {
        var b = RoomBuilder()
        let empty = b.scene.addMesh(Mesh(name: "empty", positions: [0, 0, 0, 1, 0, 0]))
        let zeroPrimitive = b.scene.addMesh(
            Mesh(
                name: "zero", positions: [0, 0, 0, 1, 0, 0, 0, 1, 0], indices: [],
                primitives: [.init(indexStart: 0, indexCount: 0, material: nil)]))
        let layer = b.addLayer("walls")
        let wall = b.addElement("W", layer: layer, category: "wall", mesh: empty)
        b.addChild("emptyChild", of: wall, mesh: zeroPrimitive)
        let (output, reader) = try writeAndRead(b.layered)
        #expect(output.meshCount == 0 && reader.meshes.isEmpty)
        #expect(reader.nodes.count == 2 && reader.nodes[1]["mesh"] == nil)
    }

    @Test func emptyHelperChainsAreDroppedButChainsToGeometryKept() throws {
        var b = RoomBuilder()
        let m = b.scene.addMesh(Meshes.triangle())
        let layer = b.addLayer("unclassified")
        let e = b.addElement("U", layer: layer, category: "unclassified")
        let a = b.addChild("a", of: e)
        let a1 = b.addChild("a1", of: a)
        b.addChild("a2", of: a1)
        let g = b.addChild("g", of: e, transform: .translation(0, 1, 0))
        b.addChild("gm", of: g, mesh: m)
        let (output, reader) = try writeAndRead(b.layered)
        #expect(reader.nodes.map { $0["name"] as? String } == ["layer_unclassified", "U", "g", "gm"])
        #expect(output.nodeIndex[a] == nil && output.nodeIndex[g] == 2)
    }

    /// Names three.js's GLTFLoader and Blender show as written: the layer id's `.` and a path's
    /// `:` `/` and spaces become `_`, and a name used twice takes a suffix; the manifest's
    /// `nodeNames()` gives the layer and element nodes the same names.
    @Test func nodeNamesAreLoaderSafeAndUnique() throws {
        var b = RoomBuilder()
        let m = b.scene.addMesh(Meshes.triangle())
        let layer = b.addLayer("objects.chair", kind: "objects", category: "chair")
        let e1 = b.addElement("usd:/World/Chair 1", layer: layer, category: "chair")
        b.addChild("Mesh", of: e1, mesh: m)
        let e2 = b.addElement("usd:/World/Chair.1", layer: layer, category: "chair")
        b.addChild("Mesh", of: e2, mesh: m)
        b.addChild("layer_objects_chair", of: e2, mesh: m)
        let (output, reader) = try writeAndRead(b.layered)
        let names = reader.nodes.map { $0["name"] as? String }
        #expect(names == ["layer_objects_chair", "usd__World_Chair_1", "Mesh", "usd__World_Chair_1-2", "Mesh-2",
                          "layer_objects_chair-2"])
        let manifestNames = b.layered.nodeNames()
        for node in [b.layers[layer].node, e1, e2] { #expect(names[output.nodeIndex[node]!] == manifestNames[node]) }
        #expect(GLTFStructuralValidator.validate(output.bytes).isEmpty)
    }

    @Test func layerWithoutElementsIsStillWritten() throws {
        var b = RoomBuilder()
        b.addLayer("windows")
        let (_, reader) = try writeAndRead(b.layered)
        #expect(reader.nodes.count == 1 && reader.crowdroom(0)?["layer"] as? String == "windows")
    }

    @Test func mirroredTransformIsKeptAsAMatrix() throws {
        let mirror = Matrix4.scale(-1, 1, 1) * .translation(0, 2, 0)
        let (output, reader) = try writeAndRead(singleMeshRoom(Meshes.triangle(), transform: mirror))
        #expect((reader.nodes[1]["matrix"] as? [Any])?.compactMap(double) == mirror.m)
        #expect(output.warnings.isEmpty)
    }

    @Test func shearedTransformIsBakedIntoADedicatedMeshCopy() throws {
        var shear = Matrix4.identity
        shear[0, 1] = 0.5  // x += 0.5 y
        var b = RoomBuilder()
        let m = b.scene.addMesh(Meshes.triangle())
        let layer = b.addLayer("objects.table", kind: "objects", category: "table")
        let sheared = b.addElement(
            "T1", layer: layer, category: "table", transform: .translation(0, 0, 3) * shear, mesh: m)
        b.addElement("T2", layer: layer, category: "table", mesh: m)
        let child = b.addChild("leg", of: sheared, transform: .translation(1, 0, 0), mesh: m)
        let (output, reader) = try writeAndRead(b.layered)
        #expect(output.warnings.map(\.code) == ["GLB_TRANSFORM_BAKED", "GLB_TRANSFORM_BAKED"])
        #expect(reader.nodes[1]["matrix"] == nil, "the sheared node is written without a transform")
        #expect(output.meshCount == 3, "T1's baked copy, the shared mesh (T2), the leg's baked copy")
        let baked = try reader.floats(attribute(reader, mesh: int(reader.nodes[1]["mesh"])!, "POSITION")!)
        #expect(baked == [0, 0, 3, 1, 0, 3, 0.5, 1, 3])
        let normals = try reader.floats(attribute(reader, mesh: int(reader.nodes[1]["mesh"])!, "NORMAL")!)
        #expect(normals == [0, 0, 1, 0, 0, 1, 0, 0, 1])
        // The child's transform is relative to a parent that no longer has the shear: its own
        // matrix is also not decomposable, so it is baked with the carried transform.
        let legNode = try #require(output.nodeIndex[child])
        let leg = try reader.floats(attribute(reader, mesh: int(reader.nodes[legNode]["mesh"])!, "POSITION")!)
        #expect(leg == [1, 0, 3, 2, 0, 3, 1.5, 1, 3])
        #expect(reader.nodes[2]["matrix"] == nil)
        #expect(Set((1...3).compactMap { int(reader.nodes[$0]["mesh"]) }).count == 3)
    }

    @Test func bakingAMirroringProjectionKeepsFrontFaces() throws {
        var m = Matrix4.scale(-1, 1, 1)
        m[3, 0] = 0.25  // projective row: not decomposable
        let (output, reader) = try writeAndRead(singleMeshRoom(Meshes.triangle(), transform: m))
        #expect(output.warnings.map(\.code) == ["GLB_TRANSFORM_BAKED"])
        let indices = try reader.integers(indicesAccessor(reader)!)
        #expect(indices == [0, 2, 1], "winding reversed with the mirror")
        let n = try reader.floats(attribute(reader, "NORMAL")!)
        #expect(n[2] == 1, "normal still faces the viewer of the front face")
    }

    @Test func rootsOutsideTheLayersAreDroppedWithAWarning() throws {
        var b = RoomBuilder()
        let layer = b.addLayer("walls")
        b.addElement("W", layer: layer, category: "wall")
        b.scene.addNode(Node(name: "stray", mesh: b.scene.addMesh(Meshes.triangle())))
        let (output, reader) = try writeAndRead(b.layered)
        #expect(reader.nodes.count == 2)
        #expect(output.warnings.map(\.code) == ["GLB_NODES_OUTSIDE_LAYERS"])
    }

    @Test func brokenLayoutContractThrowsInvalidScene() throws {
        var b = RoomBuilder()
        let layer = b.addLayer("walls")
        b.addElement("W", layer: layer, category: "wall")
        var notRoot = b.layered
        notRoot.layers.append(RoomLayer(id: "doors", kind: "doors", node: notRoot.elements[0].node))
        var outOfRange = b.layered
        outOfRange.elements[0].node = NodeIndex(99)
        var orphan = b.layered
        orphan.scene.nodes[1].parent = nil
        for bad in [notRoot, outOfRange, orphan] {
            #expect(throws: GLBWriterError.self) { try GLBWriter.write(bad, options: GLBOptions(generator: "g")) }
            do {
                _ = try GLBWriter.write(bad, options: GLBOptions(generator: "g"))
            } catch let error as GLBWriterError {
                #expect(error.code == .invalidScene)
            }
        }
    }

    @Test func validatorErrorsThrowInvalidScene() throws {
        var mesh = Meshes.triangle()
        mesh.indices = [0, 1, 7]
        do {
            _ = try GLBWriter.write(singleMeshRoom(mesh), options: GLBOptions(generator: "g"))
            Issue.record("expected GLB_INVALID_SCENE")
        } catch let error as GLBWriterError {
            #expect(error.code == .invalidScene)
            #expect(error.description.contains("SCENE_MESH_INDEX_RANGE"))
        }
        // The same check on its own, as the pipeline runs it once before every consumer: the same
        // code and words as the writer's, and nothing for a valid scene.
        #expect(throws: GLBWriterError.self) { try GLBWriter.checkValid(singleMeshRoom(mesh).scene) }
        do {
            try GLBWriter.checkValid(singleMeshRoom(mesh).scene)
        } catch {
            #expect(error.code == .invalidScene && error.message.hasPrefix("scene has 1 validation error(s): "))
        }
        try GLBWriter.checkValid(singleMeshRoom(Meshes.triangle()).scene)
    }

    @Test func decompositionRuleAcceptsRotationsAndScalesOnly() {
        #expect(TransformRule.decide(.identity) == .identity)
        let trs = Matrix4.translation(1, 2, 3) * .rotation(axis: 2, degrees: 30) * .scale(2, 3, 4)
        #expect(TransformRule.decide(trs) == .matrix(Matrix4(columnMajor: trs.m.map(TransformRule.snapped))))
        #expect(TransformRule.decide(.scale(0, 1, 1)) == .matrix(.scale(0, 1, 1)))
        var shear = Matrix4.identity
        shear[1, 0] = 0.1
        #expect(TransformRule.decide(shear) == .bake)
        var projective = Matrix4.identity
        projective[3, 2] = -1
        #expect(TransformRule.decide(projective) == .bake)
    }
}

@Suite struct TransformRuleTests {
    @Test func float32NoiseInTheBottomRowIsCleanedNotBaked() {
        // RoomPlan transforms come from simd_float4x4: w can read 0.99999994.
        var m = Matrix4.translation(1, 2, 3)
        m.m[15] = Double(Float(1).nextDown)
        #expect(TransformRule.decide(m) == .matrix(.translation(1, 2, 3)))
        var identityish = Matrix4.identity
        identityish.m[15] = Double(Float(1).nextDown)
        #expect(TransformRule.decide(identityish) == .identity)
        var projective = Matrix4.identity
        projective.m[15] = 0.5
        #expect(TransformRule.decide(projective) == .bake)
    }
}

extension TransformRuleTests {
    @Test func doublePrecisionNoiseIsSnappedAwayAndNearIdentityOmitted() {
        // inverse(world) × world style noise, as element-relative transforms carry.
        let noisy = Matrix4(columnMajor: [
            0.9999999999999999, 5.551115123125783e-17, 0, 0, 0, 1.0000000000000002, 0, 0, 0, 0, 1, 0,
            1.942890293094024e-16, -4.440892098500626e-16, 0, 1,
        ])
        #expect(TransformRule.decide(noisy) == .identity)
        var moved = noisy
        moved.m[12] = 2.5
        #expect(TransformRule.decide(moved) == .matrix(.translation(2.5, 0, 0)))
    }
}
