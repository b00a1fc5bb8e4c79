import Foundation
import SceneModel
import Testing

@Suite struct PolygonTriangulatorTests {
    static func area(_ pts: [SIMD2<Double>], _ tris: [(Int, Int, Int)]) -> Double {
        tris.reduce(0) { $0 + Polygon2D.signedArea([pts[$1.0], pts[$1.1], pts[$1.2]]) }
    }

    @Test func lShapesNotchesAndEitherWindingCoverTheirArea() {
        let l6: [SIMD2<Double>] = [SIMD2(0, 0), SIMD2(4, 0), SIMD2(4, 2), SIMD2(2, 2), SIMD2(2, 5), SIMD2(0, 5)]
        let l8: [SIMD2<Double>] = [SIMD2(0, 0), SIMD2(2, 0), SIMD2(4, 0), SIMD2(4, 2), SIMD2(2, 2), SIMD2(2, 5),
                                   SIMD2(0, 5), SIMD2(0, 2.5)]  // L with two collinear corners: 8 corners
        let notch: [SIMD2<Double>] = [SIMD2(-3, -2.5), SIMD2(3, -2.5), SIMD2(3, 2.5), SIMD2(0.5, 2.5), SIMD2(0.5, 1.5),
                                      SIMD2(-0.5, 1.5), SIMD2(-0.5, 2.5), SIMD2(-3, 2.5)]
        for (poly, area, corners) in [(l6, 14.0, 6), (l8, 14.0, 6), (notch, 29.0, 8)] {
            for input in [poly, Array(poly.reversed()), poly + [poly[0]], [poly[0]] + poly] {
                let r = PolygonTriangulator.triangulate(input)
                #expect(!r.usedFallback)
                // Collinear and repeated corners are dropped, so no zero-area sliver comes out.
                #expect(r.triangles.count == corners - 2)
                #expect(r.triangles.allSatisfy { Polygon2D.signedArea([input[$0.0], input[$0.1], input[$0.2]]) > 0 })
                #expect(abs(Self.area(input, r.triangles) - area) <= 1e-9)
            }
        }
    }

    @Test func degenerateInputGivesNoTriangles() {
        #expect(PolygonTriangulator.triangulate([SIMD2(0, 0), SIMD2(1, 0)]).triangles.isEmpty)
        #expect(PolygonTriangulator.triangulate([SIMD2(0, 0), SIMD2(1, 0), SIMD2(2, 0)]).triangles.isEmpty)
        #expect(PolygonTriangulator.triangulate([SIMD2(0, 0), SIMD2(.nan, 1), SIMD2(1, .infinity)]).triangles.isEmpty)
        #expect(PolygonTriangulator.triangulate([SIMD2(1, 1), SIMD2(1, 1), SIMD2(1, 1), SIMD2(1, 1)]).triangles.isEmpty)
    }

    @Test func aSelfIntersectingOutlineEndsAndIsReported() {
        // A bow tie crosses itself: it still ends in n - 2 counter-clockwise triangles, and says so.
        let bow: [SIMD2<Double>] = [SIMD2(0, 0), SIMD2(2, 2), SIMD2(2, 0), SIMD2(0, 2), SIMD2(-1, 1)]
        let r = PolygonTriangulator.triangulate(bow)
        #expect(r.triangles.count == 3)
        #expect(r.usedFallback)
        #expect(r.triangles.allSatisfy { [$0.0, $0.1, $0.2].allSatisfy(bow.indices.contains) })
        #expect(r.triangles.allSatisfy { Polygon2D.signedArea([bow[$0.0], bow[$0.1], bow[$0.2]]) >= 0 })
    }

    @Test func manyCornersAreClippedWithinTheirBound() {
        let star = (0..<256).map { i -> SIMD2<Double> in
            let a = Double(i) / 256 * 2 * Double.pi
            return SIMD2(cos(a) * (i % 2 == 0 ? 3 : 2.9), sin(a) * (i % 2 == 0 ? 3 : 2.9))
        }
        let r = PolygonTriangulator.triangulate(star)
        #expect(r.triangles.count == 254 && !r.usedFallback)
        #expect(abs(Self.area(star, r.triangles) - Polygon2D.signedArea(star)) <= 1e-9)
        // Past the corner limit a concave outline is fanned, and says so.
        let big = (0..<(PolygonTriangulator.maxEarClippingCorners + 2) * 2).map { i -> SIMD2<Double> in
            let a = Double(i) / Double((PolygonTriangulator.maxEarClippingCorners + 2) * 2) * 2 * Double.pi
            return SIMD2(cos(a) * (i % 2 == 0 ? 3 : 2.9), sin(a) * (i % 2 == 0 ? 3 : 2.9))
        }
        let fanned = PolygonTriangulator.triangulate(big)
        #expect(fanned.usedFallback && fanned.triangles.count == big.count - 2)
    }

    @Test func counterClockwiseEntryKeepsEveryCornerAndItsBuffers() {
        var t = PolygonTriangulator()
        // A convex pentagon with a collinear corner is fanned from corner 0: n - 2 triangles.
        var xs: [Double] = [0, 1, 2, 2, 0], ys: [Double] = [0, 0, 0, 2, 2]
        var out: [Int32] = []
        t.triangulateCounterClockwise(&xs, &ys, into: &out)
        #expect(out == [0, 1, 2, 0, 2, 3, 0, 3, 4])
        #expect(xs == [0, 1, 2, 2, 0] && ys == [0, 0, 0, 2, 2])
        #expect(t.fannedConcaveCount == 0 && t.forcedClipCount == 0)
    }

    @Test func convexHullIsCounterClockwiseAndSkipsNonFinitePoints() {
        let pts: [SIMD2<Double>] = [SIMD2(0, 0), SIMD2(2, 0), SIMD2(1, 1), SIMD2(2, 2), SIMD2(0, 2), SIMD2(1, 0),
                                    SIMD2(.nan, 5)]
        let hull = Polygon2D.convexHull(pts)
        #expect(hull == [SIMD2(0, 0), SIMD2(2, 0), SIMD2(2, 2), SIMD2(0, 2)])
        #expect(Polygon2D.signedArea(hull) == 4)
        #expect(Polygon2D.perimeter(hull) == 8)
    }

    @Test func vectorHelpers() {
        let a = SIMD3<Double>(1, 2, 3), b = SIMD3<Double>(4, 5, 6)
        #expect(a.dot(b) == 32)
        #expect(a.cross(b) == SIMD3(-3, 6, -3))
        #expect(SIMD3<Double>(3, 4, 0).length == 5)
        #expect(SIMD3<Double>(0, 0, 2).normalizedOrZero == SIMD3(0, 0, 1))
        #expect(SIMD3<Float>(0, 0, 1e-20).normalizedOrZero == .zero)
        #expect(SIMD3<Double>(.nan, 0, 0).normalizedOrZero == .zero && !SIMD3<Double>(.nan, 0, 0).isFinite)
        #expect(SIMD2<Double>(1, 0).cross(SIMD2(0, 1)) == 1)
    }
}
