import Foundation
import SceneModel
import Testing

@testable import Layering

@Suite struct SynthesisTests {
    static func triangle() -> Mesh {
        Mesh(name: "t", positions: [0, 0, 0, 1, 0, 0, 0, 1, 0], indices: [0, 1, 2],
             primitives: [Mesh.Primitive(indexStart: 0, indexCount: 3, material: nil)])
    }

    static func element(_ category: String, dims: SIMD3<Double>, corners: [SIMD3<Double>] = [],
                        curve: CapturedRoom.Curve? = nil) -> JSONElement {
        JSONElement(identifier: "X", category: ElementCategory(category), confidence: "high", dimensions: dims, transform: .identity,
                    parentIdentifier: nil, story: 0, attributes: [:], isOpen: nil, polygonCorners: corners, curve: curve,
                    jsonPath: "walls[0]")
    }

    /// Every triangle's winding agrees with its stored normal (counter-clockwise front faces).
    static func windingAgreesWithNormals(_ m: Mesh) -> Bool {
        var t = 0
        while t + 2 < m.indices.count {
            let i = (0..<3).map { Int(m.indices[t + $0]) }
            let p = i.map { SIMD3(Double(m.positions[$0 * 3]), Double(m.positions[$0 * 3 + 1]), Double(m.positions[$0 * 3 + 2])) }
            let e1 = p[1] - p[0], e2 = p[2] - p[0]
            let n = SIMD3(e1.y * e2.z - e1.z * e2.y, e1.z * e2.x - e1.x * e2.z, e1.x * e2.y - e1.y * e2.x)
            let s = SIMD3(Double(m.normals[i[0] * 3]), Double(m.normals[i[0] * 3 + 1]), Double(m.normals[i[0] * 3 + 2]))
            if (n * n).sum() > 1e-18, (n * s).sum() <= 0 { return false }
            t += 3
        }
        return true
    }

    @Test func boxesHaveTheDocumentedThicknesses() {
        var s = GeometrySynthesizer(options: LayeringOptions())
        let cases: [(String, SIMD3<Double>, ClosedRange<Double>)] = [
            ("wall", SIMD3(4, 2.5, 0), -0.16...0), ("door", SIMD3(0.9, 2, 0), -0.04...0.04),
            ("window", SIMD3(1.2, 1, 0), -0.04...0.04), ("opening", SIMD3(1, 2, 0), -0.01...0.01),
            ("chair", SIMD3(0.5, 0.9, 0.6), -0.3...0.3),
        ]
        for (category, dims, z) in cases {
            let m = s.mesh(for: Self.element(category, dims: dims))
            let b = Bounds.of(positions: m.positions)
            #expect(m.triangleCount == 12 && m.vertexCount == 24)
            #expect(near(b.min.x, -dims.x / 2) && near(b.max.x, dims.x / 2))
            #expect(near(b.min.y, -dims.y / 2) && near(b.max.y, dims.y / 2))
            #expect(near(b.min.z, z.lowerBound) && near(b.max.z, z.upperBound), "\(category)")
            #expect(Self.windingAgreesWithNormals(m))
        }
    }

    @Test func floorPrismFromPolygonCorners() {
        var s = GeometrySynthesizer(options: LayeringOptions())
        let corners: [SIMD3<Double>] = [SIMD3(-3, -2.5, 1e-7), SIMD3(3, -2.5, 1e-7), SIMD3(3, 2.5, 0), SIMD3(0.5, 2.5, 0),
                                        SIMD3(0.5, 1.5, 0), SIMD3(-0.5, 1.5, 0), SIMD3(-0.5, 2.5, 0), SIMD3(-3, 2.5, 0)]
        let m = s.mesh(for: Self.element("floor", dims: SIMD3(6, 5, 0), corners: corners.reversed()))
        let b = Bounds.of(positions: m.positions)
        #expect(near(b.max.z, 0) && near(b.min.z, -0.0001) && near(b.size.x, 6) && near(b.size.y, 5))
        #expect(Self.windingAgreesWithNormals(m))
        #expect(s.warnings.isEmpty)
        // Top area = polygon area.
        var top = 0.0
        var t = 0
        while t + 2 < m.indices.count {
            let i = (0..<3).map { Int(m.indices[t + $0]) }
            if m.normals[i[0] * 3 + 2] > 0.5 {
                top += Polygon2D.signedArea(i.map { SIMD2(Double(m.positions[$0 * 3]), Double(m.positions[$0 * 3 + 1])) })
            }
            t += 3
        }
        #expect(near(top, 29, 1e-5))
        // Without corners: the dimensions rectangle.
        let rect = s.mesh(for: Self.element("floor", dims: SIMD3(4, 3, 0)))
        #expect(near(Bounds.of(positions: rect.positions).size.x, 4) && near(Bounds.of(positions: rect.positions).size.y, 3))
    }

    @Test func curvedWallBecomesSegmentsAlongTheArc() {
        var s = GeometrySynthesizer(options: LayeringOptions())
        let curve = CapturedRoom.Curve(startAngle: 0, endAngle: Double.pi / 2, radius: 2, center: SIMD2(0, 0))
        let m = s.mesh(for: Self.element("wall", dims: SIMD3(3.14, 2.5, 0), curve: curve))
        #expect(m.triangleCount == 9 * 12)  // 90° in 10° steps
        #expect(Self.windingAgreesWithNormals(m))
        let b = Bounds.of(positions: m.positions)
        #expect(near(b.max.x, 2, 1e-9) && near(b.max.z, 2, 1e-9) && near(b.size.y, 2.5))
        // Every vertex lies between the arc and 0.16 m inside it.
        var i = 0
        while i + 2 < m.positions.count {
            let r = (Double(m.positions[i]) * Double(m.positions[i]) + Double(m.positions[i + 2]) * Double(m.positions[i + 2])).squareRoot()
            #expect(r <= 2 + 1e-5 && r >= 2 - 0.17)
            i += 3
        }
    }

    @Test func synthesizedFloorIsPlacedByItsTransform() throws {
        var r = TestRoom.outline([SIMD2(0, 0), SIMD2(5, 0), SIMD2(5, 4), SIMD2(0, 4)])
        r.floors = [[SIMD2(0, 0), SIMD2(5, 0), SIMD2(5, 4), SIMD2(0, 4)]]
        r.floorY = -1.5
        let l = try RoomLayering.layer(scene: nil, capturedRoomJSON: r.json())
        let floor = try #require(l.elements.first { $0.category == "floor" })
        var b = Bounds.empty
        for (m, w) in meshesBelow(l, element: floor) { b.include(Bounds.of(positions: m.positions).transformed(by: w)) }
        // Local Z is world +Y: the prism lies at the floor, 0.1 mm thick, under the polygon.
        #expect(near(b.min.x, 0, 1e-6) && near(b.max.x, 5, 1e-6) && near(b.min.z, 0, 1e-6) && near(b.max.z, 4, 1e-6))
        #expect(near(b.max.y, -1.5, 1e-6) && near(b.min.y, -1.5001, 1e-6))
        // Walls stand on the floor and extrude away from the room (outside the 5 × 4 outline).
        for wall in l.elements where wall.category == "wall" {
            var wb = Bounds.empty
            for (m, w) in meshesBelow(l, element: wall) { wb.include(Bounds.of(positions: m.positions).transformed(by: w)) }
            #expect(near(wb.min.y, -1.5, 1e-6) && near(wb.max.y, 1.0, 1e-6))
        }
    }
}

@Suite struct CurvedWallTests {
    @Test func curvedWallThroughLayering() throws {
        let text = CapturedRoomDecoderTests.oneWall(
            #""curve": null"#, with: #""curve": {"startAngle": 0, "endAngle": 3.14159, "radius": 1, "center": [0, 0]}"#)
        let l = try RoomLayering.layer(scene: nil, capturedRoomJSON: Array(text.utf8))
        checkLayoutContract(l)
        let wall = l.elements[0]
        #expect(wall.geometry == .synthesized)
        #expect(meshesBelow(l, element: wall)[0].mesh.triangleCount == 18 * 12)
    }
}

/// Every general USD file of the corpus that parses: layering never traps and follows the contract.
@Suite(.enabled(if: TestFiles.corpus != nil, "../shared/corpus is absent"))
struct GeneralUSDCorpusTests {
    @Test func generalUSDFilesLayerIntoGroups() throws {
        let root = (TestFiles.corpus! as NSString).deletingLastPathComponent + "/usd"
        let files = (FileManager.default.enumerator(atPath: root)?.allObjects as? [String] ?? [])
            .filter { name in [".usd", ".usda", ".usdc", ".usdz"].contains { name.hasSuffix($0) } }.sorted()
        var layered = 0
        for f in files {
            guard let scene = try? TestFiles.scene(root + "/" + f) else { continue }
            let l = try RoomLayering.layer(scene: scene, capturedRoomJSON: nil)
            checkLayoutContract(l)
            layered += 1
            let drawn = scene.nodes.filter { $0.mesh != nil }.count
            let kept = l.scene.nodes.filter { $0.mesh != nil }.count
            #expect(kept == drawn, "\(f): every drawn mesh node is kept")
        }
        #expect(layered > 10)
    }
}
