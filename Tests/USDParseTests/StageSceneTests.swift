import SceneModel
import Testing

@testable import USDParse

@Suite struct StageSceneTests {
    @Test func zUpCentimetresAreNormalisedOnTheRootNodes() throws {
        let s = TestStage()
        s.metadata = ["upAxis": .token("Z"), "metersPerUnit": .float(0.01), "defaultPrim": .token("World")]
        s.prim("/World", "Xform") { $0.xform([("xformOp:translate", StageValue.double3(100, 200, 0))]) }
        s.prim("/World/Pole", "Mesh") {
            $0.mesh(points: [SIMD3(0, 0, 0), SIMD3(10, 0, 0), SIMD3(0, 0, 300)], counts: [3], indices: [0, 1, 2])
        }
        let scene = try buildTestScene(s.build())
        #expect(scene.metadata.sourceUpAxis == .z)
        #expect(nearlyEqual(scene.metadata.sourceMetersPerUnit, 0.01, 1e-8))
        #expect(scene.metadata.defaultPrim == "World")
        // Meshes keep source units; the correction sits on the root node only.
        #expect(scene.mesh(of: "Pole")?.positions == [0, 0, 0, 10, 0, 0, 0, 0, 300])
        #expect(scene.node("Pole")?.localTransform.isIdentity == true)
        let world = scene.worldTransforms()[try #require(scene.nodeIndex("Pole"))]
        // Z-up (0,0,300) cm → 3 m up (+Y); source +Y (200 cm) → −Z. (metersPerUnit authored as a float.)
        #expect(nearlyEqual(world.transformPoint(SIMD3(0, 0, 300)), SIMD3(1, 3, -2), 1e-6))
        #expect(nearlyEqual(world.transformPoint(SIMD3(10, 0, 0)), SIMD3(1.1, 0, -2), 1e-6))
    }

    @Test func metersPerUnitFallsBackToCentimetresAndRoomPlanIsUntouched() throws {
        let fallback = TestStage()
        fallback.metadata = [:]
        fallback.prim("/A", "Xform") { $0.xform([("xformOp:translate", StageValue.double3(100, 0, 0))]) }
        let a = try buildTestScene(fallback.build())
        #expect(a.metadata.sourceMetersPerUnit == 0.01 && a.metadata.sourceUpAxis == .y)
        #expect(nearlyEqual(a.worldTransforms()[0].transformPoint(.zero), SIMD3(1, 0, 0), 1e-12))

        let metres = TestStage()
        metres.metadata = ["metersPerUnit": .scalar(.int, .int32([1])), "upAxis": .token("Y")]
        let m: [Double] = [0.5, 0, -0.8, 0, 0, 1, 0, 0, 0.8, 0, 0.5, 0, 1.25, -0.5, 3, 1]
        metres.prim("/Room/Wall0", "Cube") { $0.xform([("xformOp:transform", StageValue.matrix(m))]) }
        let b = try buildTestScene(metres.build())
        #expect(b.metadata.sourceMetersPerUnit == 1)
        #expect(b.node("Wall0")?.localTransform.m == m)  // bit for bit
        #expect(b.node("Room")?.localTransform.isIdentity == true)
    }

    @Test func roomPlanIdentitySurvivesOnNodes() throws {
        let s = TestStage()
        s.metadata["defaultPrim"] = .token("Room")
        s.prim("/Room", "Xform") { $0.metadata["kind"] = .token("assembly") }
        s.prim("/Room/Parametric_grp/Arch_grp/Wall_0_grp", "Xform") {
            $0.metadata["kind"] = .token("group")
            $0.metadata["customData"] = .dictionary(["UUID": .string("W0"), "Category": .string("Wall")])
            $0.referencedLayerCustomData = [
                ["UUID": .string("W0"), "Category": .string("Wall")],
                [
                    "UUID": .string("D1"), "Category": .string("Door(Isopen: False)"),
                    "Extra": .scalar(.int, .int32([3])),
                ],
            ]
        }
        s.prim("/Room/Parametric_grp/Arch_grp/Wall_0_grp/Wall0", "Cube") { $0.set("size", "double", .double(1)) }
        let scene = try buildTestScene(s.build())
        let group = try #require(scene.node("Wall_0_grp"))
        #expect(group.sourcePath == "/Room/Parametric_grp/Arch_grp/Wall_0_grp")
        #expect(group.sourceType == "Xform" && group.kind == "group")
        #expect(group.customData["UUID"] == .string("W0"))
        #expect(group.customData["Extra"] == .int(3))  // referenced keys merged, the prim's own win
        #expect(group.referencedCustomData.map { $0["UUID"] } == [.string("W0"), .string("D1")])
        #expect(scene.node("Room")?.kind == "assembly")
        #expect(scene.metadata.defaultPrim == "Room")
        #expect(scene.nodes.map(\.name) == ["Room", "Parametric_grp", "Arch_grp", "Wall_0_grp", "Wall0"])
        #expect(scene.node("Parametric_grp")?.sourceType == "")
        let parents = scene.nodes.map { $0.parent?.rawValue }
        #expect(parents == [nil, 0, 1, 2, 3])
    }

    @Test func purposeVisibilityActivityAndClassesFilterSubtrees() throws {
        let s = TestStage()
        let tri: (inout UsdPrim) -> Void = {
            $0.mesh(points: [SIMD3(0, 0, 0), SIMD3(1, 0, 0), SIMD3(0, 1, 0)], counts: [3], indices: [0, 1, 2])
        }
        s.prim("/Root", "Xform")
        s.prim("/Root/Render", "Mesh", tri)
        s.prim("/Root/Guide", "Xform") { $0.set("purpose", "token", .token("guide"), uniform: true) }
        s.prim("/Root/Guide/Child", "Mesh", tri)
        s.prim("/Root/Proxy", "Mesh") {
            tri(&$0)
            $0.set("purpose", "token", .token("proxy"), uniform: true)
        }
        s.prim("/Root/Hidden", "Xform") { $0.set("visibility", "token", .token("invisible")) }
        s.prim("/Root/Hidden/Child", "Mesh") {
            tri(&$0)
            $0.set("visibility", "token", .token("inherited"))
        }
        s.prim("/Root/Off", "Xform") { $0.metadata["active"] = .bool(false) }
        s.prim("/Root/Off/Child", "Mesh", tri)
        s.prim("/Proto", "Xform", specifier: .class)
        s.prim("/Proto/Child", "Mesh", tri)
        s.prim("/Root/Lamp", "SphereLight")
        s.prim("/Root/Cam", "Camera")
        s.prim("/Root/Hair", "BasisCurves")
        s.prim("/Root/Physics", "PhysicsScene")
        let scene = try buildTestScene(s.build())
        #expect(scene.nodes.map(\.name) == ["Root", "Render"])
        #expect(scene.meshes.count == 1)
        let unsupported = scene.warnings.filter { $0.code == "USD_PRIM_UNSUPPORTED_TYPE" }.compactMap(\.primPath)
        #expect(unsupported == ["/Root/Lamp", "/Root/Cam", "/Root/Hair"])
    }

    @Test func pointInstancerExpandsInstancesSharingPrototypeMeshes() throws {
        let s = TestStage()
        s.prim("/World/Inst", "PointInstancer") {
            $0.rel("prototypes", ["/World/Inst/Protos/Box", "/World/Inst/Protos/Ball"])
            $0.set("protoIndices", "int[]", StageValue.ints([0, 1, 0, 1]))
            $0.set(
                "positions", "point3f[]",
                StageValue.points([SIMD3(10, 0, 0), SIMD3(0, 5, 0), SIMD3(-10, 0, 0), SIMD3(0, 0, 0)]))
            let h = Float(0.5).squareRoot()
            $0.set(
                "orientations", "quath[]",
                .array(
                    .quath,
                    .half([
                        0, 0, Half.fromFloat(h), Half.fromFloat(h), 0, 0, 0, Half.fromFloat(1),
                        0, 0, 0, Half.fromFloat(1), 0, 0, 0, Half.fromFloat(1),
                    ])))
            $0.set(
                "scales", "float3[]",
                StageValue.points([SIMD3(2, 2, 2), SIMD3(1, 1, 1), SIMD3(1, 1, 1), SIMD3(1, 1, 1)]))
            $0.set("ids", "int64[]", .array(.int64, .int64([100, 101, 102, 103])))
            $0.set("invisibleIds", "int64[]", .array(.int64, .int64([103])))
        }
        s.prim("/World/Inst/Protos/Box", "Xform") { $0.xform([("xformOp:translate", StageValue.double3(0, 1, 0))]) }
        s.prim("/World/Inst/Protos/Box/Geo", "Cube") { $0.set("size", "double", .double(1)) }
        s.prim("/World/Inst/Protos/Ball", "Sphere") { $0.set("radius", "double", .double(0.5)) }
        let scene = try buildTestScene(s.build())
        // World, Inst, then per instance: the instance node and the prototype subtree.
        #expect(
            scene.nodes.map(\.name) == [
                "World", "Inst", "Inst_0", "Box", "Geo", "Inst_1", "Ball", "Inst_2", "Box", "Geo",
            ])
        #expect(scene.meshes.count == 2)
        let geos = scene.nodes.filter { $0.name == "Geo" }
        #expect(geos[0].mesh == geos[1].mesh)
        #expect(scene.instancedTriangleCount == 12 * 2 + 960)
        let world = scene.worldTransforms()
        // Instance 0: scale 2, rotate 90° about Z, translate (10,0,0); prototype root adds (0,1,0).
        let geo0 = try #require(scene.nodes.firstIndex { $0.name == "Geo" })
        #expect(nearlyEqual(world[geo0].transformPoint(.zero), SIMD3(8, 0, 0), 1e-3))
        #expect(nearlyEqual(world[geo0].transformPoint(SIMD3(1, 0, 0)), SIMD3(8, 2, 0), 1e-2))
        let ball = try #require(scene.nodeIndex("Ball"))
        #expect(nearlyEqual(world[ball].transformPoint(.zero), SIMD3(0, 5, 0)))
        let inst2 = try #require(scene.nodeIndex("Inst_2"))
        #expect(scene.nodes[inst2].parent?.rawValue == 1)
        #expect(scene.nodes[inst2 + 1].parent?.rawValue == inst2)
        #expect(scene.nodes[inst2 + 2].parent?.rawValue == inst2 + 1)
    }

    @Test func pointInstancerLimitsAndBadData() throws {
        let s = TestStage()
        s.prim("/Inst", "PointInstancer") {
            $0.rel("prototypes", ["/Inst/P", "/Missing"])
            $0.set("protoIndices", "int[]", StageValue.ints([0, 0, 0, 1, 7, -1]))
            $0.set("positions", "point3f[]", StageValue.points(Array(repeating: SIMD3(0, 0, 0), count: 6)))
        }
        s.prim("/Inst/P", "Cube")
        var limits = ParseLimits()
        let scene = try buildTestScene(s.build(), limits: limits)
        #expect(scene.nodes.filter { $0.name.hasPrefix("Inst_") }.count == 3)
        #expect(scene.hasWarning("USD_POINTINSTANCER_INVALID"))
        limits.maxTriangles = 30
        #expect(throws: USDParseError.self) { try buildTestScene(s.build(), limits: limits) }
        limits = ParseLimits()
        limits.maxComposedPrims = 5
        do {
            _ = try buildTestScene(s.build(), limits: limits)
            Issue.record("expected maxComposedPrims to be enforced")
        } catch let error as USDParseError {
            #expect(error.code == .limitExceeded)
        }
    }

    @Test func selfInstancingPrototypeTerminates() throws {
        let s = TestStage()
        s.prim("/Inst", "PointInstancer") {
            $0.rel("prototypes", ["/Inst/P"])
            $0.set("protoIndices", "int[]", StageValue.ints([0, 0]))
            $0.set("positions", "point3f[]", StageValue.points([SIMD3(0, 0, 0), SIMD3(1, 0, 0)]))
        }
        s.prim("/Inst/P", "PointInstancer") {
            $0.rel("prototypes", ["/Inst/P"])
            $0.set("protoIndices", "int[]", StageValue.ints([0]))
            $0.set("positions", "point3f[]", StageValue.points([SIMD3(0, 0, 0)]))
        }
        let scene = try buildTestScene(s.build())
        #expect(scene.hasWarning("USD_POINTINSTANCER_INVALID"))
    }

    @Test func buildIsDeterministic() throws {
        func make() -> UsdStage {
            let s = TestStage()
            s.metadata["upAxis"] = .token("Z")
            for k in 0..<20 {
                s.prim("/R/G\(k % 3)/M\(k)", k % 2 == 0 ? "Mesh" : "Cube") {
                    $0.mesh(points: testCubePoints, counts: testCubeCounts, indices: testCubeIndices)
                    $0.set("primvars:displayColor", "color3f[]", StageValue.points([SIMD3(Float(k % 4) / 4, 0.5, 0.5)]))
                    $0.xform([
                        ("xformOp:rotateXYZ", StageValue.float3(Float(k), 2, 3)),
                        ("xformOp:translate", StageValue.double3(Double(k), 0, 0)),
                    ])
                }
            }
            return s.build()
        }
        let a = try buildTestScene(make())
        let b = try buildTestScene(make())
        #expect(a == b)
        #expect(a.materials.count == 4)
    }

    @Test func warningsCarryStableCodesAndPaths() throws {
        let s = TestStage()
        s.prim("/X", "Xform") {
            $0.set("xformOpOrder", "token[]", StageValue.tokens(["xformOp:translate"]), uniform: true)
        }
        s.prim("/Odd", "SomeCustomSchema")
        s.prim("/Wrapper", "SomeCustomSchema")
        s.prim("/Wrapper/Geo", "Cube")
        let scene = try buildTestScene(s.build())
        #expect(scene.warnings.contains { $0.code == "USD_XFORM_OP_MISSING" && $0.primPath == "/X" })
        #expect(scene.warnings.contains { $0.code == "USD_PRIM_UNSUPPORTED_TYPE" && $0.primPath == "/Odd" })
        // Unknown types with children are kept as groups so their geometry survives.
        #expect(scene.node("Wrapper")?.sourceType == "SomeCustomSchema")
        #expect(scene.mesh(of: "Geo") != nil)
    }
}
