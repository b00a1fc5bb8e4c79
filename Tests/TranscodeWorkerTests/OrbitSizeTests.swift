import Foundation
import Testing
import Thumbnailer

@testable import TranscodeWorker
@testable import WorkerRuntime
@testable import WorkerCore
@testable import JobPipeline

/// The orbit frames' size as a setting (`convert --orbit-size`, `job-exec --orbit-size`,
/// `TRANSCODE_ORBIT_SIZE`): one parser, refused when malformed, reaching the frames and the
/// thumbnails' key and nothing else.
@Suite struct OrbitSizeTests {
    @Test func sizeTextTakesASquareOrWidthByHeightWithinItsSides() {
        #expect(SizeText.parse("16").map { [$0.width, $0.height] } == [16, 16])
        #expect(SizeText.parse("768x576").map { [$0.width, $0.height] } == [768, 576])
        #expect(SizeText.parse("4096x16").map { [$0.width, $0.height] } == [4096, 16])
        for bad in ["", "x", "16x", "x16", "+16", "-16", " 16", "16 ", "16x16x16", "15", "4097", "16X16", "16x0",
                    "１６", "000016", "99999999999999999999", "16,16"] {
            #expect(SizeText.parse(bad) == nil, "'\(bad)' accepted")
        }
        #expect(SizeText.parse("0016x00512").map { [$0.width, $0.height] } == [16, 512])
        #expect(SizeText.parse("8", sides: 1...8).map { [$0.width, $0.height] } == [8, 8])
    }

    @Test func convertsOrbitSizeWinsForTheOrbitFramesWhateverTheOrder() throws {
        let c = try ConvertCommand(["room.usdz", "--out", "o", "--orbit-size", "96x72", "--thumb-size", "64"])
        #expect(c.settings.thumbnails?.sizes[.orbit] == ThumbnailSize(width: 96, height: 72))
        #expect(c.settings.thumbnails?.sizes[.hero] == ThumbnailSize(width: 64, height: 64))
        let d = try ConvertCommand(["room.usdz", "--out", "o", "--orbit-size", "200"])
        #expect(d.settings.thumbnails?.sizes[.orbit] == ThumbnailSize(width: 200, height: 200))
        #expect(d.settings.thumbnails?.sizes[.hero] == ThumbnailOptions().sizes[.hero])
        for bad in ["9x9", "96x", "big"] {
            #expect(throws: UsageError.self) { try ConvertCommand(["room.usdz", "--out", "o", "--orbit-size", bad]) }
        }
        // Without thumbnails the option changes nothing.
        #expect(try ConvertCommand(["room.usdz", "--out", "o", "--no-thumbnails", "--orbit-size", "96"]).settings.thumbnails == nil)
    }

    @Test func theJobChildTakesTheSizeItIsGiven() throws {
        let job = try JobExecCommand(["--out", "o", "--usd", "room.usdz", "--orbit-size", "512x384"])
        #expect(job.job.options.orbitSize == JobOptions.Size(width: 512, height: 384))
        #expect(try JobExecCommand(["--out", "o", "--usd", "room.usdz"]).job.options.orbitSize == nil)
        let card = try JobExecCommand(["--out", "o", "--usd", "room.usdz", "--card-size", "600x450"])
        #expect(card.job.options.cardSize == JobOptions.Size(width: 600, height: 450) && card.job.options.orbitSize == nil)
        #expect(throws: UsageError.self) { try JobExecCommand(["--out", "o", "--usd", "r.usdz", "--card-size", "10"]) }
        #expect(throws: UsageError.self) { try JobExecCommand(["--out", "o", "--usd", "r.usdz", "--orbit-size", "5000x10"]) }
    }

    @Test func theWorkerSettingIsNormalisedOrRefused() throws {
        // Unset, the child draws the renderer's default sizes (1320 × 990).
        #expect(WorkerConfig(environment: [:]).job.orbitSize == nil && WorkerConfig(environment: [:]).job.cardSize == nil)
        #expect(WorkerConfig(environment: ["TRANSCODE_CARD_SIZE": "600"]).job.cardSize?.description == "600x600")
        #expect(throws: UsageError.self) { try WorkerConfig(environment: ["TRANSCODE_CARD_SIZE": "8x8"]).validate() }
        #expect(WorkerConfig(environment: ["TRANSCODE_ORBIT_SIZE": "512x384"]).job.orbitSize?.description == "512x384")
        #expect(WorkerConfig(environment: ["TRANSCODE_ORBIT_SIZE": "600"]).job.orbitSize?.description == "600x600")
        for bad in ["512x384x1", "512 x 384", "huge", "8x8"] {
            #expect(throws: UsageError.self) { try WorkerConfig(environment: ["TRANSCODE_ORBIT_SIZE": bad]).validate() }
            var config = WorkerConfig(environment: [:])
            #expect(throws: UsageError.self) { try config.set("orbit-size", bad) }
        }
    }

    /// Two conversions of one scan that differ only in the orbit size: the frames take it, and
    /// only the thumbnails' key changes (the model and plan are reused by a re-transcode).
    @Test func theSizeReachesTheFramesAndOnlyTheThumbnailsKey() throws {
        let tests = ConvertTests()
        let pair = try #require(ConvertTests.roomPlanPairs.first)
        func run(_ orbit: ThumbnailSize) throws -> (PipelineResult, [String: Any]) {
            var input = try tests.input(usd: pair.usdz, json: pair.json)
            var options = ThumbnailOptions()
            options.views = [.orbit]
            options.sizes.orbit = orbit
            input.thumbnails = options
            let r = try TranscodePipeline.run(input)
            let manifest = try JSONSerialization.jsonObject(with: Data(try tests.file(r, "layer_manifest.json")))
            return (r, try #require(manifest as? [String: Any]))
        }
        let (small, smallManifest) = try run(ThumbnailSize(width: 96, height: 72))
        let (other, otherManifest) = try run(ThumbnailSize(width: 80, height: 60))
        for k in 0..<8 {
            let frame = try #require(Thumbnailer.decodeWebP(try tests.file(small, "thumbs/orbit-0\(k).webp")))
            #expect(frame.width == 96 && frame.height == 72)
        }
        let listed = try #require(smallManifest["thumbnails"] as? [[String: Any]])
        #expect(listed.count == 8 && listed.allSatisfy { $0["width"] as? Int == 96 && $0["height"] as? Int == 72 })
        #expect(try #require(Thumbnailer.decodeWebP(try tests.file(other, "thumbs/orbit-00.webp"))).width == 80)
        func key(_ m: [String: Any], _ group: String) -> String? {
            ((m["artifacts"] as? [String: Any])?[group] as? [String: Any])?["key"] as? String
        }
        #expect(key(smallManifest, "thumbnails") != nil && key(smallManifest, "thumbnails") != key(otherManifest, "thumbnails"))
        for group in ["model", "plan"] {
            #expect(key(smallManifest, group) != nil && key(smallManifest, group) == key(otherManifest, group), "\(group)")
        }
    }
}
