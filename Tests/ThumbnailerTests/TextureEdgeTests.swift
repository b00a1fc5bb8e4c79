import SceneModel
import Testing
@testable import Thumbnailer

/// Adaptive supersampling on textured surfaces: a magnified texture's variation is smooth at the
/// pixel's scale and sends no pixel to the full sample rate (its mean colour stands in for it
/// while edges are found), while a minified texture's detail still does.
struct TextureEdgeTests {
    /// A textured quad from −8 to `side` + 8 in x and y (past every side of the pixel camera's
    /// `side` × `side` image, so no silhouette is in view), uv (0, 0) to (1, 1), repeating.
    static func quad(texture: [UInt8], side: Float) -> Scene {
        var s = Scene()
        let t = s.addTexture(Texture(bytes: texture, mimeType: "image/png", sourcePath: "tex.png"))
        let m = s.addMaterial(
            Material(
                name: "tex", baseColor: SIMD4(1, 1, 1, 1),
                baseColorTexture: TextureRef(texture: t, wrapS: .repeatTexture, wrapT: .repeatTexture)))
        let lo: Float = -8, hi = side + 8
        let mesh = s.addMesh(
            Mesh(
                name: "q", positions: [lo, lo, 0, hi, lo, 0, hi, hi, 0, lo, hi, 0], uv0: [0, 1, 1, 1, 1, 0, 0, 0],
                indices: [0, 1, 2, 0, 2, 3], primitives: [Mesh.Primitive(indexStart: 0, indexCount: 6, material: m)]))
        s.addNode(Node(name: "q", mesh: mesh))
        return s
    }

    /// A `n` × `n` texture of strongly different colours (a checkerboard of `cell`-texel squares
    /// of red and blue, with a gradient of green across it).
    static func texture(n: Int, cell: Int) -> [UInt8] {
        var texels = [UInt8](repeating: 255, count: n * n * 4)
        for y in 0..<n {
            for x in 0..<n {
                let odd = ((x / cell) + (y / cell)) % 2 == 1
                texels[(y * n + x) * 4] = odd ? 230 : 20
                texels[(y * n + x) * 4 + 1] = UInt8(x * 255 / max(n - 1, 1))
                texels[(y * n + x) * 4 + 2] = odd ? 20 : 230
            }
        }
        return PNGWriter.encode(rgba: texels, width: n, height: n)
    }

    static func settings(adaptive: Bool) -> RenderSettings {
        var s = TestScenes.exact(ss: 3)
        s.adaptive = adaptive
        s.lit = true
        s.tilePixels = 16
        return s
    }

    @Test func aMagnifiedTextureNeedsNoFullRatePixel() {
        // 8 × 8 texels over the quad's 80 × 80 pixels: every texel spans ten pixels.
        let scene = Self.quad(texture: Self.texture(n: 8, cell: 1), side: 64)
        let camera = TestScenes.pixelCamera(width: 64, height: 64)
        let adaptive = TestScenes.render(scene, camera: camera, width: 64, height: 64, settings: Self.settings(adaptive: true))
        let full = TestScenes.render(scene, camera: camera, width: 64, height: 64, settings: Self.settings(adaptive: false))
        #expect(adaptive.covered == 64 * 64 && full.fullRate == 64 * 64)
        #expect(adaptive.fullRate == 0, "\(adaptive.fullRate) pixels at the full rate")
        // And the image is what the full rate gives, to within a fraction of a code value.
        let d = ReferenceImageTests.difference(adaptive.rgba, full.rgba, threshold: ReferenceImageTests.outlierThreshold)
        #expect(d.mean <= AdaptiveSamplingTests.maxMeanError && d.outliers == 0, "mean \(d.mean), outliers \(d.outliers)")
    }

    @Test func aMinifiedTexturesDetailStillTakesTheFullRate() {
        // 96 × 96 one-texel squares over the quad's 80 × 80 pixels: 1.2 texels per pixel, finer
        // than a pixel and too coarse for the next mip level to average away.
        let scene = Self.quad(texture: Self.texture(n: 96, cell: 1), side: 64)
        let camera = TestScenes.pixelCamera(width: 64, height: 64)
        let adaptive = TestScenes.render(scene, camera: camera, width: 64, height: 64, settings: Self.settings(adaptive: true))
        #expect(adaptive.fullRate > 64 * 64 / 2, "\(adaptive.fullRate) pixels at the full rate")
    }
}
