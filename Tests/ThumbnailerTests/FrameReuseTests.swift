import SceneModel
import Testing
@testable import Thumbnailer

/// The orbit frames are drawn into reused image buffers and encoded as they are drawn; the bytes
/// must be those of each frame drawn and encoded on its own, whatever the buffer held before.
struct FrameReuseTests {
    static var options: ThumbnailOptions {
        var o = ThumbnailOptions()
        o.sizes.setCard(ThumbnailSize(width: 160, height: 120))
        o.sizes.orbit = ThumbnailSize(width: 160, height: 120)
        o.sizes.plan = ThumbnailSize(width: 96, height: 96)
        return o
    }

    /// Every orbit frame (drawn into the card's memory and then into each other's) is, byte for
    /// byte, the frame rendered alone and encoded the same way; the card and the plan too.
    @Test func theOrbitFramesAreTheFramesDrawnAlone() throws {
        let room = RoomFixture.room()
        var o = Self.options
        o.views = [.hero, .card, .cardSmall, .orbit, .plan]
        let views = try Thumbnailer.render(room, options: o).views
        #expect(views.map(\.path) == [
            "thumbs/hero.webp", "thumbs/card.webp", "thumbs/card-small.webp", "thumbs/orbit-00.webp",
            "thumbs/orbit-01.webp", "thumbs/orbit-02.webp", "thumbs/orbit-03.webp", "thumbs/orbit-04.webp",
            "thumbs/orbit-05.webp", "thumbs/orbit-06.webp", "thumbs/orbit-07.webp", "thumbs/plan.webp",
        ])
        func alone(_ kind: ThumbnailView.Kind, _ index: Int = 0) throws -> [UInt8] {
            let image = try Thumbnailer.renderRGBA(room, view: kind, orbitIndex: index, options: o).image
            return try Thumbnailer.encodeWebP(
                rgba: image.rgba, width: image.width, height: image.height, quality: o.webpQuality,
                method: o.webpMethod, segments: o.webpSegments)
        }
        for k in 0..<8 {
            let frame = try #require(views.first { $0.path == "thumbs/orbit-0\(k).webp" })
            #expect(frame.webp == (try alone(.orbit, k)), "orbit-0\(k)")
        }
        #expect(views[1].webp == (try alone(.card)))
        #expect(views[11].webp == (try alone(.plan)))
        // Orbit frames alone (no card memory to start from) give the same bytes.
        var orbitOnly = o
        orbitOnly.views = [.orbit]
        #expect(try Thumbnailer.render(room, options: orbitOnly).views.map(\.webp) == Array(views[3..<11].map(\.webp)))
    }

    /// A buffer of the right size is drawn into in place (the same memory comes back) and every
    /// pixel of what it held is replaced; one of another size is replaced by a new image.
    @Test func aBufferIsDrawnIntoInPlace() throws {
        let context = try RenderContext(RoomFixture.room(), options: Self.options)
        let camera = context.planner.orbitCameras(width: 160, height: 120)
        let fresh = context.renderScene(camera: camera[3], width: 160, height: 120, cutaway: true).rgba
        // Stale pixels: another frame, then noise.
        var stale = context.renderScene(camera: camera[6], width: 160, height: 120, cutaway: true).rgba
        #expect(stale != fresh)
        for i in stride(from: 0, to: stale.count, by: 7) { stale[i] = UInt8(truncatingIfNeeded: i * 31) }
        // A capacity no new image has marks the buffer (an address alone could be handed out
        // again by the allocator).
        stale.reserveCapacity(2 * stale.count)
        let address = stale.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
        let drawn = context.renderScene(camera: camera[3], width: 160, height: 120, cutaway: true, reusing: consume stale)
        #expect(drawn.rgba == fresh)
        #expect(drawn.rgba.capacity >= 2 * fresh.count)
        #expect(drawn.rgba.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) } == address)
        let small = [UInt8](repeating: 0, count: 40)
        let replaced = context.renderScene(camera: camera[3], width: 160, height: 120, cutaway: true, reusing: small)
        #expect(replaced.rgba == fresh)
    }

    /// The small card's filter over a ring of four rows is the [1 3 3 1]/8 filter of the whole
    /// image, clamped at the edges, for even and odd sizes.
    @Test func halvingMatchesTheWholeImageFilter() {
        for (w, h) in [(9, 7), (16, 10), (5, 2), (2, 2)] {
            var rgba = [UInt8](repeating: 255, count: w * h * 4)
            for i in rgba.indices where i % 4 != 3 { rgba[i] = UInt8(truncatingIfNeeded: i &* 97 &+ i / 5) }
            let half = FrameBuffer.downsample2x(rgba, width: w, height: h)
            #expect(half.width == max(1, w / 2) && half.height == max(1, h / 2))
            let lin = ColorSpace.srgbToLinear
            func px(_ x: Int, _ y: Int) -> SIMD3<Float> {
                let o = (min(max(y, 0), h - 1) * w + min(max(x, 0), w - 1)) * 4
                return SIMD3(lin[Int(rgba[o])], lin[Int(rgba[o + 1])], lin[Int(rgba[o + 2])])
            }
            var expected = [UInt8](repeating: 255, count: half.width * half.height * 4)
            ColorSpace.linearToSRGBTable.withUnsafeBufferPointer { table in
                for y in 0..<half.height {
                    for x in 0..<half.width {
                        func row(_ sy: Int) -> SIMD3<Float> {
                            var acc = SIMD3<Float>.zero
                            acc += px(2 * x - 1, sy) * 1
                            acc += px(2 * x, sy) * 3
                            acc += px(2 * x + 1, sy) * 3
                            acc += px(2 * x + 2, sy) * 1
                            return acc * 0.125
                        }
                        var acc = SIMD3<Float>.zero
                        acc += row(2 * y - 1) * 1
                        acc += row(2 * y) * 3
                        acc += row(2 * y + 1) * 3
                        acc += row(2 * y + 2) * 1
                        acc *= 0.125
                        let o = (y * half.width + x) * 4
                        expected[o] = ColorSpace.encode(acc.x, table: table.baseAddress!)
                        expected[o + 1] = ColorSpace.encode(acc.y, table: table.baseAddress!)
                        expected[o + 2] = ColorSpace.encode(acc.z, table: table.baseAddress!)
                    }
                }
            }
            #expect(half.rgba == expected, "\(w)×\(h)")
        }
    }
}
