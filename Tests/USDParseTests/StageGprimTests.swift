import SceneModel
import Testing

@testable import USDParse

@Suite struct StageGprimTests {
    /// Every triangle of a convex solid centred at the origin faces away from it, and its
    /// vertex normals agree with its winding.
    private func expectOutward(_ mesh: Mesh, _ label: String) {
        for t in 0..<mesh.triangleCount {
            let i = (0..<3).map { Int(mesh.indices[t * 3 + $0]) }
            let p = i.map {
                SIMD3(
                    Double(mesh.positions[$0 * 3]), Double(mesh.positions[$0 * 3 + 1]),
                    Double(mesh.positions[$0 * 3 + 2]))
            }
            let e1 = p[1] - p[0]
            let e2 = p[2] - p[0]
            let cross = SIMD3(e1.y * e2.z - e1.z * e2.y, e1.z * e2.x - e1.x * e2.z, e1.x * e2.y - e1.y * e2.x)
            let centroid = (p[0] + p[1] + p[2]) / 3
            #expect((cross * centroid).sum() > 0, "\(label) triangle \(t) faces inward")
            let n = SIMD3(
                Double(mesh.normals[i[0] * 3]), Double(mesh.normals[i[0] * 3 + 1]), Double(mesh.normals[i[0] * 3 + 2]))
            #expect((cross * n).sum() > 0, "\(label) triangle \(t) normal disagrees with winding")
        }
    }

    @Test func roomPlanWallCubeScaledIsAnExactBox() throws {
        let s = TestStage()
        s.prim("/Room/Wall0", "Xform") { $0.metadata["customData"] = .dictionary(["UUID": .string("W-0")]) }
        s.prim("/Room/Wall0/Wall0", "Cube") {
            $0.set("size", "double", .double(1))
            $0.xform([
                ("xformOp:transform", StageValue.matrix([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1])),
                ("xformOp:scale", StageValue.double3(4, 2.5, 0.0001)),
            ])
        }
        let scene = try buildTestScene(s.build())
        let mesh = try #require(scene.mesh(of: "Wall0"))
        #expect(mesh.triangleCount == 12 && mesh.vertexCount == 24)
        #expect(Set(mesh.positions) == [-0.5, 0.5])
        let b = scene.worldBounds(of: "Wall0")
        #expect(b.min == SIMD3(-2, -1.25, -0.00005) && b.max == SIMD3(2, 1.25, 0.00005))
        expectOutward(mesh, "cube")
    }

    @Test func roomPlanWallWithRotationAndTranslation() throws {
        // Rotated 90° about Y (row-major, translation in the last row), then scaled.
        let s = TestStage()
        s.prim("/Room/Wall1", "Cube") {
            $0.set("size", "double", .double(1))
            $0.xform([
                ("xformOp:transform", StageValue.matrix([0, 0, -1, 0, 0, 1, 0, 0, 1, 0, 0, 0, 3, 1.25, -2, 1])),
                ("xformOp:scale", StageValue.double3(4, 2.5, 0.16)),
            ])
        }
        let scene = try buildTestScene(s.build())
        let b = scene.worldBounds(of: "Wall1")
        #expect(nearlyEqual(b.min, SIMD3(2.92, 0, -4), 1e-12) && nearlyEqual(b.max, SIMD3(3.08, 2.5, 0), 1e-12))
    }

    @Test func gprimBoundsFollowTheirParameters() throws {
        let s = TestStage()
        s.prim("/S", "Sphere") { $0.set("radius", "double", .double(2)) }
        s.prim("/DefaultCube", "Cube")
        s.prim("/Cyl", "Cylinder") {
            $0.set("radius", "double", .double(0.5))
            $0.set("height", "double", .double(3))
            $0.set("axis", "token", .token("X"), uniform: true)
        }
        s.prim("/Cone", "Cone") {
            $0.set("radius", "double", .double(1))
            $0.set("height", "double", .double(4))
            $0.set("axis", "token", .token("Y"), uniform: true)
        }
        s.prim("/Cap", "Capsule")
        s.prim("/CapY", "Capsule") {
            $0.set("radius", "double", .double(1))
            $0.set("height", "double", .double(2))
            $0.set("axis", "token", .token("Y"), uniform: true)
        }
        s.prim("/PlaneZ", "Plane") {
            $0.set("width", "double", .double(4))
            $0.set("length", "double", .double(6))
        }
        s.prim("/PlaneX", "Plane") {
            $0.set("width", "double", .double(4))
            $0.set("length", "double", .double(6))
            $0.set("axis", "token", .token("X"), uniform: true)
        }
        s.prim("/PlaneY", "Plane") {
            $0.set("width", "double", .double(4))
            $0.set("length", "double", .double(6))
            $0.set("axis", "token", .token("Y"), uniform: true)
        }
        let scene = try buildTestScene(s.build())
        func check(_ name: String, _ min: SIMD3<Double>, _ max: SIMD3<Double>, eps: Double = 1e-6) {
            let b = scene.worldBounds(of: name)
            #expect(nearlyEqual(b.min, min, eps) && nearlyEqual(b.max, max, eps), "\(name): \(b)")
        }
        check("S", SIMD3(-2, -2, -2), SIMD3(2, 2, 2))
        check("DefaultCube", SIMD3(-1, -1, -1), SIMD3(1, 1, 1))
        check("Cyl", SIMD3(-1.5, -0.5, -0.5), SIMD3(1.5, 0.5, 0.5))
        check("Cone", SIMD3(-1, -2, -1), SIMD3(1, 2, 1))
        check("Cap", SIMD3(-0.5, -0.5, -1), SIMD3(0.5, 0.5, 1))
        check("CapY", SIMD3(-1, -2, -1), SIMD3(1, 2, 1))
        check("PlaneZ", SIMD3(-2, -3, 0), SIMD3(2, 3, 0))
        check("PlaneX", SIMD3(0, -3, -2), SIMD3(0, 3, 2))
        check("PlaneY", SIMD3(-2, 0, -3), SIMD3(2, 0, 3))
        #expect(scene.mesh(of: "S")?.triangleCount == 960)
        #expect(scene.mesh(of: "Cyl")?.triangleCount == 128)
        #expect(scene.mesh(of: "Cone")?.triangleCount == 64)
        #expect(scene.mesh(of: "Cap")?.triangleCount == 1024)
        #expect(scene.mesh(of: "PlaneZ")?.triangleCount == 2)
        for name in ["S", "DefaultCube", "Cyl", "Cone", "Cap", "CapY"] {
            expectOutward(try #require(scene.mesh(of: name)), name)
        }
        // Planes face +axis and are double-sided by default.
        for (name, axis) in [("PlaneZ", 2), ("PlaneX", 0), ("PlaneY", 1)] {
            let mesh = try #require(scene.mesh(of: name))
            #expect(mesh.normals[axis] == 1)
            let material = scene.materials[try #require(mesh.primitives[0].material).rawValue]
            #expect(material.doubleSided)
            let i = mesh.indices.map(Int.init)
            let p = i.prefix(3).map {
                SIMD3(mesh.positions[$0 * 3], mesh.positions[$0 * 3 + 1], mesh.positions[$0 * 3 + 2])
            }
            let e1 = p[1] - p[0]
            let e2 = p[2] - p[0]
            let cross = SIMD3(e1.y * e2.z - e1.z * e2.y, e1.z * e2.x - e1.x * e2.z, e1.x * e2.y - e1.y * e2.x)
            #expect(cross[axis] > 0)
        }
        // Normals are unit length.
        for mesh in scene.meshes {
            for v in 0..<mesh.vertexCount {
                let n = SIMD3(mesh.normals[v * 3], mesh.normals[v * 3 + 1], mesh.normals[v * 3 + 2])
                #expect(abs((n * n).sum() - 1) < 1e-5)
            }
        }
    }

    @Test func identicalGprimsShareAMeshAndDisplayColorBecomesAMaterial() throws {
        let s = TestStage()
        for name in ["A", "B"] {
            s.prim("/\(name)", "Cube") {
                $0.set("size", "double", .double(1))
                $0.set("primvars:displayColor", "color3f[]", StageValue.points([SIMD3(1, 0, 0)]))
            }
        }
        s.prim("/C", "Cube") { $0.set("size", "double", .double(1)) }
        let scene = try buildTestScene(s.build())
        #expect(scene.meshes.count == 2)
        #expect(scene.node("A")?.mesh == scene.node("B")?.mesh)
        let material = scene.materials[try #require(scene.mesh(of: "A")?.primitives[0].material).rawValue]
        #expect(material.baseColor == SIMD4(1, 0, 0, 1))
        #expect(scene.mesh(of: "C")?.primitives[0].material == nil)
        #expect(scene.instancedTriangleCount == 36)
    }

    @Test func invalidGprimParametersFallBack() throws {
        let s = TestStage()
        s.prim("/S", "Sphere") { $0.set("radius", "double", .double(.infinity)) }
        let scene = try buildTestScene(s.build())
        #expect(scene.hasWarning("USD_GPRIM_INVALID_PARAMETER"))
        let b = scene.worldBounds(of: "S")
        #expect(nearlyEqual(b.max, SIMD3(1, 1, 1), 1e-6))
    }
}
