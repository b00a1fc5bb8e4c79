import Foundation
import SceneModel
import Testing
import TestSupport
@testable import Thumbnailer

/// Views at a phone's width: what changes above `ThumbnailOptions.denseSide`, the shared card
/// images, and the dense-mesh tiles that skip the centre passes.
struct DenseViewTests {
    @Test func samplesPerPixelFollowTheViewSize() throws {
        let context = try RenderContext(RoomFixture.room(), options: ThumbnailOptions())
        #expect(context.supersampling(width: 768, height: 576) == 3)
        #expect(context.supersampling(width: 1024, height: 1024) == 3)
        #expect(context.supersampling(width: 1320, height: 990) == 2)
        #expect(context.supersampling(width: 990, height: 1320) == 2)
        var options = ThumbnailOptions()
        options.supersampling = 4
        let fixed = try RenderContext(RoomFixture.room(), options: options)
        #expect(fixed.supersampling(width: 1320, height: 990) == 4)
        #expect(fixed.supersampling(width: 256, height: 256) == 4)
    }

    /// At half resolution the reader maps pixel x to x/2 − 1/4 exactly as before (so views up to
    /// 1024 pixels keep their bytes); at a quarter, each pixel centre lands on its own place
    /// between the coarse centres, and a coarse centre's four pixels average to its value.
    @Test func coarseOcclusionReadsBackAtEachPixelsCentre() {
        let w = 64, h = 8
        var values = [Float](repeating: 0, count: (w / 2) * (h / 2))
        for i in values.indices { values[i] = Float(i % 7) / 7 }
        values.withUnsafeBufferPointer { buf in
            let half = CoarseOcclusion(values: buf.baseAddress!, width: w, height: h, factor: 2)
            for y in 0..<h {
                for x in 0..<w {
                    let fx = max(Float(x) * 0.5 - 0.25, 0), fy = max(Float(y) * 0.5 - 0.25, 0)
                    let x0 = min(Int(fx), w / 2 - 1), x1 = min(x0 + 1, w / 2 - 1)
                    let y0 = min(Int(fy), h / 2 - 1), y1 = min(y0 + 1, h / 2 - 1)
                    let tx = fx - Float(x0), ty = fy - Float(y0)
                    let top = buf[y0 * 32 + x0] + (buf[y0 * 32 + x1] - buf[y0 * 32 + x0]) * tx
                    let bottom = buf[y1 * 32 + x0] + (buf[y1 * 32 + x1] - buf[y1 * 32 + x0]) * tx
                    #expect(half.at(x: x, y: y) == top + (bottom - top) * ty)
                }
            }
        }
        // A quarter: a ramp along x reads back as a ramp through the coarse centres.
        let ramp = (0..<(16 * 2)).map { Float($0 % 16) }
        ramp.withUnsafeBufferPointer { buf in
            let quarter = CoarseOcclusion(values: buf.baseAddress!, width: 64, height: 8, factor: 4)
            #expect(quarter.coarseWidth == 16 && quarter.coarseHeight == 2)
            for x in 2..<62 {
                // Pixel centre x + ½ is at coarse coordinate (x + ½)/4 − ½.
                #expect(abs(quarter.at(x: x, y: 0) - (Float(x) + 0.5) / 4 + 0.5) < 1e-6)
            }
            #expect(quarter.at(x: 0, y: 0) == 0)
            #expect(quarter.at(x: 63, y: 0) == 15)
            var filled = [Float](repeating: -1, count: 64 * 2)
            var scratch = [Float](repeating: 0, count: 3 * 64)
            filled.withUnsafeMutableBufferPointer { out in
                scratch.withUnsafeMutableBufferPointer { s in
                    quarter.fill(out.baseAddress!, x0: 0, y0: 0, width: 64, height: 2, scratch: s.baseAddress!)
                }
            }
            for x in 0..<64 { #expect(filled[x] == quarter.at(x: x, y: 0)) }
        }
    }

    @Test func theCardIsTheHerosImageAndTheSmallCardItsHalf() throws {
        var options = ThumbnailOptions()
        options.views = [.hero, .card, .cardSmall]
        options.sizes.setCard(ThumbnailSize(width: 320, height: 240))
        #expect(options.sizes.cardSmall == ThumbnailSize(width: 160, height: 120))
        let views = try Thumbnailer.render(RoomFixture.room(), options: options).views
        #expect(views.map(\.path) == ["thumbs/hero.webp", "thumbs/card.webp", "thumbs/card-small.webp"])
        let hero = try #require(views.first { $0.kind == .hero })
        let card = try #require(views.first { $0.kind == .card })
        let small = try #require(views.first { $0.kind == .cardSmall })
        #expect(card.webp == hero.webp)
        #expect(card.width == 320 && card.height == 240 && small.width == 160 && small.height == 120)
        // The small card is the card's pixels halved, not a render of its own.
        let cardImage = try #require(Thumbnailer.decodeWebP(card.webp))
        let halved = FrameBuffer.downsample2x(
            try Thumbnailer.renderRGBA(RoomFixture.room(), view: .card, options: options).image.rgba, width: 320,
            height: 240)
        var direct = options
        direct.sizes.card = ThumbnailSize(width: 160, height: 120)
        let rendered = try Thumbnailer.renderRGBA(RoomFixture.room(), view: .card, options: direct).image.rgba
        #expect(cardImage.width == 320)
        let smallImage = try #require(Thumbnailer.decodeWebP(small.webp))
        let toHalved = ReferenceImageTests.difference(smallImage.rgba, halved.rgba, threshold: 24)
        let toRendered = ReferenceImageTests.difference(smallImage.rgba, rendered, threshold: 24)
        #expect(toHalved.mean < toRendered.mean, "halved \(toHalved.mean), rendered \(toRendered.mean)")
    }

    @Test func aSmallCardOfAnotherSizeIsRenderedAtItsSize() throws {
        var options = ThumbnailOptions()
        options.views = [.cardSmall]
        options.sizes.cardSmall = ThumbnailSize(width: 200, height: 100)
        let views = try Thumbnailer.render(RoomFixture.room(), options: options).views
        #expect(views.count == 1)
        #expect(views[0].kind == .cardSmall && views[0].width == 200 && views[0].height == 100)
        let image = try #require(Thumbnailer.decodeWebP(views[0].webp))
        #expect(image.width == 200 && image.height == 100)
    }

    /// A grid of tiny triangles: every tile holds more than one triangle per eight pixels, so it
    /// is drawn at the full rate at once; the image is the full-rate render's.
    @Test func denseTilesAreDrawnAtTheFullRate() {
        let side = 64, cells = 48
        var positions: [Float] = []
        for j in 0..<cells {
            for i in 0..<cells {
                let x0 = Float(i) * Float(side) / Float(cells), x1 = Float(i + 1) * Float(side) / Float(cells)
                let y0 = Float(j) * Float(side) / Float(cells), y1 = Float(j + 1) * Float(side) / Float(cells)
                positions += [x0, y0, 0, x1, y0, 0, x1, y1, 0, x0, y0, 0, x1, y1, 0, x0, y1, 0]
            }
        }
        let scene = TestScenes.triangles(positions)
        let camera = TestScenes.pixelCamera(width: side, height: side)
        var settings = TestScenes.exact(ss: 2)
        settings.tilePixels = 32
        settings.lit = true
        let adaptive = TestScenes.render(scene, camera: camera, width: side, height: side, settings: settings)
        settings.adaptive = false
        let full = TestScenes.render(scene, camera: camera, width: side, height: side, settings: settings)
        // 2 × 48² triangles over 64² pixels: more than an eighth per pixel in every tile.
        #expect(adaptive.fullRate == side * side)
        #expect(adaptive.rgba == full.rgba)
        // The same grid with few triangles goes through the centre passes: most pixels keep them.
        let coarse = TestScenes.triangles([0, 0, 0, 64, 0, 0, 64, 64, 0, 0, 0, 0, 64, 64, 0, 0, 64, 0])
        settings.adaptive = true
        let sparse = TestScenes.render(coarse, camera: camera, width: side, height: side, settings: settings)
        #expect(sparse.fullRate < side * side / 4)
    }
}
