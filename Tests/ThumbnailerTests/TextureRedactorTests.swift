import Foundation
import Testing
@testable import Thumbnailer

/// The server-side blur of redacted areas: the right corner is blurred, the opposite one is not,
/// the app's bottom-left origin is honoured, and the detail measure tells a sharp area from a
/// blurred one.
struct TextureRedactorTests {
    /// A sharp texture: per-pixel noise from a fixed generator, so every corner is full of detail.
    static func noise(width: Int, height: Int) -> [UInt8] {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        var rgba = [UInt8](repeating: 255, count: width * height * 4)
        for i in 0..<(width * height) {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let v = UInt8(truncatingIfNeeded: state >> 56)
            rgba[i * 4] = v; rgba[i * 4 + 1] = v &+ 37; rgba[i * 4 + 2] = 255 &- v
        }
        return rgba
    }

    static let bottomLeft = TextureRedactor.Area(x: 0, y: 0, width: 0.25, height: 0.25, fromBottom: true)
    static let topLeftSeenFromBottom = TextureRedactor.Area(x: 0, y: 0.75, width: 0.25, height: 0.25, fromBottom: true)
    static let topRight = TextureRedactor.Area(x: 0.75, y: 0, width: 0.25, height: 0.25, fromBottom: false)

    @Test func aBottomLeftRegionBlursTheBottomLeftCornerOnly() throws {
        let png = PNGWriter.encode(rgba: Self.noise(width: 256, height: 256), width: 256, height: 256)
        let before = try TextureRedactor.measure(png, areas: [Self.bottomLeft, Self.topLeftSeenFromBottom])
        #expect(before.ratio.allSatisfy { $0 > 0.9 }, "noise is equally sharp everywhere: \(before.ratio)")
        let blurred = try TextureRedactor.blur(png, areas: [Self.bottomLeft])
        #expect(Array(blurred.webp.prefix(4)) == Array("RIFF".utf8))
        #expect(blurred.width == 256 && blurred.height == 256)
        #expect(!TextureRedactor.isSharp(blurred, area: 0))
        let after = try TextureRedactor.measure(blurred.webp, areas: [Self.bottomLeft, Self.topLeftSeenFromBottom, Self.topRight])
        #expect(after.ratio[0] < 0.05, "the bottom-left corner keeps detail: \(after.ratio[0])")
        #expect(after.ratio[1] > 0.5, "the top-left corner (the opposite row) was blurred: \(after.ratio[1])")
        #expect(after.ratio[2] > 0.5, "the top-right corner was blurred: \(after.ratio[2])")
        // The pixels: the bottom rows of the left quarter are smooth, the top rows are not.
        let image = try #require(Thumbnailer.decodeWebP(blurred.webp))
        func rowSpread(_ y: Int) -> Int {
            let row = (0..<48).map { Int(image.rgba[(y * 256 + $0) * 4]) }
            return (row.max() ?? 0) - (row.min() ?? 0)
        }
        #expect(rowSpread(250) < 40 && rowSpread(5) > 150)
    }

    @Test func theSameRegionFromTheTopBlursTheTopCorner() throws {
        let png = PNGWriter.encode(rgba: Self.noise(width: 128, height: 96), width: 128, height: 96)
        let fromTop = TextureRedactor.Area(x: 0, y: 0, width: 0.25, height: 0.25, fromBottom: false)
        let blurred = try TextureRedactor.blur(png, areas: [fromTop])
        let after = try TextureRedactor.measure(blurred.webp, areas: [fromTop, Self.bottomLeft])
        #expect(after.ratio[0] < 0.05 && after.ratio[1] > 0.5)
    }

    @Test func theDetailCheckTellsASharpAreaFromABlurredOne() throws {
        let png = PNGWriter.encode(rgba: Self.noise(width: 200, height: 200), width: 200, height: 200)
        let sharp = try TextureRedactor.measure(png, areas: [Self.bottomLeft])
        #expect(sharp.ratio[0] > TextureRedactor.sharpRatio && sharp.detail[0] > TextureRedactor.sharpFloor)
        let blurred = try TextureRedactor.blur(png, areas: [Self.bottomLeft])
        let left = try TextureRedactor.measure(blurred.webp, areas: [Self.bottomLeft])
        #expect(left.ratio[0] < TextureRedactor.sharpRatio)
        // The feather: just outside the area the blend has begun, far outside nothing changed.
        #expect(blurred.sigma >= TextureRedactor.minimumSigma)
    }

    @Test func equalInputsGiveEqualBytes() throws {
        let png = PNGWriter.encode(rgba: Self.noise(width: 64, height: 64), width: 64, height: 64)
        #expect(try TextureRedactor.blur(png, areas: [Self.topRight]).webp == TextureRedactor.blur(png, areas: [Self.topRight]).webp)
    }
}
