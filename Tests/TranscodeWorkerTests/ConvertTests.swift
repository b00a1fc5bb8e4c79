import Foundation
import Layering
import Testing
import Thumbnailer
import USDParse
import SourceFiles

@testable import TranscodeWorker
@testable import WorkerRuntime
import TestSupport
@testable import WorkerCore
@testable import JobPipeline

/// The conversion pipeline on the project's samples: every sample converts, outputs are
/// deterministic, RoomPlan identity reaches the `.glb` and the manifest, redacted textures replace
/// the originals everywhere, and failures carry typed codes.
@Suite struct ConvertTests {
    static let root = TestPaths.packageRoot

    static func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }

    /// The RoomPlan sample pairs listed in samples/roomplan/index.json.
    static var roomPlanPairs: [(usdz: String, json: String)] {
        guard let data = FileManager.default.contents(atPath: path("samples/roomplan/index.json")),
              let list = try? JSONSerialization.jsonObject(with: data) as? [[String: Any]]
        else { return [] }
        return list.map { ("samples/roomplan/\($0["usdz"] as! String)", "samples/roomplan/\($0["json"] as! String)") }
    }

    func input(usd: String?, json: String? = nil, redacted: String? = nil) throws -> PipelineInput {
        var input = PipelineInput()
        if let usd {
            let p = Self.path(usd)
            input.usd = .init(name: (p as NSString).lastPathComponent, bytes: try FileReader.map(p, maxBytes: 1 << 28),
                              siblings: DirectoryAssetProvider(root: (p as NSString).deletingLastPathComponent, maxBytes: 1 << 28))
        }
        if let json {
            input.roomPlanJSON = ((json as NSString).lastPathComponent, try FileReader.read(Self.path(json), maxBytes: 1 << 26))
        }
        if let redacted { input.redactedTextures = try FileReader.readRedactions(Self.path(redacted), maxBytes: 1 << 26) }
        return input
    }

    /// The JSON chunk of a GLB.
    func glbJSON(_ bytes: [UInt8]) throws -> [String: Any] {
        try #require(bytes.count >= 20 && Array(bytes[0..<4]) == Array("glTF".utf8))
        let len = Int(bytes[12]) | Int(bytes[13]) << 8 | Int(bytes[14]) << 16 | Int(bytes[15]) << 24
        let json = try JSONSerialization.jsonObject(with: Data(bytes[20..<(20 + len)]))
        return try #require(json as? [String: Any])
    }

    func file(_ r: PipelineResult, _ path: String) throws -> [UInt8] {
        try #require(r.files.first { $0.path == path }?.bytes)
    }

    @Test func everyRoomPlanSamplePairConvertsWithEveryIdentifierInOneLayer() throws {
        #expect(Self.roomPlanPairs.count >= 4)
        for pair in Self.roomPlanPairs {
            let r = try TranscodePipeline.run(try input(usd: pair.usdz, json: pair.json))
            let thumbs = ["thumbs/hero.webp", "thumbs/card.webp", "thumbs/card-small.webp"]
                + (0..<8).map { "thumbs/orbit-0\($0).webp" } + ["thumbs/plan.webp"]
            #expect(r.files.map(\.path) == ["model.glb"] + thumbs + ["plan.svg", "plan.pdf", "plan.dxf", "layer_manifest.json"])
            let manifest = try #require(try JSONSerialization.jsonObject(with: Data(try file(r, "layer_manifest.json"))) as? [String: Any])
            let elements = try #require(manifest["elements"] as? [[String: Any]])
            let ids = elements.compactMap { $0["identifier"] as? String }
            #expect(Set(ids).count == ids.count, "\(pair.usdz): an identifier appears twice")
            // Every JSON identifier ends in exactly one element.
            let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: Self.path(pair.json)))) as? [String: Any])
            var jsonIDs: [String] = []
            for key in ["walls", "doors", "windows", "openings", "floors", "objects"] {
                for e in (json[key] as? [[String: Any]]) ?? [] { if let id = e["identifier"] as? String { jsonIDs.append(id) } }
            }
            #expect(!jsonIDs.isEmpty)
            for id in jsonIDs { #expect(ids.filter { $0 == id }.count == 1, "\(pair.usdz): \(id)") }
            // Element nodes of the glb carry the identifier and semantics.
            let gltf = try glbJSON(try file(r, "model.glb"))
            let nodes = try #require(gltf["nodes"] as? [[String: Any]])
            for e in elements {
                let index = try #require(e["node"] as? Int)
                #expect(nodes[index]["name"] as? String == e["identifier"] as? String)
                let extras = (nodes[index]["extras"] as? [String: Any])?["crowdroom"] as? [String: Any]
                #expect(extras?["identifier"] as? String == e["identifier"] as? String)
            }
            // Linked: JSON elements joined to a USD one; USD elements without JSON are neither.
            let usdOnly = elements.filter { $0["geometry"] as? String == "usd" }.count - r.summary.linkedElements
            #expect(usdOnly >= 0 && r.summary.synthesizedElements + r.summary.linkedElements + usdOnly == r.summary.elements)
        }
    }

    @Test func outputsAreByteIdenticalForTheSameInput() throws {
        let pair = try #require(Self.roomPlanPairs.first)
        let a = try TranscodePipeline.run(try input(usd: pair.usdz, json: pair.json))
        let b = try TranscodePipeline.run(try input(usd: pair.usdz, json: pair.json))
        #expect(a.files.map(\.bytes) == b.files.map(\.bytes))
        let c = try TranscodePipeline.run(try input(usd: "samples/room.usdz"))
        let d = try TranscodePipeline.run(try input(usd: "samples/room.usdz"))
        #expect(c.files.map(\.bytes) == d.files.map(\.bytes))
    }

    /// Each output is hashed once: the digests the pipeline made for the manifest are the ones the
    /// child reports, and they are the files' own.
    @Test func theDigestsMadeForTheManifestAreTheFilesOwn() throws {
        let pair = try #require(Self.roomPlanPairs.first)
        let r = try TranscodePipeline.run(try input(usd: pair.usdz, json: pair.json))
        let hashed = Set(r.digests.keys)
        #expect(hashed == Set(r.files.map(\.path)).subtracting(["layer_manifest.json"]))
        for f in r.files { if let d = r.digests[f.path] { #expect(d == Digest.hex(Digest.sha256(f.bytes)), "\(f.path)") } }
    }

    @Test func thumbnailsAreListedInTheManifestWithTheirCameras() throws {
        let pair = try #require(Self.roomPlanPairs.first)
        let r = try TranscodePipeline.run(try input(usd: pair.usdz, json: pair.json))
        let manifest = try #require(try JSONSerialization.jsonObject(with: Data(try file(r, "layer_manifest.json"))) as? [String: Any])
        let listed = try #require(manifest["thumbnails"] as? [[String: Any]])
        #expect(listed.count == 12)
        for t in listed {
            let path = try #require(t["path"] as? String)
            let bytes = try file(r, path)
            #expect(t["bytes"] as? Int == bytes.count)
            let image = try #require(Thumbnailer.decodeWebP(bytes))
            #expect(image.width == t["width"] as? Int && image.height == t["height"] as? Int)
            // Pixels that differ clearly from the neutral background (#F3F4F6).
            var drawn = 0
            for i in stride(from: 0, to: image.rgba.count, by: 4) {
                let d = abs(Int(image.rgba[i]) - 243) + abs(Int(image.rgba[i + 1]) - 244) + abs(Int(image.rgba[i + 2]) - 246)
                if d > 24 { drawn += 1 }
            }
            #expect(drawn > image.width * image.height / 20, "\(path) is nearly empty")
            let camera = try #require(t["camera"] as? [String: Any])
            #expect(camera["position"] is [Any] && camera["target"] is [Any])
        }
        var noThumbs = try input(usd: pair.usdz, json: pair.json)
        noThumbs.thumbnails = nil
        #expect(try TranscodePipeline.run(noThumbs).files.map(\.path) == ["model.glb", "plan.svg", "plan.pdf", "plan.dxf", "layer_manifest.json"])
        noThumbs.plan = nil
        #expect(try TranscodePipeline.run(noThumbs).files.map(\.path) == ["model.glb", "layer_manifest.json"])
    }

    @Test func thumbnailOptionsFromTheCommandLine() throws {
        let c = try ConvertCommand(["room.usdz", "--out", "o", "--views", "orbit,plan", "--thumb-size", "64x48",
                                    "--webp-quality", "60"])
        #expect(c.thumbnails?.views == [.orbit, .plan])
        #expect(c.thumbnails?.sizes[.orbit] == ThumbnailSize(width: 64, height: 48))
        #expect(c.thumbnails?.webpQuality == 60)
        #expect(try ConvertCommand(["room.usdz", "--out", "o", "--no-thumbnails"]).thumbnails == nil)
        #expect(throws: UsageError.self) { try ConvertCommand(["room.usdz", "--out", "o", "--thumb-size", "9x9"]) }
        #expect(throws: UsageError.self) { try ConvertCommand(["room.usdz", "--out", "o", "--views", "sky"]) }
        #expect(throws: UsageError.self) { try ConvertCommand(["room.usdz"]) }

        let pair = try #require(Self.roomPlanPairs.first)
        var i = try input(usd: pair.usdz, json: pair.json)
        i.thumbnails = c.thumbnails
        let r = try TranscodePipeline.run(i)
        let orbit = try #require(Thumbnailer.decodeWebP(try file(r, "thumbs/orbit-03.webp")))
        #expect(orbit.width == 64 && orbit.height == 48)
        #expect(!r.files.contains { $0.path == "thumbs/hero.webp" })
    }

    @Test func theJSONAloneBuildsTheRoom() throws {
        let pair = try #require(Self.roomPlanPairs.first)
        let r = try TranscodePipeline.run(try input(usd: nil, json: pair.json))
        #expect(r.summary.elements > 0 && r.summary.synthesizedElements == r.summary.elements)
        #expect(r.summary.triangles > 0)
    }

    @Test func redactedTexturesReplaceTheOriginalEverywhere() throws {
        let original = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.path("samples/textured/textured_box.usdz"))))
        let originalPNG = try #require(Self.extract(original, entry: "textures/albedo.png"))
        let replacement = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.path("samples/textured/redacted/textures/albedo.png"))))
        #expect(originalPNG != replacement)

        // With the textures embedded as found, the bytes themselves show which one went in.
        var asFound = try input(usd: "samples/textured/textured_box.usdz")
        asFound.textureFormat = .original
        #expect(Self.contains(try file(try TranscodePipeline.run(asFound), "model.glb"), originalPNG),
                "without redaction the original is embedded")
        var redactedAsFound = try input(usd: "samples/textured/textured_box.usdz", redacted: "samples/textured/redacted")
        redactedAsFound.textureFormat = .original
        #expect(Self.contains(try file(try TranscodePipeline.run(redactedAsFound), "model.glb"), replacement))

        // By default the model's WebP is made from the replacement, never from the original.
        let r = try TranscodePipeline.run(try input(usd: "samples/textured/textured_box.usdz", redacted: "samples/textured/redacted"))
        let webp = try #require(try TextureReencodeTests.embeddedImages(try file(r, "model.glb")).first)
        let pixels = try #require(TextureReencodeTests.decodeWebP(webp))
        let blurred = try TextureDecoder.decode(replacement), unblurred = try TextureDecoder.decode(originalPNG)
        #expect(TextureReencodeTests.meanDifference(pixels, blurred.rgba) < TextureReencodeTests.meanDifference(pixels, unblurred.rgba))
        for f in r.files { #expect(!Self.contains(f.bytes, originalPNG), "\(f.path) contains the original texture") }
        let manifest = try #require(try JSONSerialization.jsonObject(with: Data(try file(r, "layer_manifest.json"))) as? [String: Any])
        let redactions = try #require(manifest["redactions"] as? [[String: Any]])
        #expect(redactions.count == 1)
        #expect(redactions.first?["texture_path"] as? String == "textures/albedo.png")
    }

    /// A replacement that cannot be applied stops the conversion: otherwise the original,
    /// unblurred texture would reach the model and the thumbnails.
    @Test func aRedactedTextureThatMatchesNothingOrSeveralFailsTheConversion() throws {
        var i = try input(usd: "samples/textured/textured_box.usdz")
        i.redactedTextures = [.init(relativePath: "faces/nobody.png", bytes: [1, 2, 3])]
        #expect { try TranscodePipeline.run(i) } throws: {
            guard let e = $0 as? PipelineError else { return false }
            return e.code == "REDACTION_INVALID" && !e.isRetryable && e.message.contains("matches no texture")
        }
        let failure = FailureReason.pipeline(code: "REDACTION_INVALID", message: "x", phase: .parsing, retryable: true,
                                             errorClass: .redaction)
        #expect(failure.reason == "REDACTION_INVALID" && !failure.isRetryable && failure.isInputError)
        // By file name, an offer that two entries share is ambiguous; one that an exact path
        // already replaces is too.
        let offer = RedactingAssetProvider.Offer(relativePath: "elsewhere/albedo.png", bytes: [1])
        let twice = RedactingAssetProvider.match([offer], entries: ["a/albedo.png", "b/albedo.png"])
        #expect(twice.matched.isEmpty && twice.ambiguous.count == 1)
        let taken = RedactingAssetProvider.match([offer, .init(relativePath: "a/albedo.png", bytes: [2])], entries: ["a/albedo.png"])
        #expect(taken.matched["a/albedo.png"]?.bytes == [2] && taken.ambiguous.map(\.relativePath) == ["elsewhere/albedo.png"])
        let byName = RedactingAssetProvider.match([offer], entries: ["a/albedo.png", "scene.usda"])
        #expect(byName.matched["a/albedo.png"] != nil && byName.unmatched.isEmpty && byName.ambiguous.isEmpty)
    }

    @Test func invalidInputsFailWithTypedCodes() throws {
        var bad = PipelineInput()
        bad.usd = .init(name: "x.usda", bytes: ByteView(Array("#usda 1.0\ndef \"A\" {".utf8)))
        #expect { try TranscodePipeline.run(bad) } throws: { ($0 as? PipelineError)?.has(USDParseError.Code.syntax) == true }
        var badJSON = PipelineInput()
        badJSON.roomPlanJSON = ("room.json", Array("{\"walls\": [".utf8))
        #expect { try TranscodePipeline.run(badJSON) } throws: {
            guard let e = $0 as? PipelineError else { return false }
            let json: [LayeringError.Code] = [.jsonInvalid, .jsonTooLarge]
            return json.contains { e.has($0) } && e.phase == .layering && !e.isRetryable
        }
        #expect { try TranscodePipeline.run(PipelineInput()) } throws: { ($0 as? PipelineError)?.code == "INPUT_MISSING" }
    }

    // MARK: helpers

    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard needle.count <= haystack.count, let first = needle.first else { return needle.isEmpty }
        var i = 0
        while i <= haystack.count - needle.count {
            if haystack[i] == first && Array(haystack[i..<(i + needle.count)]) == needle { return true }
            i += 1
        }
        return false
    }

    /// A stored entry's bytes from a zip (local headers; enough for our own samples).
    static func extract(_ zip: [UInt8], entry: String) -> [UInt8]? {
        var at = 0
        func u16(_ o: Int) -> Int { Int(zip[o]) | Int(zip[o + 1]) << 8 }
        func u32(_ o: Int) -> Int { u16(o) | u16(o + 2) << 16 }
        while at + 30 <= zip.count, u32(at) == 0x0403_4B50 {
            let size = u32(at + 18), nameLen = u16(at + 26), extraLen = u16(at + 28)
            let name = String(decoding: zip[(at + 30)..<(at + 30 + nameLen)], as: UTF8.self)
            let data = at + 30 + nameLen + extraLen
            if name == entry { return Array(zip[data..<(data + size)]) }
            at = data + size
        }
        return nil
    }
}
