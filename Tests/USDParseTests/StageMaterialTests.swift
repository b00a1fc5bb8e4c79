import SceneModel
import Testing

@testable import USDParse

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite struct StageMaterialTests {
    private let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3]
    private let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 9, 9]

    private func triangle(_ p: inout UsdPrim) {
        p.mesh(points: [SIMD3(0, 0, 0), SIMD3(1, 0, 0), SIMD3(0, 1, 0)], counts: [3], indices: [0, 1, 2])
        p.set(
            "primvars:st", "texCoord2f[]", StageValue.float2s([SIMD2(0, 0), SIMD2(1, 0), SIMD2(0, 1)]),
            interpolation: "vertex")
    }

    private func material(_ scene: Scene, _ node: String) throws -> Material {
        let mesh = try #require(scene.mesh(of: node))
        return scene.materials[try #require(mesh.primitives[0].material).rawValue]
    }

    @Test func bindingInheritsAndStrongerThanDescendantsWins() throws {
        let s = TestStage()
        s.prim("/Root", "Xform") { $0.rel("material:binding", ["/Looks/M1"]) }
        s.prim("/Root/A", "Mesh") { triangle(&$0) }
        s.prim("/Root/B", "Mesh") {
            triangle(&$0)
            $0.rel("material:binding", ["/Looks/M2"])
        }
        s.prim("/Strong", "Xform") {
            $0.rel("material:binding", ["/Looks/M3"], metadata: ["bindMaterialAs": .token("strongerThanDescendants")])
        }
        s.prim("/Strong/C", "Mesh") {
            triangle(&$0)
            $0.rel("material:binding", ["/Looks/M2"])
        }
        s.prim("/D", "Mesh") {
            triangle(&$0)
            $0.rel("material:binding", ["/Looks/M1"])
            $0.rel("material:binding:preview", ["/Looks/M3"])
        }
        for name in ["M1", "M2", "M3"] {
            addPreviewMaterial(s, "/Looks/\(name)", diffuse: StageValue.float3(0.1, 0.2, 0.3))
        }
        let scene = try buildTestScene(s.build())
        #expect(try material(scene, "A").name == "M1")
        #expect(try material(scene, "B").name == "M2")
        #expect(try material(scene, "C").name == "M3")
        #expect(try material(scene, "D").name == "M3")
        // One material per Material prim, in first-use order.
        #expect(scene.materials.map(\.name) == ["M1", "M2", "M3"])
        #expect(scene.materials[0].sourcePath == "/Looks/M1")
        #expect(scene.materials[0].baseColor == SIMD4(0.1, 0.2, 0.3, 1))
    }

    /// A textured material: albedo (with UsdTransform2d and wrap modes), roughness from another
    /// texture's G channel, a normal map and an occlusion map that reuses the albedo file.
    private func texturedStage(rotation: Double = 0) -> UsdStage {
        let s = TestStage()
        s.prim("/Model/Mesh", "Mesh") {
            triangle(&$0)
            $0.rel("material:binding", ["/Model/Mat"])
        }
        let m = "/Model/Mat"
        addPreviewMaterial(s, m, diffuse: StageValue.float3(0.9, 0.9, 0.9)) {
            $0.connect("inputs:diffuseColor", "color3f", to: m + "/Albedo.outputs:rgb")
            $0.connect("inputs:roughness", "float", to: m + "/Rough.outputs:g")
            $0.connect("inputs:normal", "normal3f", to: m + "/Normal.outputs:rgb")
            $0.connect("inputs:occlusion", "float", to: m + "/Occ.outputs:r")
            $0.set("inputs:metallic", "float", .float(0.25))
            $0.set("inputs:emissiveColor", "color3f", StageValue.float3(0.5, 0.25, 0))
        }
        func texture(_ name: String, _ file: String, _ edit: (inout UsdPrim) -> Void = { _ in }) {
            s.prim(m + "/" + name, "Shader") {
                $0.set("info:id", "token", .token("UsdUVTexture"), uniform: true)
                $0.set("inputs:file", "asset", .asset(file), layer: "assets/model.usda")
                $0.connect("inputs:st", "float2", to: m + "/Reader.outputs:result")
                edit(&$0)
            }
        }
        texture("Albedo", "./tex/albedo.png") {
            $0.connect("inputs:st", "float2", to: m + "/Place.outputs:result")
            $0.set("inputs:wrapS", "token", .token("clamp"))
            $0.set("inputs:wrapT", "token", .token("mirror"))
        }
        texture("Rough", "./tex/rough.jpg") { $0.set("inputs:wrapS", "token", .token("useMetadata")) }
        texture("Normal", "./tex/normal.png") {
            $0.set("inputs:scale", "float4", StageValue.float4([2, 2, 2, 1]))
            $0.set("inputs:bias", "float4", StageValue.float4([-1, -1, -1, 0]))
        }
        texture("Occ", "./tex/albedo.png")
        s.prim(m + "/Place", "Shader") {
            $0.set("info:id", "token", .token("UsdTransform2d"), uniform: true)
            $0.connect("inputs:in", "float2", to: m + "/Reader.outputs:result")
            $0.set("inputs:scale", "float2", StageValue.float2(2, 2))
            $0.set("inputs:rotation", "float", .float(Float(rotation)))
            $0.set("inputs:translation", "float2", StageValue.float2(0.5, 0.25))
        }
        s.prim(m + "/Reader", "Shader") {
            $0.set("info:id", "token", .token("UsdPrimvarReader_float2"), uniform: true)
            $0.set("inputs:varname", "token", .token("st"))
        }
        return s.build()
    }

    @Test func previewSurfaceMapsTexturesTransformsAndWrapModes() throws {
        var calls: [String] = []
        let assets = ["./tex/albedo.png": png, "./tex/rough.jpg": jpeg, "./tex/normal.png": png + [7]]
        let scene = try buildTestScene(texturedStage(), assets: assets, loaded: { calls.append("\($0)@\($1)") })
        let mat = try material(scene, "Mesh")
        #expect(scene.textures.count == 3)  // albedo reused by occlusion
        #expect(calls.count == 3 && calls.allSatisfy { $0.hasSuffix("@assets/model.usda") })
        let albedo = try #require(mat.baseColorTexture)
        #expect(scene.textures[albedo.texture.rawValue].mimeType == "image/png")
        #expect(scene.textures[albedo.texture.rawValue].sourcePath == "assets/tex/albedo.png")
        #expect(albedo.wrapS == .clamp && albedo.wrapT == .mirror && albedo.channel == "rgb")
        // Scale (2,2) then translate (0.5,0.25) in USD's v-up space, re-expressed for v' = 1 − v.
        #expect(albedo.uvTransform == UVTransform(translation: SIMD2(0.5, -1.25), rotation: 0, scale: SIMD2(2, 2)))
        #expect(mat.baseColor == SIMD4(1, 1, 1, 1))
        let rough = try #require(mat.metallicRoughnessTexture)
        #expect(rough.channel == "g" && rough.wrapS == .repeatTexture && rough.uvTransform == nil)
        #expect(scene.textures[rough.texture.rawValue].mimeType == "image/jpeg")
        #expect(mat.roughness == 1 && mat.metallic == 0.25)
        let normal = try #require(mat.normalTexture)
        #expect(normal.scale == SIMD4(2, 2, 2, 1) && normal.bias == SIMD4(-1, -1, -1, 0) && mat.normalScale == 1)
        #expect(mat.occlusionTexture?.texture == albedo.texture && mat.occlusionTexture?.channel == "r")
        #expect(mat.emissive == SIMD3(0.5, 0.25, 0))
        #expect(mat.alphaMode == .opaque)
        #expect(scene.mesh(of: "Mesh")?.uv0 == [0, 1, 1, 1, 0, 0])
    }

    @Test func uvTransformWithRotationMatchesUSDAfterTheVFlip() throws {
        let assets = ["./tex/albedo.png": png, "./tex/rough.jpg": jpeg, "./tex/normal.png": png]
        let scene = try buildTestScene(texturedStage(rotation: 30), assets: assets)
        let t = try #require(try material(scene, "Mesh").baseColorTexture?.uvTransform)
        // USD: p' = T + R(θ)·S·p in v-up space. Ours must satisfy flip(p') = T' + R(ρ)·S'·flip(p).
        let theta = 30 * Double.pi / 180
        for p in [SIMD2(0.0, 0.0), SIMD2(1, 0), SIMD2(0.3, 0.7), SIMD2(-2, 5)] {
            let s = SIMD2(p.x * 2, p.y * 2)
            let usd = SIMD2(0.5 + s.x * cos(theta) - s.y * sin(theta), 0.25 + s.x * sin(theta) + s.y * cos(theta))
            let expected = SIMD2(usd.x, 1 - usd.y)
            let q = SIMD2(p.x, 1 - p.y)
            let sq = SIMD2(q.x * Double(t.scale.x), q.y * Double(t.scale.y))
            let rho = Double(t.rotation)
            let ours = SIMD2(
                Double(t.translation.x) + sq.x * cos(rho) - sq.y * sin(rho),
                Double(t.translation.y) + sq.x * sin(rho) + sq.y * cos(rho))
            #expect(abs(ours.x - expected.x) < 1e-5 && abs(ours.y - expected.y) < 1e-5)
        }
    }

    @Test func missingTextureKeepsTheFactorAndWarns() throws {
        let scene = try buildTestScene(texturedStage(), assets: [:])
        let mat = try material(scene, "Mesh")
        #expect(mat.baseColorTexture == nil && mat.normalTexture == nil)
        #expect(mat.baseColor == SIMD4(0.9, 0.9, 0.9, 1))
        #expect(scene.textures.isEmpty)
        // One warning per distinct file, not per use.
        #expect(scene.warnings.filter { $0.code == "USD_TEXTURE_NOT_FOUND" }.count == 3)
    }

    @Test func opacityAndThresholdSelectAlphaModes() throws {
        let s = TestStage()
        for (name, opacity, threshold) in [("Glass", Float(0.4), Float(0)), ("Leaf", 0.4, 0.5), ("Solid", 1, 0)] {
            s.prim("/\(name)", "Mesh") {
                triangle(&$0)
                $0.rel("material:binding", ["/M\(name)"])
            }
            addPreviewMaterial(s, "/M\(name)", diffuse: StageValue.float3(1, 1, 1)) {
                $0.set("inputs:opacity", "float", .float(opacity))
                $0.set("inputs:opacityThreshold", "float", .float(threshold))
            }
        }
        let scene = try buildTestScene(s.build())
        let glass = try material(scene, "Glass")
        #expect(glass.alphaMode == .blend && glass.opacity == 0.4 && glass.baseColor.w == 0.4)
        #expect(try material(scene, "Leaf").alphaMode == .mask(cutoff: 0.5))
        #expect(try material(scene, "Solid").alphaMode == .opaque)
    }

    @Test func blackWrapIsClampWithAWarning() throws {
        let s = TestStage()
        s.prim("/Mesh", "Mesh") {
            triangle(&$0)
            $0.rel("material:binding", ["/Mat"])
        }
        addPreviewMaterial(s, "/Mat", diffuse: StageValue.float3(1, 1, 1)) {
            $0.connect("inputs:diffuseColor", "color3f", to: "/Mat/Tex.outputs:rgb")
            $0.connect("inputs:opacity", "float", to: "/Mat/Tex.outputs:a")
        }
        s.prim("/Mat/Tex", "Shader") {
            $0.set("info:id", "token", .token("UsdUVTexture"), uniform: true)
            $0.set("inputs:file", "asset", .asset("a.png"))
            $0.set("inputs:wrapS", "token", .token("black"))
        }
        let scene = try buildTestScene(s.build(), assets: ["a.png": png])
        let mat = try material(scene, "Mesh")
        #expect(mat.baseColorTexture?.wrapS == .clamp && mat.baseColorTexture?.wrapT == .repeatTexture)
        #expect(mat.alphaMode == .blend)  // alpha from the base-colour texture
        #expect(scene.hasWarning("USD_TEXTURE_WRAP_BLACK"))
    }

    @Test func interfaceInputsAndStringVarnameSelectTheUVSet() throws {
        let s = TestStage()
        s.prim("/Mesh", "Mesh") {
            triangle(&$0)
            $0.set(
                "primvars:uvSet2", "texCoord2f[]",
                StageValue.float2s([SIMD2(0.5, 0.5), SIMD2(0.5, 0.5), SIMD2(0.5, 0.5)]), interpolation: "vertex")
            $0.rel("material:binding", ["/Mat"])
        }
        s.prim("/Mat", "Material") {
            $0.connect("outputs:surface", to: "/Mat/PBR.outputs:surface")
            $0.set("inputs:tint", "color3f", StageValue.float3(0.2, 0.4, 0.6))
            $0.set("inputs:frame:stPrimvarName", "string", .string("uvSet2"))
        }
        s.prim("/Mat/PBR", "Shader") {
            $0.set("info:id", "token", .token("UsdPreviewSurface"), uniform: true)
            $0.connect("inputs:diffuseColor", "color3f", to: "/Mat.inputs:tint")
            $0.connect("inputs:emissiveColor", "color3f", to: "/Mat/Tex.outputs:rgb")
        }
        s.prim("/Mat/Tex", "Shader") {
            $0.set("info:id", "token", .token("UsdUVTexture"), uniform: true)
            $0.set("inputs:file", "asset", .asset("e.png"))
            $0.connect("inputs:st", "float2", to: "/Mat/Reader.outputs:result")
        }
        s.prim("/Mat/Reader", "Shader") {
            $0.set("info:id", "token", .token("UsdPrimvarReader_float2"), uniform: true)
            $0.connect("inputs:varname", "string", to: "/Mat.inputs:frame:stPrimvarName")
        }
        let scene = try buildTestScene(s.build(), assets: ["e.png": png])
        let mat = try material(scene, "Mesh")
        #expect(mat.baseColor == SIMD4(0.2, 0.4, 0.6, 1))
        #expect(mat.emissiveTexture != nil && mat.emissive == SIMD3(1, 1, 1))
        #expect(scene.mesh(of: "Mesh")?.uv0 == [0.5, 0.5, 0.5, 0.5, 0.5, 0.5])
    }

    @Test func unsupportedNetworksGiveNamedDefaultsWithWarnings() throws {
        let s = TestStage()
        for (name, mat) in [("X", "/MtlxOnly"), ("S", "/Spec"), ("N", "/NotAMaterial")] {
            s.prim("/\(name)", "Mesh") {
                triangle(&$0)
                $0.rel("material:binding", [mat])
            }
        }
        s.prim("/MtlxOnly", "Material") { $0.connect("outputs:mtlx:surface", to: "/MtlxOnly/S.outputs:out") }
        s.prim("/MtlxOnly/S", "Shader") { $0.set("info:id", "token", .token("ND_standard_surface_surfaceshader")) }
        addPreviewMaterial(s, "/Spec", diffuse: StageValue.float3(1, 0, 0)) {
            $0.set("inputs:useSpecularWorkflow", "int", .int(1))
            $0.set("inputs:metallic", "float", .float(1))
        }
        s.prim("/NotAMaterial", "Xform")
        let scene = try buildTestScene(s.build())
        let x = try material(scene, "X")
        #expect(x.name == "MtlxOnly" && x.baseColor == SIMD4(0.18, 0.18, 0.18, 1))
        #expect(
            scene.warnings.contains { $0.code == "USD_MATERIAL_UNSUPPORTED_SHADER" && $0.message.contains("MaterialX") })
        #expect(try material(scene, "S").metallic == 0)
        #expect(scene.hasWarning("USD_MATERIAL_SPECULAR_WORKFLOW"))
        #expect(scene.mesh(of: "N")?.primitives[0].material == nil)
        #expect(scene.hasWarning("USD_MATERIAL_BINDING_INVALID"))
    }

    @Test func primvarReaderOnDiffuseUsesVertexColors() throws {
        let s = TestStage()
        s.prim("/Mesh", "Mesh") {
            triangle(&$0)
            $0.set(
                "primvars:displayColor", "color3f[]",
                StageValue.points([SIMD3(1, 0, 0), SIMD3(0, 1, 0), SIMD3(0, 0, 1)]), interpolation: "vertex")
            $0.rel("material:binding", ["/Mat"])
        }
        addPreviewMaterial(s, "/Mat", diffuse: StageValue.float3(0, 0, 0)) {
            $0.connect("inputs:diffuseColor", "color3f", to: "/Mat/Color.outputs:result")
        }
        s.prim("/Mat/Color", "Shader") {
            $0.set("info:id", "token", .token("UsdPrimvarReader_float3"), uniform: true)
            $0.set("inputs:varname", "token", .token("displayColor"))
        }
        let scene = try buildTestScene(s.build())
        let mesh = try #require(scene.mesh(of: "Mesh"))
        #expect(mesh.colors == [1, 0, 0, 1, 0, 1, 0, 1, 0, 0, 1, 1])
        #expect(try material(scene, "Mesh").baseColor == SIMD4(1, 1, 1, 1))
    }

    @Test func packedMetallicRoughnessTextureAndMissingTextureFactors() throws {
        let s = TestStage()
        for (name, file) in [("Packed", "orm.png"), ("Missing", "none.png")] {
            s.prim("/\(name)", "Mesh") {
                triangle(&$0)
                $0.rel("material:binding", ["/Mat\(name)"])
            }
            addPreviewMaterial(s, "/Mat\(name)", diffuse: StageValue.float3(1, 1, 1)) {
                $0.connect("inputs:roughness", "float", to: "/Mat\(name)/ORM.outputs:g")
                $0.connect("inputs:metallic", "float", to: "/Mat\(name)/ORM.outputs:b")
                $0.connect("inputs:emissiveColor", "color3f", to: "/Mat\(name)/ORM.outputs:rgb")
                $0.set("inputs:roughness", "float", .float(0.7))
                $0.set("inputs:metallic", "float", .float(0.3))
                $0.set("inputs:emissiveColor", "color3f", StageValue.float3(0.1, 0.1, 0.1))
            }
            s.prim("/Mat\(name)/ORM", "Shader") {
                $0.set("info:id", "token", .token("UsdUVTexture"), uniform: true)
                $0.set("inputs:file", "asset", .asset(file))
            }
        }
        let scene = try buildTestScene(s.build(), assets: ["orm.png": png])
        let packed = try material(scene, "Packed")
        #expect(packed.metallicRoughnessTexture?.channel == "g")
        #expect(packed.metallic == 1 && packed.roughness == 1)
        let missing = try material(scene, "Missing")
        #expect(missing.metallicRoughnessTexture == nil && missing.emissiveTexture == nil)
        #expect(missing.metallic == 0.3 && missing.roughness == 0.7)
        #expect(missing.emissive == SIMD3(0.1, 0.1, 0.1))
    }

    @Test func nodeGraphOutputsAreFollowedAndConnectionCyclesTerminate() throws {
        let s = TestStage()
        for name in ["A", "B"] {
            s.prim("/\(name)", "Mesh") {
                triangle(&$0)
                $0.rel("material:binding", ["/Mat\(name)"])
            }
        }
        addPreviewMaterial(s, "/MatA", diffuse: StageValue.float3(0, 0, 0)) {
            $0.connect("inputs:diffuseColor", "color3f", to: "/MatA/Graph.outputs:albedo")
        }
        s.prim("/MatA/Graph", "NodeGraph") {
            $0.connect("outputs:albedo", "color3f", to: "/MatA/Graph/Tex.outputs:rgb")
        }
        s.prim("/MatA/Graph/Tex", "Shader") {
            $0.set("info:id", "token", .token("UsdUVTexture"), uniform: true)
            $0.set("inputs:file", "asset", .asset("a.png"))
        }
        addPreviewMaterial(s, "/MatB", diffuse: StageValue.float3(0.5, 0.5, 0.5)) {
            $0.connect("inputs:diffuseColor", "color3f", to: "/MatB.inputs:x")
        }
        s.prim("/MatB") {
            $0.connect("inputs:x", "color3f", to: "/MatB.inputs:y")
            $0.connect("inputs:y", "color3f", to: "/MatB.inputs:x")
        }
        let scene = try buildTestScene(s.build(), assets: ["a.png": png])
        #expect(try material(scene, "A").baseColorTexture != nil)
        // The cycle is cut at the depth cap; the last value authored on the chain (the shader's own) wins.
        #expect(try material(scene, "B").baseColor == SIMD4(0.5, 0.5, 0.5, 1))
    }

    @Test func textureBytesAreDeduplicatedAcrossPaths() throws {
        let s = TestStage()
        s.prim("/Mesh", "Mesh") {
            triangle(&$0)
            $0.rel("material:binding", ["/Mat"])
        }
        addPreviewMaterial(s, "/Mat", diffuse: StageValue.float3(1, 1, 1)) {
            $0.connect("inputs:diffuseColor", "color3f", to: "/Mat/A.outputs:rgb")
            $0.connect("inputs:emissiveColor", "color3f", to: "/Mat/B.outputs:rgb")
        }
        for (name, file) in [("A", "one.png"), ("B", "copy.png")] {
            s.prim("/Mat/\(name)", "Shader") {
                $0.set("info:id", "token", .token("UsdUVTexture"), uniform: true)
                $0.set("inputs:file", "asset", .asset(file))
            }
        }
        let scene = try buildTestScene(s.build(), assets: ["one.png": png, "copy.png": png])
        #expect(scene.textures.count == 1)
        let mat = try material(scene, "Mesh")
        #expect(mat.baseColorTexture?.texture == mat.emissiveTexture?.texture)
    }
}
