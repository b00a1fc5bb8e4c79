import SceneModel
import Testing

@testable import USDParse

@Suite struct TriangulatorTests {
    /// Signed area of each triangle measured along `normal` (positive = counter-clockwise).
    private func signedAreas(_ poly: [SIMD3<Double>], _ tris: [Int], normal: SIMD3<Double>) -> [Double] {
        stride(from: 0, to: tris.count, by: 3).map { k in
            let a = poly[tris[k]]
            let b = poly[tris[k + 1]]
            let c = poly[tris[k + 2]]
            let e1 = b - a
            let e2 = c - a
            let cr = SIMD3(e1.y * e2.z - e1.z * e2.y, e1.z * e2.x - e1.x * e2.z, e1.x * e2.y - e1.y * e2.x)
            return 0.5 * (cr.x * normal.x + cr.y * normal.y + cr.z * normal.z)
        }
    }

    private let lShape: [SIMD3<Double>] = [
        SIMD3(0, 0, 0), SIMD3(2, 0, 0), SIMD3(2, 1, 0), SIMD3(1, 1, 0), SIMD3(1, 2, 0), SIMD3(0, 2, 0),
    ]

    @Test func triangleAndConvexQuadAreFanned() {
        #expect(Triangulator.triangulate([SIMD3(0, 0, 0), SIMD3(1, 0, 0), SIMD3(0, 1, 0)]) == [0, 1, 2])
        let quad: [SIMD3<Double>] = [SIMD3(0, 0, 0), SIMD3(1, 0, 0), SIMD3(1, 1, 0), SIMD3(0, 1, 0)]
        #expect(Triangulator.triangulate(quad) == [0, 1, 2, 0, 2, 3])
    }

    @Test func concaveQuadIsSplitThroughItsReflexCorner() {
        // A dart: corner 3 is reflex, so the fan from corner 0 would leave the polygon.
        let dart: [SIMD3<Double>] = [SIMD3(0, 0, 0), SIMD3(2, 1, 0), SIMD3(0, 2, 0), SIMD3(1, 1, 0)]
        let tris = Triangulator.triangulate(dart)
        #expect(tris == [3, 0, 1, 3, 1, 2])
        let areas = signedAreas(dart, tris, normal: SIMD3(0, 0, 1))
        #expect(areas.allSatisfy { $0 > 0 } && abs(areas.reduce(0, +) - 1) < 1e-12)
    }

    @Test func concaveLHexagonGivesFourCounterClockwiseTrianglesCoveringItsArea() {
        let tris = Triangulator.triangulate(lShape)
        #expect(tris.count == 12)
        let areas = signedAreas(lShape, tris, normal: SIMD3(0, 0, 1))
        #expect(areas.allSatisfy { $0 > 0 })
        #expect(abs(areas.reduce(0, +) - 3) < 1e-12)
        // A fan from corner 0 would cover the notch: the reflex corner 3 must be used properly.
        #expect(tris != [0, 1, 2, 0, 2, 3, 0, 3, 4, 0, 4, 5])
    }

    @Test func concavePolygonKeepsItsWindingInAnyPlane() {
        // The L shape lying in the plane y = 5 (x, z coordinates), in both windings.
        for poly in [lShape.map { SIMD3($0.x, 5, $0.y) }, lShape.reversed().map { SIMD3($0.x, 5, $0.y) }] {
            let tris = Triangulator.triangulate(poly)
            #expect(tris.count == 12)
            let areas = signedAreas(poly, tris, normal: SIMD3(0, 1, 0))
            let total = areas.reduce(0, +)
            #expect(abs(abs(total) - 3) < 1e-12)
            #expect(areas.allSatisfy { $0 * total > 0 })
            // Same orientation as the polygon itself (its Newell normal's Y component).
            var newellY = 0.0
            for k in 0..<poly.count {
                let p = poly[k]
                let q = poly[(k + 1) % poly.count]
                newellY += (p.z - q.z) * (p.x + q.x)
            }
            #expect(newellY * total > 0)
        }
    }

    @Test func starPolygonAreaIsPreserved() {
        var star: [SIMD3<Double>] = []
        for k in 0..<10 {
            let r = k % 2 == 0 ? 2.0 : 0.8
            let a = Double(k) * Double.pi / 5
            star.append(SIMD3(r * cos(a), 0, -r * sin(a)))  // in XZ, counter-clockwise seen from +Y
        }
        let tris = Triangulator.triangulate(star)
        #expect(tris.count == 24)
        let areas = signedAreas(star, tris, normal: SIMD3(0, 1, 0))
        #expect(areas.allSatisfy { $0 > -1e-12 })
        // Shoelace area of the star in XZ.
        var shoelace = 0.0
        for k in 0..<10 {
            let p = star[k]
            let q = star[(k + 1) % 10]
            shoelace += p.z * q.x - q.z * p.x
        }
        #expect(abs(areas.reduce(0, +) - shoelace / 2) < 1e-9)
    }

    @Test func degenerateAndSelfIntersectingPolygonsTerminateWithNMinus2Triangles() {
        let collinear: [SIMD3<Double>] = (0..<6).map { SIMD3(Double($0), 0, 0) }
        #expect(Triangulator.triangulate(collinear).count == 12)
        let bowtie: [SIMD3<Double>] = [SIMD3(0, 0, 0), SIMD3(2, 2, 0), SIMD3(2, 0, 0), SIMD3(0, 2, 0), SIMD3(1, 3, 0)]
        #expect(Triangulator.triangulate(bowtie).count == 9)
        let duplicates: [SIMD3<Double>] = [
            SIMD3(0, 0, 0), SIMD3(0, 0, 0), SIMD3(2, 0, 0), SIMD3(2, 0, 0), SIMD3(1, 1, 0), SIMD3(1, 0.2, 0),
            SIMD3(0, 1, 0),
        ]
        #expect(Triangulator.triangulate(duplicates).count == 15)
        let nanPoly: [SIMD3<Double>] = [SIMD3(0, 0, 0), SIMD3(.nan, 0, 0), SIMD3(1, 1, 0), SIMD3(0, 1, 0)]
        #expect(Triangulator.triangulate(nanPoly).count == 6)
    }

    @Test func randomPolygonsAlwaysGiveValidTriangles() {
        var rng = SplitMix64(seed: 42)
        for _ in 0..<500 {
            let n = 3 + Int(rng.next() % 20)
            var poly: [SIMD3<Double>] = []
            for _ in 0..<n { poly.append(SIMD3(rng.unit() * 10, rng.unit() * 10, rng.unit() * 0.01)) }
            let tris = Triangulator.triangulate(poly)
            #expect(tris.count == (n - 2) * 3)
            #expect(tris.allSatisfy { $0 >= 0 && $0 < n })
            for k in stride(from: 0, to: tris.count, by: 3) {
                #expect(tris[k] != tris[k + 1] && tris[k + 1] != tris[k + 2] && tris[k] != tris[k + 2])
            }
        }
    }

    @Test func randomSimplePolygonsAreTiledExactly() {
        // Star-shaped (radially monotone) polygons are simple; ear clipping must cover their area.
        var rng = SplitMix64(seed: 7)
        for _ in 0..<200 {
            let n = 4 + Int(rng.next() % 30)
            var poly: [SIMD3<Double>] = []
            for k in 0..<n {
                let a = 2 * Double.pi * Double(k) / Double(n)
                let r = 0.3 + rng.unit()
                poly.append(SIMD3(r * cos(a), r * sin(a), 0))
            }
            let tris = Triangulator.triangulate(poly)
            let areas = signedAreas(poly, tris, normal: SIMD3(0, 0, 1))
            var shoelace = 0.0
            for k in 0..<n {
                let p = poly[k]
                let q = poly[(k + 1) % n]
                shoelace += p.x * q.y - q.x * p.y
            }
            #expect(areas.allSatisfy { $0 > -1e-12 })
            #expect(abs(areas.reduce(0, +) - shoelace / 2) < 1e-9)
        }
    }

    @Test func largeConcavePolygonsAreFannedNotClipped() {
        var poly: [SIMD3<Double>] = []
        let n = PolygonTriangulator.maxEarClippingCorners + 2
        for k in 0..<n {
            let a = 2 * Double.pi * Double(k) / Double(n)
            let r = k % 2 == 0 ? 1.0 : 0.5
            poly.append(SIMD3(r * cos(a), r * sin(a), 0))
        }
        var points: [Float] = []
        for v in poly { points += [Float(v.x), Float(v.y), Float(v.z)] }
        var t = Triangulator()
        var out: [Int32] = []
        t.triangulate(points: points, faceIndices: (0..<Int32(n)).map { $0 }, start: 0, count: n, into: &out)
        #expect(out.count == (n - 2) * 3)
        #expect(t.fannedConcaveCount == 1)
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
