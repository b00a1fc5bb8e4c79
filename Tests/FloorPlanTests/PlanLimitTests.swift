import Foundation
import Testing
@testable import FloorPlan
import SceneModel

/// Hostile rooms: counts beyond the named limits are cut, non-finite and absurd numbers dropped,
/// and the plan is still drawn.
@Suite struct PlanLimitTests {
    static func element(_ id: Int, _ category: ElementCategory, at p: SIMD3<Double>, yaw: Double, size: SIMD3<Double>, story: Int = 0) -> RoomElement {
        let c = cos(yaw), s = sin(yaw)
        let m = Matrix4(columnMajor: [c, 0, -s, 0, 0, 1, 0, 0, s, 0, c, 0, p.x, p.y, p.z, 1])
        return RoomElement(identifier: "E\(id)", category: category, layer: category.layer, dimensions: size, transform: m,
                           story: story, geometry: .none, node: NodeIndex(0))
    }

    @Test func aFloodOfWallsObjectsAndSectionsIsCutToTheLimits() throws {
        var layered = try PlanFixtures.layered("parametric_two_sections")
        var elements = layered.elements
        var k = 0
        // A deterministic scatter: 2,500 walls, 2,500 chairs, 100 sections, and broken numbers.
        for i in 0..<2_500 {
            let a = Double(i) * 0.618_034, r = Double(i % 50) * 0.2
            elements.append(Self.element(k, .wall, at: SIMD3(r * cos(a), 1.25, r * sin(a)), yaw: a, size: SIMD3(1 + Double(i % 7), 2.5, 0)))
            k += 1
            elements.append(Self.element(k, "chair", at: SIMD3(r * sin(a), 0.4, r * cos(a)), yaw: -a, size: SIMD3(0.5, 0.8, 0.5)))
            k += 1
        }
        elements.append(Self.element(k, .wall, at: SIMD3(.nan, 0, 0), yaw: 0, size: SIMD3(3, 2, 0)))
        elements.append(Self.element(k + 1, .wall, at: SIMD3(1e12, 0, 0), yaw: 0, size: SIMD3(3, 2, 0)))
        elements.append(Self.element(k + 2, .door, at: SIMD3(0, 0, 0), yaw: 0, size: SIMD3(.infinity, 2, 0)))
        layered.elements = elements
        layered.sections += (0..<100).map { RoomSection(label: "bedroom", center: SIMD3(Double($0) * 0.1, 0, 0), story: 0) }
        let plan = try #require(PlanBuilder.build(layered).plan)
        let g = PlanGeometry(layered)
        #expect(g.walls.count == PlanGeometry.maxPerKind && g.objects.count == PlanGeometry.maxPerKind)
        #expect(plan.rooms.count <= RoomPartition.maxSections)
        #expect(plan.rooms.allSatisfy { $0.area.isFinite && $0.perimeter.isFinite })
        let svg = SVGPlanWriter.write(plan)
        let text = String(decoding: svg, as: UTF8.self)
        #expect(text.range(of: "[^a-z](nan|inf)[^a-z]", options: [.regularExpression, .caseInsensitive]) == nil, "no non-finite number written")
        #expect(try !CairoPlanRenderer.pdf(plan).isEmpty)
    }

    @Test func aFloorWhoseTransformThrowsItsCornersFarAwayIsLeftOut() throws {
        var layered = try PlanFixtures.layered("parametric_two_sections")
        let rooms = try #require(PlanBuilder.build(layered).plan).rooms.count
        // Centred at the origin (inside the extent), but one matrix entry sends the corners to ±1e30 m.
        let m = Matrix4(columnMajor: [1, 0, 0, 0, 0, 0, 1e30, 0, 0, 1, 0, 0, 0, 0, 0, 1])
        layered.elements.append(RoomElement(
            identifier: "FAR", category: .floor, layer: ElementCategory.floor.layer, dimensions: SIMD3(4, 3, 0),
            transform: m, story: 0, geometry: .none, node: NodeIndex(0),
            polygonCorners: [SIMD3(-2, 1.5, 0), SIMD3(2, 1.5, 0), SIMD3(2, -1.5, 0), SIMD3(-2, -1.5, 0)]))
        #expect(PlanGeometry(layered).floors.count == PlanGeometry(try PlanFixtures.layered("parametric_two_sections")).floors.count)
        let plan = try #require(PlanBuilder.build(layered).plan)
        #expect(plan.rooms.count == rooms && plan.rooms.allSatisfy { $0.area < 1_000 })
        #expect(plan.sheets.allSatisfy { !$0.title.contains("–") })
    }

    @Test func aFloorMeshWithFarCornersGetsAnOutlineOfItsNearTrianglesOnly() {
        // Two squares of two triangles each: one at the origin, one 1e30 m away (as welding keys
        // those corners once trapped in Int64(_:)).
        func square(at x: Float) -> [Float] { [x, 0, 0, x + 2, 0, 0, x + 2, 0, 2, x, 0, 2] }
        let mesh = Mesh(name: "floor", positions: square(at: 0) + square(at: -1e30),
                        indices: [0, 2, 1, 0, 3, 2, 4, 6, 5, 4, 7, 6])
        var scene = Scene(meshes: [mesh])
        let node = scene.addNode(Node(name: "Floor0", mesh: MeshIndex(0)))
        let layered = LayeredScene(scene: scene)
        let outline = FloorOutline.polygon(layered, node: node, world: scene.worldTransforms())
        #expect(outline?.count == 4)
        #expect(outline.map { abs(Polygon2D.signedArea($0)) } == 4)
    }

    @Test func aStoryPerWallGetsAtMostTheStoryLimitAndLongLabelsAreCut() throws {
        var layered = try PlanFixtures.layered("parametric_two_sections")
        let walls = layered.elements.filter { $0.category == .wall }
        for k in 1...40 {
            for (i, w) in walls.enumerated() {
                var copy = w
                copy.identifier = "S\(k)-\(i)"
                copy.story = k
                layered.elements.append(copy)
            }
        }
        layered.sections.append(RoomSection(label: String(repeating: "a\u{7}b", count: 5_000), center: SIMD3(1, 0, 1), story: 2))
        let plan = try #require(PlanBuilder.build(layered).plan)
        #expect(plan.sheets.count == PlanGeometry.maxStories)
        #expect(plan.sheets.map(\.story) == Array(0..<PlanGeometry.maxStories))
        let path = try PlanFixtures.temporary(try CairoPlanRenderer.pdf(plan), suffix: ".pdf")
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(try #require(PlanFixtures.run("pdfinfo", [path])).contains("Pages:           \(PlanGeometry.maxStories)\n"))
        let long = try #require(plan.rooms.first { $0.story == 2 && $0.label.count > 100 })
        #expect(long.name.count <= 40 && !long.name.unicodeScalars.contains("\u{7}"))
    }
}
