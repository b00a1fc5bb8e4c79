import SceneModel
import Testing

@testable import USDParse

@Suite struct StageHostileMeshTests {
    /// Random, mostly malformed meshes: the conversion must never trap and must always produce a
    /// scene the validator accepts.
    @Test func randomMalformedMeshesNeverTrap() throws {
        var rng = SplitMix64(seed: 2024)
        func r(_ n: Int) -> Int { Int(rng.next() % UInt64(max(n, 1))) }
        let interpolations = ["constant", "uniform", "vertex", "varying", "faceVarying", "bogus"]
        var produced = 0
        var streams = 0
        for round in 0..<150 {
            let s = TestStage()
            // Half of the meshes have valid topology so the primvar and assembly paths run too.
            let corrupt = r(2) == 0
            let pointCount = 3 + r(10)
            let faces = 1 + r(6)
            var counts: [Int32] = []
            for _ in 0..<faces { counts.append(Int32(3 + r(4)) - (corrupt && r(4) == 0 ? Int32(r(8)) : 0)) }
            let cornerTotal = max(0, counts.reduce(0) { $0 + Int($1) } + (corrupt && r(3) == 0 ? r(3) - 1 : 0))
            let indices = (0..<cornerTotal).map { _ in
                Int32(r(pointCount + (corrupt ? 2 : 0))) - (corrupt && r(10) == 0 ? 3 : 0)
            }
            let pts = (0..<pointCount).map { _ in
                SIMD3<Float>(Float(r(5)), Float(r(5)), corrupt && r(10) == 0 ? .nan : Float(r(5)))
            }
            func randomValues(_ comps: Int) -> [Float] {
                (0..<(r(30) * comps)).map { _ in r(25) == 0 ? .infinity : Float(r(4)) / 2 }
            }
            s.prim("/M\(round)", "Mesh") {
                $0.mesh(points: pts, counts: counts, indices: indices)
                for (name, comps, type) in [
                    ("primvars:normals", 3, "normal3f[]"), ("primvars:st", 2, "texCoord2f[]"),
                    ("primvars:displayColor", 3, "color3f[]"), ("primvars:displayOpacity", 1, "float[]"),
                ] where r(2) == 0 {
                    let value: SdfValue =
                        comps == 1
                        ? StageValue.floats(randomValues(1))
                        : .array(comps == 2 ? .float2 : .float3, .float(randomValues(comps)))
                    $0.set(name, type, value, interpolation: interpolations[r(interpolations.count)])
                    if r(2) == 0 {
                        $0.set(name + ":indices", "int[]", StageValue.ints((0..<r(40)).map { _ in Int32(r(8)) - 1 }))
                    }
                }
                if r(3) == 0 { $0.set("holeIndices", "int[]", StageValue.ints([Int32(r(8)) - 2])) }
                if r(3) == 0 { $0.set("orientation", "token", .token("leftHanded"), uniform: true) }
                if r(3) == 0 { $0.set("doubleSided", "bool", .bool(true), uniform: true) }
            }
            if r(2) == 0 {
                s.prim("/M\(round)/sub", "GeomSubset") {
                    $0.set("familyName", "token", .token("materialBind"), uniform: true)
                    $0.set("indices", "int[]", StageValue.ints((0..<r(5)).map { _ in Int32(r(9)) - 2 }))
                }
            }
            let scene = try buildTestScene(s.build())
            produced += scene.meshes.count
            streams += scene.meshes.filter { !$0.normals.isEmpty || !$0.uv0.isEmpty || !$0.colors.isEmpty }.count
        }
        // The generator must reach the assembly code, not only the validation.
        #expect(produced > 20 && streams > 5)
    }

    @Test func hostilePrimvarMetadataIsRejectedQuietly() throws {
        let s = TestStage()
        s.prim("/T", "Mesh") {
            $0.mesh(points: [SIMD3(0, 0, 0), SIMD3(1, 0, 0), SIMD3(0, 1, 0)], counts: [3], indices: [0, 1, 2])
            $0.set("normals", "normal3f[]", StageValue.points([SIMD3(0, 0, 0), SIMD3(.nan, 0, 0), SIMD3(0, 0, 5)]))
            $0.set("primvars:st", "texCoord2f[]", StageValue.float2s([SIMD2(0, 0)]), interpolation: "constant")
            $0.attributes["primvars:st"]!.metadata["elementSize"] = .double(1e300)
        }
        let scene = try buildTestScene(s.build())
        let mesh = try #require(scene.mesh(of: "T"))
        #expect(mesh.normals == [0, 1, 0, 0, 1, 0, 0, 0, 1])
        #expect(mesh.uv0.isEmpty)
        #expect(scene.hasWarning("USD_PRIMVAR_INVALID"))
    }
}
