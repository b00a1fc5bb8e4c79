import SceneModel
import Testing

@testable import USDParse

@Suite struct StageMeshTests {
    private func cubeStage(_ edit: @escaping (inout UsdPrim) -> Void = { _ in }) -> UsdStage {
        let s = TestStage()
        s.prim("/Root", "Xform")
        s.prim("/Root/Box", "Mesh") {
            $0.mesh(points: testCubePoints, counts: testCubeCounts, indices: testCubeIndices)
            edit(&$0)
        }
        return s.build()
    }

    @Test func vertexInterpolatedCubePassesPointsThrough() throws {
        let normals = testCubePoints.map { p -> SIMD3<Float> in
            let l = (p * p).sum().squareRoot()
            return p / l
        }
        let scene = try buildTestScene(
            cubeStage { $0.set("normals", "normal3f[]", StageValue.points(normals), interpolation: "vertex") })
        let mesh = try #require(scene.mesh(of: "Box"))
        #expect(mesh.vertexCount == 8)
        #expect(mesh.triangleCount == 12)
        #expect(mesh.positions == testCubePoints.flatMap { [$0.x, $0.y, $0.z] })
        #expect(mesh.normals.count == 24)
        #expect(Array(mesh.indices.prefix(6)) == [0, 3, 2, 0, 2, 1])
        #expect(mesh.primitives == [Mesh.Primitive(indexStart: 0, indexCount: 36, material: nil)])
    }

    @Test func faceVaryingNormalsWeldTo24Vertices() throws {
        var fv: [SIMD3<Float>] = []
        for n in testCubeFaceNormals { fv += [n, n, n, n] }
        let scene = try buildTestScene(
            cubeStage { $0.set("primvars:normals", "normal3f[]", StageValue.points(fv), interpolation: "faceVarying") })
        let mesh = try #require(scene.mesh(of: "Box"))
        #expect(mesh.vertexCount == 24)
        #expect(mesh.triangleCount == 12)
        // Every triangle's normal equals its face's normal and its winding agrees with it.
        for t in 0..<12 {
            let i = (0..<3).map { Int(mesh.indices[t * 3 + $0]) }
            let p = i.map { SIMD3(mesh.positions[$0 * 3], mesh.positions[$0 * 3 + 1], mesh.positions[$0 * 3 + 2]) }
            let n = SIMD3(mesh.normals[i[0] * 3], mesh.normals[i[0] * 3 + 1], mesh.normals[i[0] * 3 + 2])
            let e1 = p[1] - p[0]
            let e2 = p[2] - p[0]
            let cross = SIMD3(e1.y * e2.z - e1.z * e2.y, e1.z * e2.x - e1.x * e2.z, e1.x * e2.y - e1.y * e2.x)
            #expect((cross * n).sum() > 0)
            #expect(n == testCubeFaceNormals[t / 2])
        }
    }

    /// Two unit quads side by side in z = 0, sharing the edge x = 1.
    static func twoQuadStrip(_ prim: inout UsdPrim) {
        prim.mesh(
            points: [SIMD3(0, 0, 0), SIMD3(1, 0, 0), SIMD3(2, 0, 0), SIMD3(0, 1, 0), SIMD3(1, 1, 0), SIMD3(2, 1, 0)],
            counts: [4, 4], indices: [0, 1, 4, 3, 1, 2, 5, 4])
    }

    @Test func indexedFaceVaryingUVsWeldAndFlipV() throws {
        // Two quads sharing an edge; st indexed so the shared edge has equal UVs on both faces.
        let s = TestStage()
        s.prim("/Strip", "Mesh") {
            Self.twoQuadStrip(&$0)
            $0.set(
                "primvars:st", "texCoord2f[]",
                StageValue.float2s([SIMD2(0, 0), SIMD2(0.5, 0), SIMD2(1, 0), SIMD2(0, 1), SIMD2(0.5, 1), SIMD2(1, 1)]),
                interpolation: "faceVarying")
            $0.set("primvars:st:indices", "int[]", StageValue.ints([0, 1, 4, 3, 1, 2, 5, 4]))
        }
        let scene = try buildTestScene(s.build())
        let mesh = try #require(scene.mesh(of: "Strip"))
        #expect(mesh.vertexCount == 6)  // the shared edge welds
        #expect(mesh.triangleCount == 4)
        #expect(Array(mesh.uv0.prefix(8)) == [0, 1, 0.5, 1, 0.5, 0, 0, 0])  // v' = 1 - v
    }

    @Test func distinctFaceVaryingValuesSplitVertices() throws {
        let s = TestStage()
        s.prim("/Strip", "Mesh") {
            Self.twoQuadStrip(&$0)
            // Per-face islands: the shared edge gets different UVs on each face.
            $0.set(
                "primvars:st", "texCoord2f[]",
                StageValue.float2s([
                    SIMD2(0, 0), SIMD2(1, 0), SIMD2(1, 1), SIMD2(0, 1), SIMD2(0, 0), SIMD2(1, 0), SIMD2(1, 1),
                    SIMD2(0, 1),
                ]),
                interpolation: "faceVarying")
        }
        let mesh = try #require(try buildTestScene(s.build()).mesh(of: "Strip"))
        #expect(mesh.vertexCount == 8)
    }

    @Test func uniformColorsOnUnboundMeshBecomeAColorStream() throws {
        let colors: [SIMD3<Float>] = [
            SIMD3(1, 0, 0), SIMD3(0, 1, 0), SIMD3(0, 0, 1), SIMD3(1, 1, 0), SIMD3(0, 1, 1), SIMD3(1, 0, 1),
        ]
        let scene = try buildTestScene(
            cubeStage {
                $0.set("primvars:displayColor", "color3f[]", StageValue.points(colors), interpolation: "uniform")
            })
        let mesh = try #require(scene.mesh(of: "Box"))
        #expect(mesh.vertexCount == 24)
        #expect(mesh.colors.count == 24 * 4)
        let first = Int(mesh.indices[0])
        #expect(Array(mesh.colors[(first * 4)..<(first * 4 + 4)]) == [1, 0, 0, 1])
        let material = scene.materials[try #require(mesh.primitives[0].material).rawValue]
        #expect(material.baseColor == SIMD4(1, 1, 1, 1))
    }

    @Test func varyingColorsCarryConstantOpacityInTheStreamOnly() throws {
        let colors = testCubePoints.map { ($0 + 1) / 2 }
        let scene = try buildTestScene(cubeStage {
            $0.set("primvars:displayColor", "color3f[]", StageValue.points(colors), interpolation: "vertex")
            $0.set("primvars:displayOpacity", "float[]", StageValue.floats([0.5]))
        })
        let mesh = try #require(scene.mesh(of: "Box"))
        #expect(mesh.vertexCount == 8)
        #expect(Array(mesh.colors.prefix(8)) == [0, 0, 0, 0.5, 1, 0, 0, 0.5])
        let material = scene.materials[try #require(mesh.primitives[0].material).rawValue]
        #expect(material.baseColor == SIMD4(1, 1, 1, 1) && material.alphaMode == .blend)
    }

    @Test func constantDisplayColorBecomesTheMaterialBaseColor() throws {
        let scene = try buildTestScene(
            cubeStage {
                $0.set("primvars:displayColor", "color3f[]", StageValue.points([SIMD3(0.25, 0.5, 0.75)]))
                $0.set("primvars:displayOpacity", "float[]", StageValue.floats([0.5]))
            })
        let mesh = try #require(scene.mesh(of: "Box"))
        #expect(mesh.colors.isEmpty)
        let material = scene.materials[try #require(mesh.primitives[0].material).rawValue]
        #expect(material.baseColor == SIMD4(0.25, 0.5, 0.75, 0.5))
        #expect(material.alphaMode == .blend)
        #expect(scene.materials.count == 1)
    }

    @Test func leftHandedOrientationFlipsWinding() throws {
        let s = TestStage()
        s.prim("/T", "Mesh") {
            $0.mesh(points: [SIMD3(0, 0, 0), SIMD3(1, 0, 0), SIMD3(0, 1, 0)], counts: [3], indices: [0, 1, 2])
            $0.set("orientation", "token", .token("leftHanded"), uniform: true)
        }
        s.prim("/Q", "Mesh") {
            $0.mesh(
                points: [SIMD3(0, 0, 0), SIMD3(1, 0, 0), SIMD3(1, 1, 0), SIMD3(0, 1, 0)], counts: [4],
                indices: [0, 1, 2, 3])
            $0.set("orientation", "token", .token("leftHanded"), uniform: true)
        }
        let scene = try buildTestScene(s.build())
        #expect(scene.mesh(of: "T")?.indices == [0, 2, 1])
        #expect(scene.mesh(of: "Q")?.indices == [0, 2, 1, 0, 3, 2])
    }

    @Test func concaveLHexagonMeshTriangulatesIntoFourTriangles() throws {
        let s = TestStage()
        s.prim("/Floor", "Mesh") {
            $0.mesh(
                points: [
                    SIMD3(0, 0, 0), SIMD3(2, 0, 0), SIMD3(2, 0, -1), SIMD3(1, 0, -1), SIMD3(1, 0, -2), SIMD3(0, 0, -2),
                ],
                counts: [6], indices: [0, 1, 2, 3, 4, 5])
        }
        let mesh = try #require(try buildTestScene(s.build()).mesh(of: "Floor"))
        #expect(mesh.triangleCount == 4)
        var area: Float = 0
        for t in 0..<4 {
            let p = (0..<3).map { k -> SIMD3<Float> in
                let i = Int(mesh.indices[t * 3 + k])
                return SIMD3(mesh.positions[i * 3], mesh.positions[i * 3 + 1], mesh.positions[i * 3 + 2])
            }
            let e1 = p[1] - p[0]
            let e2 = p[2] - p[0]
            let crossY = e1.z * e2.x - e1.x * e2.z
            #expect(crossY > 0)  // counter-clockwise seen from +Y, like the polygon
            area += crossY / 2
        }
        #expect(abs(area - 3) < 1e-6)
    }

    @Test func geomSubsetsSplitFacesIntoPrimitivesPerMaterial() throws {
        let s = TestStage()
        s.prim("/Root/Box", "Mesh") {
            $0.mesh(points: testCubePoints, counts: testCubeCounts, indices: testCubeIndices)
            $0.rel("material:binding", ["/Root/Looks/Base"])
        }
        s.prim("/Root/Box/top", "GeomSubset") {
            $0.set("familyName", "token", .token("materialBind"), uniform: true)
            $0.set("elementType", "token", .token("face"), uniform: true)
            $0.set("indices", "int[]", StageValue.ints([3]))
            $0.rel("material:binding", ["/Root/Looks/Red"])
        }
        s.prim("/Root/Box/sides", "GeomSubset") {
            $0.set("familyName", "token", .token("materialBind"), uniform: true)
            $0.set("indices", "int[]", StageValue.ints([4, 5, 99]))
            $0.rel("material:binding", ["/Root/Looks/Blue"])
        }
        for (name, color) in [
            ("Base", StageValue.float3(0.5, 0.5, 0.5)), ("Red", StageValue.float3(1, 0, 0)),
            ("Blue", StageValue.float3(0, 0, 1)),
        ] {
            addPreviewMaterial(s, "/Root/Looks/\(name)", diffuse: color)
        }
        let scene = try buildTestScene(s.build())
        let mesh = try #require(scene.mesh(of: "Box"))
        #expect(mesh.primitives.count == 3)
        #expect(mesh.primitives.map(\.indexCount) == [6, 12, 18])
        #expect(mesh.primitives.map(\.indexStart) == [0, 6, 18])
        let names = mesh.primitives.map { scene.materials[$0.material!.rawValue].name }
        #expect(names == ["Red", "Blue", "Base"])
        // The top face's triangles come first.
        let ys = mesh.indices.prefix(6).map { mesh.positions[Int($0) * 3 + 1] }
        #expect(ys.allSatisfy { $0 == 1 })
        #expect(scene.hasWarning("USD_GEOMSUBSET_INVALID_INDICES"))
        // Root, Box and the Looks group: subsets, materials and shaders are not nodes.
        #expect(scene.nodes.map(\.name) == ["Root", "Box", "Looks"])
    }

    @Test func doubleSidedMeshGetsADoubleSidedMaterialCopy() throws {
        let s = TestStage()
        s.prim("/A", "Mesh") {
            $0.mesh(points: [SIMD3(0, 0, 0), SIMD3(1, 0, 0), SIMD3(0, 1, 0)], counts: [3], indices: [0, 1, 2])
            $0.set("doubleSided", "bool", .bool(true), uniform: true)
            $0.rel("material:binding", ["/M"])
        }
        s.prim("/B", "Mesh") {
            $0.mesh(points: [SIMD3(0, 0, 0), SIMD3(1, 0, 0), SIMD3(0, 1, 0)], counts: [3], indices: [0, 1, 2])
            $0.rel("material:binding", ["/M"])
        }
        addPreviewMaterial(s, "/M", diffuse: StageValue.float3(0.2, 0.3, 0.4))
        let scene = try buildTestScene(s.build())
        let a = scene.materials[try #require(scene.mesh(of: "A")?.primitives[0].material).rawValue]
        let b = scene.materials[try #require(scene.mesh(of: "B")?.primitives[0].material).rawValue]
        #expect(a.doubleSided && a.name == "M_doubleSided")
        #expect(!b.doubleSided && b.name == "M")
        #expect(a.baseColor == b.baseColor)
        #expect(scene.materials.count == 2)
    }

    @Test func badIndicesSkipTheMeshWithAWarning() throws {
        let s = TestStage()
        s.prim("/Bad", "Mesh") {
            $0.mesh(points: [SIMD3(0, 0, 0), SIMD3(1, 0, 0), SIMD3(0, 1, 0)], counts: [3], indices: [0, 1, 7])
        }
        s.prim("/Sum", "Mesh") {
            $0.mesh(points: [SIMD3(0, 0, 0), SIMD3(1, 0, 0), SIMD3(0, 1, 0)], counts: [4], indices: [0, 1, 2])
        }
        s.prim("/Neg", "Mesh") {
            $0.mesh(points: [SIMD3(0, 0, 0), SIMD3(1, 0, 0), SIMD3(0, 1, 0)], counts: [3], indices: [0, -1, 2])
        }
        s.prim("/NegCount", "Mesh") { $0.mesh(points: [SIMD3(0, 0, 0)], counts: [-3, 6], indices: [0, 0, 0]) }
        s.prim("/NaN", "Mesh") {
            $0.mesh(points: [SIMD3(0, 0, 0), SIMD3(.nan, 0, 0), SIMD3(0, 1, 0)], counts: [3], indices: [0, 1, 2])
        }
        s.prim("/Missing", "Mesh") { $0.set("points", "point3f[]", StageValue.points([SIMD3(0, 0, 0)])) }
        s.prim("/Wide", "Mesh") {
            $0.mesh(points: [SIMD3(0, 0, 0), SIMD3(1, 0, 0), SIMD3(0, 1, 0)], counts: [3], indices: [])
            $0.set("faceVertexIndices", "int64[]", .array(.int64, .int64([0, 1, 1 << 40])))
        }
        let scene = try buildTestScene(s.build())
        #expect(scene.meshes.isEmpty)
        #expect(scene.nodes.count == 7)  // nodes survive without meshes
        let codes = scene.warnings.map(\.code)
        #expect(codes.filter { $0 == "USD_MESH_INVALID_TOPOLOGY" }.count == 6)
        #expect(codes.contains("USD_MESH_NONFINITE"))
        #expect(scene.warnings.first { $0.code == "USD_MESH_NONFINITE" }?.primPath == "/NaN")
    }

    @Test func holesAndShortFacesAreSkipped() throws {
        let s = TestStage()
        s.prim("/H", "Mesh") {
            $0.mesh(
                points: [SIMD3(0, 0, 0), SIMD3(1, 0, 0), SIMD3(1, 1, 0), SIMD3(0, 1, 0)], counts: [3, 2, 3, 3],
                indices: [0, 1, 2, 0, 1, 0, 2, 3, 1, 2, 3])
            $0.set("holeIndices", "int[]", StageValue.ints([2, 42, -1]))
        }
        let scene = try buildTestScene(s.build())
        let mesh = try #require(scene.mesh(of: "H"))
        #expect(mesh.indices == [0, 1, 2, 1, 2, 3])
        #expect(scene.hasWarning("USD_MESH_DEGENERATE_FACES"))
    }

    @Test func invalidPrimvarsAreDroppedNotFatal() throws {
        let scene = try buildTestScene(
            cubeStage {
                $0.set("normals", "normal3f[]", StageValue.points([SIMD3(0, 1, 0)]), interpolation: "faceVarying")
                $0.set("primvars:st", "texCoord2f[]", StageValue.float2s([SIMD2(0, 0)]), interpolation: "vertex")
                $0.set("primvars:st:indices", "int[]", StageValue.ints([0, 0, 0, 0, 0, 0, 0, 9]))
                $0.set("subdivisionScheme", "token", .token("catmullClark"), uniform: true)
            })
        let mesh = try #require(scene.mesh(of: "Box"))
        #expect(mesh.normals.isEmpty && mesh.uv0.isEmpty)
        #expect(scene.warnings.filter { $0.code == "USD_PRIMVAR_INVALID" }.count == 2, "\(scene.warnings)")
        #expect(scene.hasWarning("USD_MESH_SUBDIVISION_CAGE"))
    }

    @Test func maxTrianglesBreachThrowsLimitExceeded() {
        var limits = ParseLimits()
        limits.maxTriangles = 11
        #expect(throws: USDParseError.self) { try buildTestScene(cubeStage(), limits: limits) }
        do {
            _ = try buildTestScene(cubeStage(), limits: limits)
        } catch let error as USDParseError {
            #expect(error.code == .limitExceeded)
            #expect(error.primPath == "/Root/Box")
        } catch {
            Issue.record("unexpected error \(error)")
        }
        limits.maxTriangles = 12
        #expect(throws: Never.self) { try buildTestScene(cubeStage(), limits: limits) }
    }

    @Test func memoryBudgetIsCharged() {
        var limits = ParseLimits()
        limits.memoryBudgetBytes = 100
        do {
            _ = try buildTestScene(cubeStage(), limits: limits)
            Issue.record("expected a budget error")
        } catch let error as USDParseError {
            #expect(error.code == .memoryBudgetExceeded)
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }
}

/// Adds a Material with a UsdPreviewSurface whose diffuseColor is `diffuse`.
func addPreviewMaterial(_ s: TestStage, _ path: String, diffuse: SdfValue, extra: (inout UsdPrim) -> Void = { _ in }) {
    s.prim(path, "Material") { $0.connect("outputs:surface", to: path + "/PBR.outputs:surface") }
    s.prim(path + "/PBR", "Shader") {
        $0.set("info:id", "token", .token("UsdPreviewSurface"), uniform: true)
        $0.set("inputs:diffuseColor", "color3f", diffuse)
        $0.set("outputs:surface", "token", .token(""))
        extra(&$0)
    }
}
