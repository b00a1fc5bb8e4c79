import Foundation
import SceneModel
import Testing
@testable import Thumbnailer

/// Thumbnails are encoded with one quantiser segment at quality 75 (`ThumbnailOptions`): libwebp
/// then skips its analysis pass. These tests hold that choice to what it promises on rendered
/// views: the bytes and fidelity of libwebp's default four segments at quality 80.
struct WebPSegmentsTests {
    /// Peak signal-to-noise ratio of `decoded` against `source` over the RGB channels, in dB.
    static func psnr(_ source: [UInt8], _ decoded: [UInt8]) -> Double {
        var sum = 0.0, n = 0
        for i in stride(from: 0, to: min(source.count, decoded.count), by: 4) {
            for c in 0..<3 {
                let d = Double(source[i + c]) - Double(decoded[i + c])
                sum += d * d
                n += 1
            }
        }
        return sum == 0 ? .infinity : 10 * log10(255 * 255 / (sum / Double(n)))
    }

    static func views() throws -> [ThumbnailImage] {
        var options = ThumbnailOptions()
        options.sizes.hero = ThumbnailSize(width: 512, height: 384)
        options.sizes.orbit = ThumbnailSize(width: 384, height: 288)
        let room = RoomFixture.room()
        return [
            try Thumbnailer.renderRGBA(room, view: .hero, options: options).image,
            try Thumbnailer.renderRGBA(room, view: .orbit, orbitIndex: 1, options: options).image,
            try Thumbnailer.renderRGBA(room, view: .orbit, orbitIndex: 5, options: options).image,
        ]
    }

    @Test func defaultsAreOneSegmentAtQuality75() {
        let o = ThumbnailOptions()
        #expect(o.webpSegments == 1 && o.webpQuality == 75 && o.webpMethod == 2)
    }

    @Test func oneSegmentAtQuality75KeepsTheBytesAndFidelityOfFourAt80() throws {
        var bytes = (four: 0, one: 0), error = (four: 0.0, one: 0.0)
        for v in try Self.views() {
            let four = try #require(WebPCodec.encode(rgba: v.rgba, width: v.width, height: v.height, quality: 80, method: 2))
            let one = try #require(
                WebPCodec.encode(rgba: v.rgba, width: v.width, height: v.height, quality: 75, method: 2, segments: 1))
            #expect(four != one, "the segment count reaches libwebp")
            let a = try #require(WebPCodec.decode(four)), b = try #require(WebPCodec.decode(one))
            bytes.four += four.count
            bytes.one += one.count
            // Fidelity as mean squared error, summed over the views so each counts by its pixels.
            error.four += pow(10, -Self.psnr(v.rgba, a.rgba) / 10)
            error.one += pow(10, -Self.psnr(v.rgba, b.rgba) / 10)
        }
        let dB = 10 * log10(error.four / error.one)  // > 0: one segment is closer to the source
        #expect(Double(bytes.one) <= Double(bytes.four) * 1.10, "bytes: \(bytes)")
        #expect(dB >= -0.5, "one segment at 75 is \(dB) dB against four at 80")
    }

    @Test func renderedThumbnailsAreEncodedWithTheOptionsSegments() throws {
        var options = ThumbnailOptions(views: [.hero])
        options.sizes.hero = ThumbnailSize(width: 256, height: 192)
        let room = RoomFixture.room()
        let pixels = try Thumbnailer.renderRGBA(room, view: .hero, options: options).image
        for segments in [1, 4] {
            options.webpSegments = segments
            let hero = try #require(try Thumbnailer.render(room, options: options).views.first)
            let expected = WebPCodec.encode(
                rgba: pixels.rgba, width: 256, height: 192, quality: options.webpQuality, method: 2, segments: segments)
            #expect(hero.webp == expected, "segments \(segments)")
        }
    }
}
