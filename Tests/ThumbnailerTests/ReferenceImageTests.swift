import Foundation
import SceneModel
import Testing
import TestSupport
import USDParse
@testable import Thumbnailer

/// The renderer's look, pinned by pictures rather than bytes: each case is rendered and compared
/// with a reference image in `Tests/Fixtures/thumbnails/` (lossless WebP, so the file decodes to
/// exactly the pixels that were rendered when it was made). Renderer optimisations may move
/// individual anti-aliased edge pixels, but not the picture:
///
/// - the mean absolute difference over all pixels and the three colour channels is at most
///   `maxMeanError` (in 8-bit sRGB code values), and
/// - at most `maxOutlierShare` of the pixels differ by more than `outlierThreshold` in any channel.
///
/// `THUMBNAILER_UPDATE_REFERENCE=1` rewrites the references from the current renderer (do that only
/// for an intended change of the look, and look at the images first).
struct ReferenceImageTests {
    /// Mean absolute error per channel, in sRGB code values (of 255).
    static let maxMeanError = 1.0
    /// Per-channel difference above which a pixel counts as visibly different.
    static let outlierThreshold = 24
    /// Share of pixels allowed to differ by more than `outlierThreshold`.
    static let maxOutlierShare = 0.005

    static let directory = TestPaths.fixtures.appendingPathComponent("thumbnails")

    struct Case: CustomStringConvertible, Sendable {
        var name: String
        var view: ThumbnailView.Kind
        var orbitIndex: Int
        var width: Int
        var height: Int
        var description: String { name }
    }

    static let cases: [Case] = [
        Case(name: "fixture-room-hero", view: .hero, orbitIndex: 0, width: 320, height: 240),
        Case(name: "fixture-room-orbit-1", view: .orbit, orbitIndex: 1, width: 256, height: 192),
        Case(name: "fixture-room-orbit-6", view: .orbit, orbitIndex: 6, width: 256, height: 192),
        Case(name: "textured-box-hero", view: .hero, orbitIndex: 0, width: 256, height: 192),
        // Over `ThumbnailOptions.denseSide`: 2 × 2 samples at edges, occlusion at a quarter.
        Case(name: "fixture-room-orbit-1-dense", view: .orbit, orbitIndex: 1, width: 1056, height: 792),
    ]

    static func scene(for c: Case) throws -> LayeredScene {
        if c.name.hasPrefix("fixture-room") { return RoomFixture.room() }
        let url = TestPaths.packageRoot.appendingPathComponent("samples/textured/textured_box.usdz")
        let bytes = [UInt8](try Data(contentsOf: url))
        return TestScenes.layered(try USDParser.parseScene(bytes, name: url.lastPathComponent).scene)
    }

    static func render(_ c: Case) throws -> ThumbnailImage {
        var options = ThumbnailOptions()
        options.sizes[c.view] = ThumbnailSize(width: c.width, height: c.height)
        return try Thumbnailer.renderRGBA(try scene(for: c), view: c.view, orbitIndex: c.orbitIndex, options: options)
            .image
    }

    /// Mean absolute channel error (code values) and the share of pixels with a channel off by
    /// more than `threshold`.
    static func difference(_ a: [UInt8], _ b: [UInt8], threshold: Int) -> (mean: Double, outliers: Double) {
        precondition(a.count == b.count && a.count % 4 == 0)
        var sum = 0, outliers = 0
        for p in stride(from: 0, to: a.count, by: 4) {
            var worst = 0
            for k in 0..<3 {
                let d = abs(Int(a[p + k]) - Int(b[p + k]))
                sum += d
                worst = max(worst, d)
            }
            if worst > threshold { outliers += 1 }
        }
        let pixels = Double(a.count / 4)
        return (Double(sum) / (pixels * 3), Double(outliers) / pixels)
    }

    @Test(arguments: cases)
    func matchesReference(_ c: Case) throws {
        let image = try Self.render(c)
        let url = Self.directory.appendingPathComponent(c.name + ".webp")
        TestScenes.saveDebugImage("reference-" + c.name, rgba: image.rgba, width: c.width, height: c.height)
        if ProcessInfo.processInfo.environment["THUMBNAILER_UPDATE_REFERENCE"] == "1" {
            let bytes = try #require(
                WebPCodec.encode(
                    rgba: image.rgba, width: c.width, height: c.height, quality: 100, method: 6, lossless: true))
            try FileManager.default.createDirectory(at: Self.directory, withIntermediateDirectories: true)
            try Data(bytes).write(to: url)
        }
        let stored = try #require(
            WebPCodec.decode([UInt8](try Data(contentsOf: url))), "reference \(url.lastPathComponent) unreadable")
        #expect(stored.width == c.width && stored.height == c.height)
        guard stored.rgba.count == image.rgba.count else { return }
        let d = Self.difference(image.rgba, stored.rgba, threshold: Self.outlierThreshold)
        #expect(
            d.mean <= Self.maxMeanError && d.outliers <= Self.maxOutlierShare,
            "\(c.name): mean error \(d.mean) (≤ \(Self.maxMeanError)), pixels off by > \(Self.outlierThreshold): \(d.outliers * 100) % (≤ \(Self.maxOutlierShare * 100) %)"
        )
    }
}
