import SceneModel
import Testing

@testable import GLBWriter

/// Materials, textures, samplers and images.
@Suite struct MaterialTests {
    func pbr(_ reader: GLBTestReader, _ i: Int = 0) -> [String: Any] {
        reader.materials[i]["pbrMetallicRoughness"] as? [String: Any] ?? [:]
    }

    func texturedRoom(_ material: Material, textures: [Texture]) -> LayeredScene {
        singleMeshRoom(Meshes.quad(material: MaterialIndex(0)), materials: [material], textures: textures)
    }

    @Test func factorsAndFlagsAreWritten() throws {
        let m = Material(
            name: "paint", baseColor: SIMD4(0.8, 0.2, 0.1, 1), metallic: 0.25, roughness: 0.75,
            emissive: SIMD3(0.1, 0, 0), doubleSided: true)
        let (output, reader) = try writeAndRead(texturedRoom(m, textures: []))
        #expect(output.materialCount == 1)
        let p = pbr(reader)
        #expect((p["baseColorFactor"] as? [Any])?.compactMap(double).map(Float.init) == [0.8, 0.2, 0.1, 1])
        #expect(double(p["metallicFactor"]).map(Float.init) == 0.25 && double(p["roughnessFactor"]) == 0.75)
        #expect((reader.materials[0]["emissiveFactor"] as? [Any])?.compactMap(double).map(Float.init) == [0.1, 0, 0])
        #expect(bool(reader.materials[0]["doubleSided"]) == true)
        #expect(reader.materials[0]["alphaMode"] == nil, "OPAQUE is the default and omitted")
        #expect(reader.jsonText.contains("\"baseColorFactor\":[0.8,0.2,0.1,1]"), "shortest float text")
    }

    @Test func alphaModesAreWritten() throws {
        for (mode, expected, cutoff) in [
            (Material.AlphaMode.mask(cutoff: 0.3), "MASK", Float(0.3)),
            (.blend, "BLEND", nil), (.opaque, nil, nil),
        ] {
            let (_, reader) = try writeAndRead(texturedRoom(Material(name: "a", alphaMode: mode), textures: []))
            #expect(reader.materials[0]["alphaMode"] as? String == expected)
            #expect(double(reader.materials[0]["alphaCutoff"]).map(Float.init) == cutoff)
        }
    }

    @Test func primitivesWithoutMaterialShareOneDefaultMaterialWrittenLast() throws {
        var b = RoomBuilder()
        let used = b.scene.addMaterial(Material(name: "used", baseColor: SIMD4(0.5, 0.5, 0.5, 1)))
        b.scene.addMaterial(Material(name: "unused"))
        let a = b.scene.addMesh(Meshes.triangle())
        let c = b.scene.addMesh(Meshes.quad(material: used))
        let d = b.scene.addMesh(Meshes.cube8())
        let layer = b.addLayer("walls")
        b.addElement("A", layer: layer, category: "wall", mesh: a)
        b.addElement("C", layer: layer, category: "wall", mesh: c)
        b.addElement("D", layer: layer, category: "wall", mesh: d)
        let (output, reader) = try writeAndRead(b.layered)
        #expect(output.materialCount == 2)
        #expect(reader.materials.map { $0["name"] as? String } == ["used", "default"])
        let materialOf = (0..<3).map { m in int((reader.meshes[m]["primitives"] as? [[String: Any]])?[0]["material"]) }
        #expect(materialOf == [1, 0, 1])
    }

    @Test func materialsThatDifferOnlyInNameAreWrittenOnce() throws {
        var b = RoomBuilder()
        let white = (0..<3).map { b.scene.addMaterial(Material(name: "white_\($0)", baseColor: SIMD4(0.9, 0.9, 0.9, 1))) }
        let red = b.scene.addMaterial(Material(name: "red", baseColor: SIMD4(1, 0, 0, 1)))
        let plain = b.scene.addMaterial(Material(name: "plain"))
        let layer = b.addLayer("walls")
        for (i, m) in (white + [red, plain]).enumerated() {
            b.addElement("E\(i)", layer: layer, category: "wall", mesh: b.scene.addMesh(Meshes.quad(material: m)))
        }
        b.addElement("D", layer: layer, category: "wall", mesh: b.scene.addMesh(Meshes.triangle()))
        let (output, reader) = try writeAndRead(b.layered)
        // Three whites → one (the first name kept); the default material is the same as `plain`.
        #expect(output.materialCount == 3)
        #expect(reader.materials.map { $0["name"] as? String } == ["white_0", "red", "plain"])
        // The three white quads are then one mesh, drawn by each of their elements.
        #expect(output.meshCount == 4)
        let meshOf = reader.nodes.dropFirst().map { int($0["mesh"]) ?? -1 }
        #expect(meshOf == [0, 0, 0, 1, 2, 3])
        let materialOf = meshOf.map { m in int((reader.meshes[m]["primitives"] as? [[String: Any]])?[0]["material"]) }
        #expect(materialOf == [0, 0, 0, 1, 2, 2])
    }

    @Test func pngAndJpegAreEmbeddedAsIs() throws {
        let png = Texture(bytes: Images.png, mimeType: "image/png", sourcePath: "0/wood.png")
        let jpeg = Texture(bytes: Images.jpeg, mimeType: "image/png", sourcePath: "0/mislabelled.jpg")
        let m = Material(
            name: "wood", baseColor: .one, baseColorTexture: TextureRef(texture: TextureIndex(0)),
            emissiveTexture: TextureRef(texture: TextureIndex(1)))
        let (output, reader) = try writeAndRead(texturedRoom(m, textures: [png, jpeg]))
        #expect(output.imageCount == 2 && output.textureCount == 2)
        #expect(reader.images.map { $0["mimeType"] as? String } == ["image/png", "image/jpeg"], "sniffed type wins")
        #expect(reader.images.map { $0["name"] as? String } == ["0/wood.png", "0/mislabelled.jpg"])
        for (i, expected) in [Images.png, Images.jpeg].enumerated() {
            let view = reader.bufferViews[int(reader.images[i]["bufferView"])!]
            let start = int(view["byteOffset"]) ?? 0
            #expect(Array(reader.bin![start..<(start + expected.count)]) == expected)
            #expect(int(view["byteLength"]) == expected.count && view["target"] == nil)
        }
        #expect(int((pbr(reader)["baseColorTexture"] as? [String: Any])?["index"]) == 0)
        #expect(int((reader.materials[0]["emissiveTexture"] as? [String: Any])?["index"]) == 1)
        #expect(pbr(reader)["baseColorFactor"] == nil, "white factor is the default")
        let sampler = reader.samplers[0]
        #expect(int(sampler["magFilter"]) == 9729 && int(sampler["minFilter"]) == 9987)
        #expect(int(sampler["wrapS"]) == 10497 && int(sampler["wrapT"]) == 10497)
    }

    @Test func otherImageFormatsAreDroppedKeepingTheFactor() throws {
        let exr = Texture(bytes: [0x76, 0x2F, 0x31, 0x01, 2, 0, 0, 0], mimeType: "image/x-exr", sourcePath: "0/tile.exr")
        let m = Material(
            name: "tile", baseColor: SIMD4(0.5, 0.5, 0.5, 1), baseColorTexture: TextureRef(texture: TextureIndex(0)))
        let (output, reader) = try writeAndRead(texturedRoom(m, textures: [exr]))
        #expect(output.warnings.map(\.code) == ["GLB_IMAGE_DROPPED"])
        #expect(output.warnings[0].primPath == "0/tile.exr")
        #expect(output.imageCount == 0 && reader.images.isEmpty && reader.textures.isEmpty)
        #expect(pbr(reader)["baseColorTexture"] == nil)
        #expect((pbr(reader)["baseColorFactor"] as? [Any])?.compactMap(double) == [0.5, 0.5, 0.5, 1])
    }

    @Test func webPImagesAreNamedByTheRequiredExtension() throws {
        let webp = Texture(bytes: Images.webp, mimeType: "image/webp", sourcePath: "0/tile.webp")
        let m = Material(name: "tile", baseColorTexture: TextureRef(texture: TextureIndex(0)))
        let (output, reader) = try writeAndRead(texturedRoom(m, textures: [webp]))
        #expect(output.warnings.isEmpty && output.imageCount == 1)
        #expect(output.extensionsRequired == ["EXT_texture_webp"])
        #expect(reader.json["extensionsRequired"] as? [String] == ["EXT_texture_webp"])
        #expect(reader.images.first?["mimeType"] as? String == "image/webp")
        let ext = (reader.textures.first?["extensions"] as? [String: Any])?["EXT_texture_webp"] as? [String: Any]
        #expect(int(ext?["source"]) == 0 && reader.textures.first?["source"] == nil)
    }

    @Test func samplersImagesAndTexturesAreDeduplicated() throws {
        let a = Texture(bytes: Images.png, mimeType: "image/png", sourcePath: "a.png")
        let sameBytes = Texture(bytes: Images.png, mimeType: "image/png", sourcePath: "b.png")
        let clamp = TextureRef(texture: TextureIndex(1), wrapS: .clamp, wrapT: .mirror)
        let m1 = Material(
            name: "m1", baseColorTexture: TextureRef(texture: TextureIndex(0)),
            emissiveTexture: TextureRef(texture: TextureIndex(1)))
        let m2 = Material(name: "m2", baseColorTexture: TextureRef(texture: TextureIndex(0)), emissiveTexture: clamp)
        var b = RoomBuilder()
        b.scene.addTexture(a)
        b.scene.addTexture(sameBytes)
        let i1 = b.scene.addMaterial(m1)
        let i2 = b.scene.addMaterial(m2)
        let q1 = b.scene.addMesh(Meshes.quad(material: i1))
        let q2 = b.scene.addMesh(Meshes.quad(material: i2))
        let layer = b.addLayer("walls")
        b.addElement("A", layer: layer, category: "wall", mesh: q1)
        b.addElement("B", layer: layer, category: "wall", mesh: q2)
        let (output, reader) = try writeAndRead(b.layered)
        #expect(output.imageCount == 1, "identical bytes → one image")
        #expect(reader.samplers.count == 2 && output.textureCount == 2)
        #expect(int(reader.samplers[1]["wrapS"]) == 33071 && int(reader.samplers[1]["wrapT"]) == 33648)
        let emissive2 = reader.materials[1]["emissiveTexture"] as? [String: Any]
        #expect(int(emissive2?["index"]) == 1)
    }

    @Test func textureTransformUsesTheExtension() throws {
        var ref = TextureRef(texture: TextureIndex(0))
        ref.uvTransform = UVTransform(translation: SIMD2(0.5, -0.25), rotation: 0.5, scale: SIMD2(2, 2))
        var identityRef = TextureRef(texture: TextureIndex(0))
        identityRef.uvTransform = UVTransform()
        let m = Material(name: "t", baseColorTexture: ref, occlusionTexture: identityRef)
        let png = Texture(bytes: Images.png, mimeType: "image/png", sourcePath: "t.png")
        let (_, reader) = try writeAndRead(texturedRoom(m, textures: [png]))
        #expect(reader.json["extensionsUsed"] as? [String] == ["KHR_texture_transform"])
        #expect(reader.json["extensionsRequired"] == nil)
        let info = pbr(reader)["baseColorTexture"] as? [String: Any]
        let ext = (info?["extensions"] as? [String: Any])?["KHR_texture_transform"] as? [String: Any]
        #expect((ext?["offset"] as? [Any])?.compactMap(double) == [0.5, -0.25])
        #expect(double(ext?["rotation"]) == 0.5)
        #expect((ext?["scale"] as? [Any])?.compactMap(double) == [2, 2])
        let occlusion = reader.materials[0]["occlusionTexture"] as? [String: Any]
        #expect(occlusion?["extensions"] == nil, "an identity transform is a no-op and is not written")
    }

    @Test func noTransformMeansNoExtensionsUsed() throws {
        let png = Texture(bytes: Images.png, mimeType: "image/png", sourcePath: "t.png")
        let m = Material(name: "t", baseColorTexture: TextureRef(texture: TextureIndex(0)))
        let (_, reader) = try writeAndRead(texturedRoom(m, textures: [png]))
        #expect(reader.json["extensionsUsed"] == nil)
    }

    @Test func metallicRoughnessChannelsMustMatchGLTFPacking() throws {
        let png = Texture(bytes: Images.png, mimeType: "image/png", sourcePath: "orm.png")
        var green = TextureRef(texture: TextureIndex(0))
        green.channel = "g"
        let good = Material(name: "good", metallic: 1, roughness: 1, metallicRoughnessTexture: green)
        let (ok, r1) = try writeAndRead(texturedRoom(good, textures: [png]))
        #expect(ok.warnings.isEmpty)
        #expect(pbr(r1)["metallicRoughnessTexture"] != nil)

        var red = TextureRef(texture: TextureIndex(0))
        red.channel = "r"
        let bad = Material(name: "bad", metallic: 0, roughness: 0.6, metallicRoughnessTexture: red)
        let (warned, r2) = try writeAndRead(texturedRoom(bad, textures: [png]))
        #expect(warned.warnings.map(\.code) == ["GLB_TEXTURE_CHANNELS"])
        #expect(pbr(r2)["metallicRoughnessTexture"] == nil && warned.textureCount == 0)
        #expect(double(pbr(r2)["roughnessFactor"]).map(Float.init) == 0.6, "factor kept")
    }

    @Test func normalAndOcclusionTexturesCarryTheirParameters() throws {
        let png = Texture(bytes: Images.png, mimeType: "image/png", sourcePath: "n.png")
        var occlusion = TextureRef(texture: TextureIndex(0))
        occlusion.channel = "r"
        let m = Material(
            name: "n", normalTexture: TextureRef(texture: TextureIndex(0)), normalScale: 0.5,
            occlusionTexture: occlusion)
        let (output, reader) = try writeAndRead(texturedRoom(m, textures: [png]))
        let normal = reader.materials[0]["normalTexture"] as? [String: Any]
        #expect(double(normal?["scale"]) == 0.5)
        #expect(reader.materials[0]["occlusionTexture"] != nil)
        #expect(output.textureCount == 1, "same sampler and image → one texture")
    }

    @Test func scaleWithoutBiasFoldsIntoTheFactor() throws {
        let png = Texture(bytes: Images.png, mimeType: "image/png", sourcePath: "s.png")
        var ref = TextureRef(texture: TextureIndex(0))
        ref.scale = SIMD4(0.5, 0.5, 0.5, 1)
        let m = Material(name: "s", baseColor: .one, baseColorTexture: ref)
        let (output, reader) = try writeAndRead(texturedRoom(m, textures: [png]))
        #expect((pbr(reader)["baseColorFactor"] as? [Any])?.compactMap(double) == [0.5, 0.5, 0.5, 1])
        #expect(output.warnings.isEmpty)
        ref.bias = SIMD4(0.1, 0, 0, 0)
        let (biased, _) = try writeAndRead(texturedRoom(Material(name: "b", baseColorTexture: ref), textures: [png]))
        #expect(biased.warnings.map(\.code) == ["GLB_TEXTURE_SCALE_BIAS"])
    }

    @Test func outOfRangeFactorsAreClampedWithAWarning() throws {
        let m = Material(name: "hdr", baseColor: SIMD4(2, 0.5, -1, 1), roughness: .nan, emissive: SIMD3(4, 0, 0))
        let (output, reader) = try writeAndRead(texturedRoom(m, textures: []))
        #expect(output.warnings.map(\.code) == ["GLB_MATERIAL_CLAMPED"])
        #expect((pbr(reader)["baseColorFactor"] as? [Any])?.compactMap(double) == [1, 0.5, 0, 1])
        #expect(pbr(reader)["roughnessFactor"] == nil, "non-finite → glTF default 1")
        #expect((reader.materials[0]["emissiveFactor"] as? [Any])?.compactMap(double) == [1, 0, 0])
    }
}
