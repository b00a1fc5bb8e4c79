import SceneModel
import Testing
@testable import Thumbnailer

/// Textures decoded once: what the model's WebP re-encoding decoded, the renderer takes instead
/// of decoding again, and only where decoding again would give the same image.
struct SharedDecodeTests {
    /// Two textured quads side by side: texture 0 a 64 × 64 PNG, texture 1 a progressive JPEG.
    static func scene() -> Scene {
        var s = Scene()
        let png = TextureEdgeTests.texture(n: 64, cell: 4)
        let t0 = s.addTexture(Texture(bytes: png, mimeType: "image/png", sourcePath: "a.png"))
        let t1 = s.addTexture(Texture(bytes: CodecTests.progressiveJPEG, mimeType: "image/jpeg", sourcePath: "b.jpg"))
        let m0 = s.addMaterial(Material(
            name: "a", baseColor: SIMD4(1, 1, 1, 1), baseColorTexture: TextureRef(texture: t0, wrapS: .clamp, wrapT: .clamp)))
        let m1 = s.addMaterial(Material(
            name: "b", baseColor: SIMD4(1, 1, 1, 1), baseColorTexture: TextureRef(texture: t1, wrapS: .clamp, wrapT: .clamp)))
        let positions: [Float] = [0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0, 2, 0, 0, 2, 1, 0, 1, 1, 0]
        let uv: [Float] = [0, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0]
        let mesh = s.addMesh(Mesh(
            name: "q", positions: positions, uv0: uv, indices: [0, 1, 2, 0, 2, 3, 4, 5, 6, 4, 6, 7],
            primitives: [
                Mesh.Primitive(indexStart: 0, indexCount: 6, material: m0),
                Mesh.Primitive(indexStart: 6, indexCount: 6, material: m1),
            ]))
        s.addNode(Node(name: "q", mesh: mesh))
        return s
    }

    /// What the model's re-encoding leaves behind for `scene` at `maxSide`.
    static func decodes(_ scene: Scene, capacity: Int = 1 << 30, maxSide: Int = 2048) throws -> SharedTextureDecodes {
        var sharing = SharedTextureDecodes(capacity: capacity)
        for (i, t) in scene.textures.enumerated() {
            _ = try TextureTranscoder.webp(t.bytes, maxSide: maxSide, quality: 90, texture: i, sharing: &sharing)
        }
        return sharing
    }

    static func renderScene(_ scene: Scene, budget: Int = 256 << 20, sharing: SharedTextureDecodes? = nil) -> RenderScene {
        let source = RenderContext.source(TestScenes.layered(scene))
        guard let sharing else { return RenderScene(source, textureBudget: budget, maxTextureSize: 2048) }
        return RenderScene(source, textureBudget: budget, maxTextureSize: 2048, sharing: sharing)
    }

    static var heroOnly: ThumbnailOptions {
        var options = ThumbnailOptions()
        options.views = [.hero]
        options.sizes.hero = ThumbnailSize(width: 96, height: 72)
        return options
    }

    @Test func theRendererTakesTheImagesTheModelDecoded() throws {
        let scene = Self.scene()
        let sharing = try Self.decodes(scene)
        #expect(sharing.count == 2)
        #expect(Self.renderScene(scene).texturesDecoded == 2)
        #expect(Self.renderScene(scene, sharing: sharing).texturesDecoded == 0)
        // And the pictures are the same bytes.
        let layered = TestScenes.layered(scene)
        let alone = try Thumbnailer.render(layered, options: Self.heroOnly)
        let shared = try Thumbnailer.render(layered, options: Self.heroOnly, sharing: sharing)
        #expect(!alone.views.isEmpty)
        #expect(alone.views.map(\.webp) == shared.views.map(\.webp))
        #expect(alone.warnings.map(\.code) == shared.warnings.map(\.code))
    }

    /// The loader takes each image out as it uses it: nothing is left held once the renderer has
    /// its own copies.
    @Test func theLoaderTakesTheImagesOut() throws {
        let scene = Self.scene()
        var sharing = try Self.decodes(scene)
        #expect(sharing.keptBytes == 64 * 64 * 4 + 16 * 8 * 4)
        let loaded = TextureLoader.load(
            scene.textures, used: [0, 1], budget: 256 << 20, maxWorkingSize: 2048, sharing: &sharing)
        #expect(loaded.decoded == 0 && loaded.entryOfTexture.count == 2)
        #expect(sharing.count == 0 && sharing.keptBytes == 0 && sharing.reused == 2)
    }

    @Test func anImageOverTheBudgetLeftIsDecodedAgainAndRefusedAsBefore() throws {
        let scene = Self.scene()
        let sharing = try Self.decodes(scene)
        // The JPEG's decode (output, rows and every coefficient of the progressive stream) does not
        // fit what the PNG leaves of this budget; its decoded image alone would.
        let jpeg = try TextureDecoder.decode(CodecTests.progressiveJPEG, limits: ImageDecodeLimits()).get()
        #expect(jpeg.cost > jpeg.rgba.count)
        let budget = TextureSampler.bytes(width: 64, height: 64) + jpeg.cost - 1
        let alone = Self.renderScene(scene, budget: budget)
        let shared = Self.renderScene(scene, budget: budget, sharing: sharing)
        #expect(alone.warnings.map(\.code) == [ThumbnailerError.Code.textureBudget.rawValue])
        #expect(shared.warnings.map(\.code) == alone.warnings.map(\.code))
        #expect(shared.warnings.map(\.message) == alone.warnings.map(\.message))
        #expect(shared.texturesDecoded == 1)
    }

    @Test func otherBytesOrAnotherSizeAreDecodedAgain() throws {
        let scene = Self.scene()
        // Decoded for another target side: not the renderer's decode.
        #expect(Self.renderScene(scene, sharing: try Self.decodes(scene, maxSide: 1024)).texturesDecoded == 2)
        // The same index holding other bytes (a texture replaced since): decoded again.
        var other = scene
        other.textures[0].bytes = TextureEdgeTests.texture(n: 64, cell: 8)
        let rs = Self.renderScene(other, sharing: try Self.decodes(scene))
        #expect(rs.texturesDecoded == 1)
    }

    @Test func theCapacityBoundsWhatIsKept() throws {
        let scene = Self.scene()
        #expect(try Self.decodes(scene, capacity: 0).count == 0)
        let png = try Self.decodes(scene, capacity: 64 * 64 * 4)
        #expect(png.count == 1 && png.keptBytes == 64 * 64 * 4)
        #expect(Self.renderScene(scene, sharing: png).texturesDecoded == 1)
    }
}
