import SceneModel
import Testing
@testable import Thumbnailer

/// Exact-pixel tests of the rasteriser on tiny framebuffers without supersampling.
struct RasterTests {
    /// Counts how often each sample is covered.
    struct CountShader: SampleShader {
        let counts: UnsafeMutablePointer<Int>
        mutating func shade(index: Int, b1: Float, b2: Float, z: Float) -> Bool {
            counts[index] += 1
            return true
        }
    }

    /// A raster triangle from pixel-space vertices (y down), in 8-bit fixed point.
    static func tri(_ a: SIMD2<Double>, _ b: SIMD2<Double>, _ c: SIMD2<Double>) -> RasterTriangle? {
        func f(_ v: Double) -> Int64 { Int64((v * 256).rounded()) }
        var t = RasterTriangle(
            x0: f(a.x), y0: f(a.y), x1: f(b.x), y1: f(b.y), x2: f(c.x), y2: f(c.y), k: .zero, w: .one, area: 0,
            front: true, source: 0, weights: (SIMD3(1, 0, 0), SIMD3(0, 1, 0), SIMD3(0, 0, 1)))
        let area = (t.x1 - t.x0) * (t.y2 - t.y0) - (t.y1 - t.y0) * (t.x2 - t.x0)
        if area == 0 { return nil }
        if area < 0 {
            swap(&t.x1, &t.x2)
            swap(&t.y1, &t.y2)
        }
        t.area = abs(area)
        return t
    }

    static func coverage(_ tris: [RasterTriangle], width: Int, height: Int) -> [Int] {
        let counts = UnsafeMutablePointer<Int>.allocate(capacity: width * height)
        defer { counts.deallocate() }
        counts.initialize(repeating: 0, count: width * height)
        let depth = UnsafeMutablePointer<Float>.allocate(capacity: width * height)
        defer { depth.deallocate() }
        depth.initialize(repeating: -.infinity, count: width * height)
        var shader = CountShader(counts: counts)
        let grid = SampleGrid(origin: 128, step: 256, c0: 0, r0: 0, cols: width, rows: height)
        // Depth at −∞ and never written: every covered sample of every triangle is shaded.
        for t in tris { Rasterizer.rasterize(t, grid: grid, depth: depth, mode: .testOnly, shader: &shader) }
        return Array(UnsafeBufferPointer(start: counts, count: width * height))
    }

    @Test func triangleCoversExactlyThePixelCentresInside() throws {
        // Vertices off the pixel-centre lattice: no centre lies on an edge, so the analytic count
        // is the number of centres strictly inside.
        let a = SIMD2(1.2, 0.7), b = SIMD2(14.6, 3.3), c = SIMD2(5.1, 12.9)
        let t = try #require(Self.tri(a, b, c))
        let cov = Self.coverage([t], width: 16, height: 16)
        var expected = 0
        func side(_ p: SIMD2<Double>, _ q: SIMD2<Double>, _ r: SIMD2<Double>) -> Double {
            (q.x - p.x) * (r.y - p.y) - (q.y - p.y) * (r.x - p.x)
        }
        for y in 0..<16 {
            for x in 0..<16 {
                let p = SIMD2(Double(x) + 0.5, Double(y) + 0.5)
                let s0 = side(a, b, p), s1 = side(b, c, p), s2 = side(c, a, p)
                let inside = (s0 > 0 && s1 > 0 && s2 > 0) || (s0 < 0 && s1 < 0 && s2 < 0)
                if inside { expected += 1 }
                #expect(cov[y * 16 + x] == (inside ? 1 : 0), "pixel \(x),\(y)")
            }
        }
        #expect(cov.reduce(0, +) == expected)
        // Area 2·A / 2 ≈ 75.6: the count is close to the area.
        let area = abs(side(a, b, c)) / 2
        #expect(abs(Double(expected) - area) < 8)
    }

    @Test func sharedEdgesCoverEveryPixelExactlyOnce() throws {
        // The diagonal of an 8×8 square passes through pixel centres (i + ½, i + ½).
        let sq = [SIMD2(0.0, 0.0), SIMD2(8.0, 0.0), SIMD2(8.0, 8.0), SIMD2(0.0, 8.0)]
        let t1 = try #require(Self.tri(sq[0], sq[1], sq[2]))
        let t2 = try #require(Self.tri(sq[0], sq[2], sq[3]))
        let cov = Self.coverage([t1, t2], width: 8, height: 8)
        #expect(cov.allSatisfy { $0 == 1 })
        // A fan of 12 triangles around a pixel centre, spokes through other pixel centres.
        let centre = SIMD2(8.5, 8.5)
        var ring: [SIMD2<Double>] = []
        for k in 0..<12 {
            let angle = Double(k) * Double.pi / 6
            ring.append(centre + SIMD2((angle).cosine, (angle).sine) * 7.3)
        }
        ring = ring.map { SIMD2(($0.x * 2).rounded() / 2, ($0.y * 2).rounded() / 2) }  // on half-pixel lattice
        var fan: [RasterTriangle] = []
        for k in 0..<12 { if let t = Self.tri(centre, ring[k], ring[(k + 1) % 12]) { fan.append(t) } }
        let fc = Self.coverage(fan, width: 17, height: 17)
        #expect(fc.allSatisfy { $0 <= 1 }, "no sample covered twice")
        #expect(fc[8 * 17 + 8] == 1, "the shared centre is covered once")
    }

    @Test func topLeftRuleOnAxisAlignedEdges() throws {
        // A 2×2 square whose edges run exactly through pixel centres: top and left edges are
        // inside, bottom and right edges are not.
        let t1 = try #require(Self.tri(SIMD2(0.5, 0.5), SIMD2(2.5, 0.5), SIMD2(2.5, 2.5)))
        let t2 = try #require(Self.tri(SIMD2(0.5, 0.5), SIMD2(2.5, 2.5), SIMD2(0.5, 2.5)))
        let cov = Self.coverage([t1, t2], width: 4, height: 4)
        let expected = [1, 1, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
        #expect(cov == expected)
    }

    /// A quad in the XY plane at depth z (two triangles, counter-clockwise seen from +Z).
    static func quad(x0: Float, y0: Float, x1: Float, y1: Float, z: Float) -> [Float] {
        [x0, y0, z, x1, y0, z, x1, y1, z, x0, y0, z, x1, y1, z, x0, y1, z]
    }

    @Test func nearerQuadWinsTheDepthTest() {
        var scene = Scene()
        let red = scene.addMaterial(Material(name: "red", baseColor: SIMD4(1, 0, 0, 1)))
        let green = scene.addMaterial(Material(name: "green", baseColor: SIMD4(0, 1, 0, 1)))
        // The nearer (green, z = 1) quad is submitted first, the farther (red) second.
        let near = Self.quad(x0: 2, y0: 2, x1: 6, y1: 6, z: 1), far = Self.quad(x0: 0, y0: 0, x1: 8, y1: 8, z: 0)
        let m = scene.addMesh(
            Mesh(
                name: "q", positions: near + far, indices: (0..<12).map { UInt32($0) },
                primitives: [
                    Mesh.Primitive(indexStart: 0, indexCount: 6, material: green),
                    Mesh.Primitive(indexStart: 6, indexCount: 6, material: red),
                ]))
        scene.addNode(Node(name: "q", mesh: m))
        let out = TestScenes.render(
            scene, camera: TestScenes.pixelCamera(width: 8, height: 8), width: 8, height: 8,
            settings: TestScenes.exact())
        for y in 0..<8 {
            for x in 0..<8 {
                let o = (y * 8 + x) * 4
                let inner = x >= 2 && x < 6 && y >= 2 && y < 6
                #expect(Array(out.rgba[o..<(o + 3)]) == (inner ? [0, 255, 0] : [255, 0, 0]), "pixel \(x),\(y)")
            }
        }
        #expect(out.covered == 64)
    }

    @Test func transparentSurfacesBlendBackToFrontOverOpaqueOnes() {
        var scene = Scene()
        let red = scene.addMaterial(Material(name: "red", baseColor: SIMD4(1, 0, 0, 1)))
        let glass = scene.addMaterial(
            Material(
                name: "glass", baseColor: SIMD4(0, 0, 1, 0.5), opacity: 0.5,
                alphaMode: .blend))
        let white = scene.addMaterial(
            Material(
                name: "white", baseColor: SIMD4(1, 1, 1, 0.5), opacity: 0.5,
                alphaMode: .blend))
        // Submitted front to back: white glass (z = 2), blue glass (z = 1), opaque red (z = 0).
        let positions =
            Self.quad(x0: 0, y0: 0, x1: 4, y1: 4, z: 2) + Self.quad(x0: 0, y0: 0, x1: 4, y1: 4, z: 1)
            + Self.quad(x0: 0, y0: 0, x1: 4, y1: 4, z: 0)
        let m = scene.addMesh(
            Mesh(
                name: "q", positions: positions, indices: (0..<18).map { UInt32($0) },
                primitives: [
                    Mesh.Primitive(indexStart: 0, indexCount: 6, material: white),
                    Mesh.Primitive(indexStart: 6, indexCount: 6, material: glass),
                    Mesh.Primitive(indexStart: 12, indexCount: 6, material: red),
                ]))
        scene.addNode(Node(name: "q", mesh: m))
        let out = TestScenes.render(
            scene, camera: TestScenes.pixelCamera(width: 4, height: 4), width: 4, height: 4,
            settings: TestScenes.exact())
        // Linear: red, then blue at ½ → (½, 0, ½), then white at ½ → (¾, ½, ¾).
        let t = ColorSpace.linearToSRGBTable
        let expected = [t[12288], t[8192], t[12288]]
        for p in 0..<16 { #expect(Array(out.rgba[(p * 4)..<(p * 4 + 3)]) == expected, "pixel \(p)") }
        // A transparent surface behind an opaque one is hidden.
        var hidden = Scene()
        let r2 = hidden.addMaterial(Material(name: "red", baseColor: SIMD4(1, 0, 0, 1)))
        let g2 = hidden.addMaterial(Material(name: "glass", baseColor: SIMD4(0, 0, 1, 0.5), alphaMode: .blend))
        let m2 = hidden.addMesh(
            Mesh(
                name: "q",
                positions: Self.quad(x0: 0, y0: 0, x1: 4, y1: 4, z: 1) + Self.quad(x0: 0, y0: 0, x1: 4, y1: 4, z: 0),
                indices: (0..<12).map { UInt32($0) },
                primitives: [
                    Mesh.Primitive(indexStart: 0, indexCount: 6, material: r2),
                    Mesh.Primitive(indexStart: 6, indexCount: 6, material: g2),
                ]))
        hidden.addNode(Node(name: "q", mesh: m2))
        let o2 = TestScenes.render(
            hidden, camera: TestScenes.pixelCamera(width: 4, height: 4), width: 4, height: 4,
            settings: TestScenes.exact())
        #expect(Array(o2.rgba[0..<3]) == [255, 0, 0])
    }

    @Test func backFacesOfSingleSidedMaterialsAreCulled() {
        // Clockwise seen from the camera (+Z): a back face.
        let back: [Float] = [0, 0, 0, 0, 8, 0, 8, 0, 0]
        let single = TestScenes.triangles(back, material: Material(name: "s", baseColor: SIMD4(1, 1, 1, 1)))
        let cam = TestScenes.pixelCamera(width: 8, height: 8)
        let culled = TestScenes.render(single, camera: cam, width: 8, height: 8, settings: TestScenes.exact())
        #expect(culled.covered == 0)
        let double = TestScenes.triangles(
            back, material: Material(name: "d", baseColor: SIMD4(1, 1, 1, 1), doubleSided: true))
        let drawn = TestScenes.render(double, camera: cam, width: 8, height: 8, settings: TestScenes.exact())
        #expect(drawn.covered == 28)  // centres strictly below the diagonal x + y = 8, plus its top-left half
        // Lit: the back face of a double-sided material is shaded with its normal flipped toward
        // the viewer, so it is as bright as the same triangle seen from the front.
        var lit = TestScenes.exact()
        lit.lit = true
        let front = TestScenes.triangles(
            [0, 0, 0, 8, 0, 0, 0, 8, 0], material: Material(name: "f", baseColor: SIMD4(1, 1, 1, 1)))
        let a = TestScenes.render(double, camera: cam, width: 8, height: 8, settings: lit)
        let b = TestScenes.render(front, camera: cam, width: 8, height: 8, settings: lit)
        #expect(a.rgba[(7 * 8 + 0) * 4] == b.rgba[(7 * 8 + 0) * 4])
        #expect(a.rgba[(7 * 8 + 0) * 4] > 100)
    }

    @Test func trianglesCrossingTheNearPlaneAreClipped() {
        // A floor triangle from far ahead to well behind a camera standing on it: one vertex
        // behind the eye. The visible part fills the lower image; nothing above the horizon.
        let floor: [Float] = [-50, 0, -100, 50, 0, -100, 0, 0, 40]
        let scene = TestScenes.triangles(
            floor, material: Material(name: "f", baseColor: SIMD4(1, 1, 1, 1), doubleSided: true))
        let cam = ThumbnailCamera.perspective(position: SIMD3(0, 1, 0), target: SIMD3(0, 1, -10), fovDegrees: 60)
        let out = TestScenes.render(scene, camera: cam, width: 16, height: 16, settings: TestScenes.exact())
        #expect(out.nonFinite == 0)
        for y in 0..<16 {
            for x in 0..<16 {
                let v = out.rgba[(y * 16 + x) * 4]
                if y < 8 { #expect(v == 0, "above the horizon \(x),\(y)") }
                if y >= 10 && x >= 4 && x < 12 { #expect(v == 255, "floor in front \(x),\(y)") }
                #expect(v == 0 || v == 255, "no blended garbage at \(x),\(y)")
            }
        }
        // Through the near plane itself: a wall through the eye.
        let wall: [Float] = [-5, -5, 5, 5, -5, 5, 0, 5, -5]
        let w = TestScenes.triangles(
            wall, material: Material(name: "w", baseColor: SIMD4(1, 1, 1, 1), doubleSided: true))
        let eyeOnWall = ThumbnailCamera.perspective(position: SIMD3(0, 0, 0), target: SIMD3(0, 0, -1), fovDegrees: 60)
        let o2 = TestScenes.render(w, camera: eyeOnWall, width: 16, height: 16, settings: TestScenes.exact())
        #expect(o2.nonFinite == 0)
        #expect(o2.rgba.enumerated().allSatisfy { $0.offset % 4 == 3 || $0.element == 0 || $0.element == 255 })
    }

    @Test func hugeAndInvalidTrianglesNeverTrap() {
        let nan = Float.nan, inf = Float.infinity
        let positions: [Float] = [
            0, 0, 0, 1e30, 0, 0, 0, 1e30, 0,  // huge
            nan, 0, 0, 1, 0, 0, 0, 1, 0,  // NaN vertex
            inf, 0, 0, 1, 0, 0, 0, 1, 0,  // infinite vertex
            -1e7, -1e7, 0, 1e7, -1e7, 0, 0, 1e7, 0,  // large but finite
        ]
        let scene = TestScenes.triangles(
            positions, material: Material(name: "m", baseColor: SIMD4(1, 1, 1, 1), doubleSided: true))
        let cam = TestScenes.pixelCamera(width: 8, height: 8)
        let out = TestScenes.render(scene, camera: cam, width: 8, height: 8, settings: TestScenes.exact())
        #expect(out.nonFinite == 0)
        #expect(out.covered == 64)
        // Out-of-range indices are dropped with a warning.
        var s = Scene()
        let m = s.addMaterial(Material(name: "m"))
        let mesh = s.addMesh(
            Mesh(
                name: "bad", positions: [0, 0, 0, 1, 0, 0, 0, 1, 0], indices: [0, 1, 7, 0, 1, 2],
                primitives: [Mesh.Primitive(indexStart: 0, indexCount: 600, material: m)]))
        s.addNode(Node(name: "bad", mesh: mesh))
        let rs = RenderScene(RenderContext.source(TestScenes.layered(s)), textureBudget: 0, maxTextureSize: 1)
        #expect(rs.triMaterial[0] == RenderScene.invalidMaterial)
        #expect(rs.triMaterial[1] != RenderScene.invalidMaterial)
        #expect(rs.warnings.contains { $0.code == "THUMB_INVALID_GEOMETRY" })
    }
}

extension Double {
    fileprivate var cosine: Double { _cos(self) }
    fileprivate var sine: Double { _sin(self) }
}

#if canImport(Glibc)
import Glibc
private func _cos(_ x: Double) -> Double { Glibc.cos(x) }
private func _sin(_ x: Double) -> Double { Glibc.sin(x) }
#endif
