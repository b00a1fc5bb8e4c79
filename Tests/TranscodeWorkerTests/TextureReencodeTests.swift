import Foundation
import SceneModel
import Testing
import SourceFiles

@testable import Thumbnailer
@testable import TranscodeWorker
import TestSupport
@testable import JobPipeline

/// Textures of the web model: WebP (`EXT_texture_webp`) at most `maxTextureSize` on a side by
/// default, or the PNG/JPEG bytes as found.
@Suite struct TextureReencodeTests {
    static let sample = "samples/textured/textured_box.usdz"

    static func run(_ configure: (inout PipelineInput) -> Void) throws -> PipelineResult {
        let path = TestPaths.path(sample)
        var input = PipelineInput(thumbnails: nil)
        input.usd = .init(name: (path as NSString).lastPathComponent, bytes: try FileReader.map(path, maxBytes: 1 << 28),
                          siblings: nil)
        configure(&input)
        return try TranscodePipeline.run(input)
    }

    static func glb(_ r: PipelineResult) throws -> [UInt8] { try #require(r.files.first { $0.path == "model.glb" }).bytes }

    /// The document and the BIN chunk of an uncompressed or compressed model.
    static func chunks(_ bytes: [UInt8]) throws -> ([String: Any], [UInt8]) {
        func u32(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24 }
        let jsonLength = u32(12)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(bytes[20..<(20 + jsonLength)])) as? [String: Any])
        let binAt = 20 + jsonLength
        return (json, binAt + 8 <= bytes.count ? Array(bytes[(binAt + 8)..<(binAt + 8 + u32(binAt))]) : [])
    }

    /// The embedded images' bytes, in image order.
    static func embeddedImages(_ bytes: [UInt8]) throws -> [[UInt8]] {
        let (json, bin) = try chunks(bytes)
        let views = json["bufferViews"] as? [[String: Any]] ?? []
        return (json["images"] as? [[String: Any]] ?? []).map { image in
            let view = views[image["bufferView"] as! Int]
            let offset = view["byteOffset"] as? Int ?? 0
            return Array(bin[offset..<(offset + (view["byteLength"] as! Int))])
        }
    }

    static func decodeWebP(_ bytes: [UInt8]) -> DecodedImage? { WebPCodec.decode(bytes) }

    static func firstImage(_ r: PipelineResult) throws -> [UInt8] {
        let images = try embeddedImages(try glb(r))
        return try #require(images.first)
    }

    static func meanDifference(_ a: DecodedImage, _ b: [UInt8]) -> Double {
        guard a.rgba.count == b.count, !b.isEmpty else { return .infinity }
        var sum = 0
        for i in b.indices { sum += abs(Int(a.rgba[i]) - Int(b[i])) }
        return Double(sum) / Double(b.count)
    }

    @Test func texturesBecomeWebPThatTheExtensionNames() throws {
        let r = try Self.run { _ in }
        let (json, _) = try Self.chunks(try Self.glb(r))
        #expect((json["extensionsRequired"] as? [String])?.contains("EXT_texture_webp") == true)
        let images = json["images"] as? [[String: Any]] ?? []
        #expect(!images.isEmpty && images.allSatisfy { $0["mimeType"] as? String == "image/webp" })
        for texture in json["textures"] as? [[String: Any]] ?? [] {
            let ext = (texture["extensions"] as? [String: Any])?["EXT_texture_webp"] as? [String: Any]
            #expect(ext?["source"] as? Int != nil && texture["source"] == nil)
        }
        let manifestFile = try #require(r.files.first { $0.path == "layer_manifest.json" })
        let manifest = try #require(try JSONSerialization.jsonObject(with: Data(manifestFile.bytes)) as? [String: Any])
        #expect(((manifest["glb"] as? [String: Any])?["extensions_required"] as? [String])?.contains("EXT_texture_webp") == true)
        // The WebP decodes to the size of the source texture (below the cap, kept as it is).
        let png = try #require(ConvertTests.extract([UInt8](try Data(contentsOf: URL(fileURLWithPath: TestPaths.path(Self.sample)))),
                                                    entry: "textures/albedo.png"))
        let source = try TextureDecoder.decode(png)
        let decoded = try #require(Self.decodeWebP(try Self.firstImage(r)))
        #expect(decoded.width == source.width && decoded.height == source.height)
        #expect(Self.meanDifference(decoded, source.rgba) < 8, "lossy at quality 90 stays close")
    }

    @Test func largeTexturesAreScaledDownKeepingTheirShape() throws {
        let png = try #require(ConvertTests.extract([UInt8](try Data(contentsOf: URL(fileURLWithPath: TestPaths.path(Self.sample)))),
                                                    entry: "textures/albedo.png"))
        let source = try TextureDecoder.decode(png)
        let cap = max(source.width, source.height) / 2
        #expect(cap >= 2)
        let r = try Self.run { $0.maxTextureSize = cap }
        let decoded = try #require(Self.decodeWebP(try Self.firstImage(r)))
        #expect(max(decoded.width, decoded.height) == cap)
        let aspect = Double(source.width) / Double(source.height), scaled = Double(decoded.width) / Double(decoded.height)
        #expect(abs(aspect - scaled) <= 1 / Double(min(decoded.width, decoded.height)))
    }

    @Test func originalKeepsTheBytesAsFound() throws {
        let r = try Self.run { $0.textureFormat = .original }
        let (json, _) = try Self.chunks(try Self.glb(r))
        #expect((json["extensionsRequired"] as? [String])?.contains("EXT_texture_webp") != true)
        #expect((json["images"] as? [[String: Any]])?.first?["mimeType"] as? String == "image/png")
    }

    @Test func anUndecodableTextureIsKeptWithAWarning() throws {
        var scene = Scene()
        scene.addTexture(Texture(bytes: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3], mimeType: "image/png",
                                 sourcePath: "broken.png"))
        var sharing = SharedTextureDecodes(capacity: 1 << 20)
        let warnings = ModelStage.reencodeTextures(&scene, maxSide: 2048, sharing: &sharing)
        #expect(warnings.map(\.code) == ["GLB_TEXTURE_KEPT"])
        #expect(scene.textures[0].mimeType == "image/png")
        #expect(sharing.count == 0)
    }

    /// The textures the model stage decodes go to the renderer when it will draw from the same
    /// decode, and the pictures are the bytes an unshared run gives.
    @Test func theModelsDecodesReachTheRenderer() throws {
        let path = TestPaths.path(Self.sample)
        var input = PipelineInput(thumbnails: ThumbnailOptions())
        input.usd = .init(name: "textured_box.usdz", bytes: try FileReader.map(path, maxBytes: 1 << 28), siblings: nil)
        let none = PreviousOutputs.Reusable()
        #expect(PreviewStage.sharedDecodeCapacity(input, reusable: none) == PreviewStage.maxSharedDecodeBytes)
        var run = PipelineRun(progress: { _ in })
        let layered = try LayerStage.run(try ParseStage.run(input, in: &run), input: input, in: &run)
        var model = try ModelStage.run(
            layered, input: input, shareDecodes: PreviewStage.sharedDecodeCapacity(input, reusable: none), in: &run)
        #expect(model.decodes.count == layered.scene.textures.count && model.decodes.count > 0)
        let sharing = model.takeDecodes()
        #expect(model.decodes.count == 0)
        var options = ThumbnailOptions()
        options.views = [.hero]
        options.sizes.hero = ThumbnailSize(width: 160, height: 120)
        let shared = try Thumbnailer.render(layered, options: options, sharing: sharing)
        let alone = try Thumbnailer.render(layered, options: options)
        #expect(shared.views.map(\.webp) == alone.views.map(\.webp))

        // Nothing is kept when the renderer will not draw, or decodes for another size.
        var noPictures = input
        noPictures.thumbnails = nil
        #expect(PreviewStage.sharedDecodeCapacity(noPictures, reusable: none) == 0)
        var otherSize = input
        otherSize.maxTextureSize = 1024
        #expect(PreviewStage.sharedDecodeCapacity(otherSize, reusable: none) == 0)
        var original = input
        original.textureFormat = .original
        #expect(PreviewStage.sharedDecodeCapacity(original, reusable: none) == 0)
    }
}
