import Foundation
import SceneModel
import Testing
import TestSupport
import USDParse
@testable import Thumbnailer

/// Adaptive supersampling against the full sample rate: the same views rendered both ways stay
/// within a fraction of a code value on average, with almost no visibly different pixels; and
/// the pixel classification marks what it should.
struct AdaptiveSamplingTests {
    /// Mean absolute channel difference allowed (sRGB code values of 255).
    static let maxMeanError = 0.05
    /// Share of pixels allowed a channel off by more than `ReferenceImageTests.outlierThreshold`.
    static let maxOutlierShare = 0.0005

    struct Case: CustomStringConvertible, Sendable {
        var name: String
        var view: ThumbnailView.Kind
        var orbitIndex: Int
        var description: String { "\(name) \(view.rawValue) \(orbitIndex)" }
    }

    static let scanNames = ["pak_room4_ios16_mesh.usdz", "sekhar_room_parametric_2sections.usdz"]
    static let cases: [Case] =
        [Case(name: "fixture-room", view: .hero, orbitIndex: 0), Case(name: "fixture-room", view: .orbit, orbitIndex: 3),
         Case(name: "fixture-room", view: .plan, orbitIndex: 0), Case(name: "textured-box", view: .hero, orbitIndex: 0)]
        + scanNames.flatMap { n in
            [Case(name: n, view: .hero, orbitIndex: 0), Case(name: n, view: .orbit, orbitIndex: 2),
             Case(name: n, view: .orbit, orbitIndex: 6)]
        }

    static func scene(_ name: String) throws -> LayeredScene? {
        if name == "fixture-room" { return RoomFixture.room() }
        let url: URL
        if name == "textured-box" {
            url = TestPaths.packageRoot.appendingPathComponent("samples/textured/textured_box.usdz")
        } else {
            url = CorpusTests.corpus.appendingPathComponent("roomplan/usdz/" + name)
            guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        }
        let bytes = [UInt8](try Data(contentsOf: url))
        return TestScenes.layered(try USDParser.parseScene(bytes, name: url.lastPathComponent).scene)
    }

    @Test(arguments: cases)
    func adaptiveMatchesTheFullRate(_ c: Case) throws {
        guard let layered = try Self.scene(c.name) else { return }  // corpus not beside the checkout
        var options = ThumbnailOptions()
        options.sizes[c.view] = ThumbnailSize(width: 384, height: c.view == .plan ? 384 : 288)
        let adaptive = try Thumbnailer.renderRGBA(layered, view: c.view, orbitIndex: c.orbitIndex, options: options)
        options.adaptiveSupersampling = false
        let full = try Thumbnailer.renderRGBA(layered, view: c.view, orbitIndex: c.orbitIndex, options: options)
        let d = ReferenceImageTests.difference(
            adaptive.image.rgba, full.image.rgba, threshold: ReferenceImageTests.outlierThreshold)
        #expect(d.mean <= Self.maxMeanError, "mean difference \(d.mean)")
        #expect(d.outliers <= Self.maxOutlierShare, "outlier share \(d.outliers)")
        // Silhouettes are found, so the covered area is the same to within the edge pixels.
        let covered = Double(full.image.coveredPixels)
        #expect(abs(Double(adaptive.image.coveredPixels) - covered) <= max(8, covered * 0.002))
    }

    /// A dark sliver 0.3 pixels wide across a white quad, unlit and without edges or occlusion:
    /// no pixel centre falls on it, so only the thin-triangle marks keep it.
    @Test func aSliverBetweenPixelCentresIsStillDrawn() {
        let w = 128, h = 96
        var positions: [Float] = [0, 0, 0, Float(w), 0, 0, Float(w), Float(h), 0, 0, 0, 0, Float(w), Float(h), 0, 0, Float(h), 0]
        // Nearly horizontal, from y = 40.05 to 40.15 and 0.3 wide: it never reaches the pixel
        // centres at y = 40.5, nor those at 39.5.
        let a = SIMD2<Float>(10, 40.05), b = SIMD2<Float>(118, 40.15)
        let d = b - a, n = SIMD2(-d.y, d.x) / (d.x * d.x + d.y * d.y).squareRoot() * 0.3
        let (a2, b2) = (a + n, b + n)
        for p in [a, b, b2, a, b2, a2] { positions += [p.x, p.y, 1] }
        var scene = TestScenes.triangles(positions)
        // The sliver (last two triangles) in a material of its own.
        let dark = scene.addMaterial(Material(name: "dark", baseColor: SIMD4(0.02, 0.02, 0.02, 1)))
        scene.meshes[0].primitives = [
            Mesh.Primitive(indexStart: 0, indexCount: 6, material: scene.meshes[0].primitives[0].material),
            Mesh.Primitive(indexStart: 6, indexCount: 6, material: dark),
        ]
        var settings = TestScenes.exact(ss: 3)
        settings.background = SIMD3(1, 1, 1)
        settings.tilePixels = 32
        let camera = TestScenes.pixelCamera(width: w, height: h)
        let adaptive = TestScenes.render(scene, camera: camera, width: w, height: h, settings: settings)
        settings.adaptive = false
        let full = TestScenes.render(scene, camera: camera, width: w, height: h, settings: settings)
        let diff = ReferenceImageTests.difference(adaptive.rgba, full.rgba, threshold: 8)
        #expect(diff.outliers == 0, "pixels off by more than 8: \(diff.outliers * Double(w * h))")
        // The sliver is there: about a third of each pixel along it is dark.
        let darkened = stride(from: 0, to: full.rgba.count, by: 4).filter { full.rgba[$0] < 230 }.count
        #expect(darkened >= 100, "darkened pixels: \(darkened)")
    }

    /// A 10×10 grid (an 8×8 tile and its border) of one flat colour on a tilted plane.
    static func flatPass() -> PixelPass {
        var p = PixelPass(maxPixels: 8)
        p.buffers.reset(cols: 10, rows: 10, background: .zero)
        for y in 0..<10 {
            for x in 0..<10 {
                p.buffers.depth[y * 10 + x] = 0.5 + 0.01 * Float(x) + 0.003 * Float(y)
                p.buffers.color[y * 10 + x] = SIMD4(0.6, 0.6, 0.6, 1)
                p.buffers.ids[y * 10 + x] = 7
            }
        }
        return p
    }

    static func columns(_ mask: UnsafeMutablePointer<UInt8>, row: Int) -> [Int] {
        (0..<10).filter { mask[row * 10 + $0] != 0 }
    }

    @Test func aSmoothSurfaceNeedsNoFullRatePixel() {
        let p = Self.flatPass()
        defer { p.deallocate() }
        #expect(!p.classify(perspective: true, orthoReference: 1))
    }

    @Test func aColourEdgeMarksBothSidesAndWidensTwice() {
        let p = Self.flatPass()
        defer { p.deallocate() }
        for y in 0..<10 {
            for x in 5..<10 { p.buffers.color[y * 10 + x] = SIMD4(0.3, 0.6, 0.6, 1) }
        }
        #expect(p.classify(perspective: true, orthoReference: 1))
        for row in [0, 4, 9] {
            #expect(Self.columns(p.complex, row: row) == [4, 5])
            #expect(Self.columns(p.resolved, row: row) == [3, 4, 5, 6])
            #expect(Self.columns(p.rasterized, row: row) == [2, 3, 4, 5, 6, 7])
        }
        #expect(!p.allResolved())
        // Pixel columns 2…7 of the grid are tile columns 1…6: at 3 samples a pixel with a
        // 2-sample apron, buffer columns 5…22 of every row.
        let runs = SampleRuns(maxPixelRows: 10, maxPixelColumns: 10, maxRows: 28)
        defer { runs.deallocate() }
        p.buildRuns(runs, ss: 3, apron: 2, cols: 28, rows: 28)
        for r in [0, 1, 13, 27] {
            #expect(runs.bounds(row: r).map { [$0.lo, $0.hi] } == [5, 22])
            #expect(runs.range(row: r).count == 1)
        }
    }

    @Test func elementsCoverageAndCreasesAreEdges() {
        // Another element id with the same colour.
        var p = Self.flatPass()
        p.buffers.ids[3 * 10 + 3] = 8
        #expect(p.classify(perspective: true, orthoReference: 1))
        #expect(Self.columns(p.complex, row: 3) == [2, 3, 4])
        #expect(Self.columns(p.complex, row: 2) == [3])
        p.deallocate()
        // A hole in the coverage (background: depth −∞, colour w = 0).
        p = Self.flatPass()
        p.buffers.depth[6 * 10 + 6] = -.infinity
        p.buffers.color[6 * 10 + 6] = SIMD4(0.6, 0.6, 0.6, 0)
        #expect(p.classify(perspective: true, orthoReference: 1))
        #expect(Self.columns(p.complex, row: 6) == [5, 6, 7])
        p.deallocate()
        // A convex crease at column 5 (the depth key turns), colour unchanged.
        p = Self.flatPass()
        for y in 0..<10 {
            for x in 0..<10 { p.buffers.depth[y * 10 + x] = 0.5 - 0.01 * abs(Float(x) - 5) }
        }
        #expect(p.classify(perspective: true, orthoReference: 1))
        #expect(Self.columns(p.complex, row: 5) == [5])
        #expect(Self.columns(p.complex, row: 0) == [])  // the border row has no neighbours above
        p.deallocate()
    }
}
