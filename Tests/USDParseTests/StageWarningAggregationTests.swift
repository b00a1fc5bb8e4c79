import SceneModel
import Testing

@testable import USDParse

/// Repeated scene warnings are folded into counted ones, in first-occurrence order.
@Suite struct StageWarningAggregationTests {
    /// A PointInstancer with `n` instances whose positions are all NaN (one warning per instance
    /// before aggregation) and a prototype triangle.
    private func nanInstancer(_ s: TestStage, _ path: String, count n: Int) {
        s.prim(path, "PointInstancer") {
            $0.rel("prototypes", ["\(path)/Protos/Tri"])
            $0.set("protoIndices", "int[]", StageValue.ints([Int32](repeating: 0, count: n)))
            $0.set("positions", "point3f[]", StageValue.points([SIMD3<Float>](repeating: SIMD3(.nan, 0, 0), count: n)))
            // A second, differently worded finding with the same code on the same prim.
            $0.set("scales", "float3[]", StageValue.points([SIMD3(1, 1, 1)]))
        }
        s.prim("\(path)/Protos/Tri", "Mesh") {
            $0.mesh(points: [SIMD3(0, 0, 0), SIMD3(1, 0, 0), SIMD3(0, 1, 0)], counts: [3], indices: [0, 1, 2])
        }
    }

    private func count(_ w: SceneWarning) -> Int { WarningAggregator.repeatCount(in: w.message) }

    @Test func tenThousandInstanceWarningsBecomeOne() throws {
        let s = TestStage()
        nanInstancer(s, "/World/Inst", count: 10_000)
        let scene = try buildTestScene(s.build())
        #expect(scene.nodes.filter { $0.name.hasPrefix("Inst_") }.count == 10_000)
        let invalid = scene.warnings.filter { $0.code == "USD_POINTINSTANCER_INVALID" }
        #expect(invalid.count == 2, "\(invalid)")
        let nonFinite = try #require(invalid.first { $0.message.contains("non-finite") })
        #expect(nonFinite.message == "instance 0 has a non-finite transform; identity used (and 9999 more like it)")
        #expect(nonFinite.primPath == "/World/Inst")
        #expect(count(nonFinite) == 10_000)
        // The scales finding came first and happened once: unchanged, listed first.
        #expect(invalid[0].message == "scales shorter than protoIndices; ignored")
        #expect(count(invalid[0]) == 1)
    }

    @Test func distinctCodesAndPrimTypesStaySeparate() throws {
        let s = TestStage()
        for i in 0..<25 { s.prim("/Cams/C\(i)", "Camera") }
        for i in 0..<3 { s.prim("/Lights/L\(i)", "SphereLight") }
        for i in 0..<12 { s.prim("/Broken/M\(i)", "Mesh") { $0.set("points", "point3f[]", StageValue.points([])) } }
        nanInstancer(s, "/A", count: 50)
        nanInstancer(s, "/B", count: 7)
        let scene = try buildTestScene(s.build())

        let unsupported = scene.warnings.filter { $0.code == "USD_PRIM_UNSUPPORTED_TYPE" }
        let cams = unsupported.filter { $0.primPath?.hasPrefix("/Cams") == true }
        #expect(cams.map(\.primPath) == (0..<10).map { "/Cams/C\($0)" })
        #expect(cams.map(count) == [Int](repeating: 1, count: 9) + [16])
        #expect(cams.last?.message == "cameras are not converted (and 15 more like it)")

        let lights = unsupported.filter { $0.primPath?.hasPrefix("/Lights") == true }
        #expect(lights.map(\.primPath) == ["/Lights/L0", "/Lights/L1", "/Lights/L2"])
        #expect(lights.allSatisfy { count($0) == 1 })

        let meshes = scene.warnings.filter { $0.code == "USD_MESH_INVALID_TOPOLOGY" }
        #expect(meshes.count == 10)
        #expect(meshes.map(count).reduce(0, +) == 12)

        let nonFinite = scene.warnings.filter { $0.message.contains("non-finite") }
        #expect(nonFinite.map(\.primPath) == ["/A", "/B"])
        #expect(nonFinite.map(count) == [50, 7])
    }

    @Test func orderIsDeterministic() throws {
        func build() throws -> [SceneWarning] {
            let s = TestStage()
            for i in 0..<15 { s.prim("/Cams/C\(i)", "Camera") }
            nanInstancer(s, "/A", count: 100)
            return try buildTestScene(s.build()).warnings
        }
        #expect(try build() == build())
    }

    @Test func shapeIgnoresDigitRunsOnly() {
        #expect(WarningAggregator.shape(of: "instance 12 of 300") == "instance # of #")
        #expect(WarningAggregator.shape(of: "a1b22") == "a#b#")
        #expect(WarningAggregator.repeatCount(in: "x (and 41 more like it)") == 42)
        #expect(WarningAggregator.repeatCount(in: "x (and more like it)") == 1)
        #expect(WarningAggregator.repeatCount(in: "plain") == 1)
    }
}
