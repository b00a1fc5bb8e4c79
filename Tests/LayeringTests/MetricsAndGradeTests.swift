import Foundation
import SceneModel
import Testing

@testable import Layering

@Suite struct MetricsTests {
    @Test(.enabled(if: TestFiles.samplesPresent)) func rectangularIOS16SampleFromFirstPrinciples() throws {
        // ios16_mesh is a 5 × 4 m rectangle, walls 2.5 m high, no floor: the area comes from the walls.
        let p = try #require(try TestFiles.samplePairs().first { $0.name == "ios16_mesh" })
        let l = try RoomLayering.layer(scene: try TestFiles.scene(p.usdz), capturedRoomJSON: try TestFiles.bytes(p.json))
        let (w, d, h) = (5.0, 4.0, 2.5)
        #expect(l.metrics.floorAreaSource == "walls")
        #expect(near(l.metrics.floorArea ?? 0, w * d, 1e-5))
        #expect(near(l.metrics.perimeter ?? 0, 2 * (w + d), 1e-5))
        #expect(l.metrics.wallCount == 4)
        #expect(near(l.metrics.wallLength, 2 * (w + d), 1e-5))
        #expect(near(l.metrics.ceilingHeight ?? 0, h, 1e-6))
        #expect(l.metrics.countsPerLayer == ["walls": 4, "objects.sofa": 1, "objects.television": 1, "objects.storage": 1])
        #expect(l.metrics.countsPerStory == [-1: 7])  // iOS 16: no story
        #expect(l.sections.isEmpty)
    }

    @Test(.enabled(if: TestFiles.samplesPresent)) func notchedFloorSampleFromFirstPrinciples() throws {
        // parametric_two_sections: a 6 × 5 m rectangle with a 1 × 1 m notch (8 corners).
        let p = try #require(try TestFiles.samplePairs().first { $0.name == "parametric_two_sections" })
        let l = try RoomLayering.layer(scene: try TestFiles.scene(p.usdz), capturedRoomJSON: try TestFiles.bytes(p.json))
        #expect(l.metrics.floorAreaSource == "floor")
        #expect(near(l.metrics.floorArea ?? 0, 6 * 5 - 1 * 1, 1e-5))
        #expect(near(l.metrics.perimeter ?? 0, 2 * (6 + 5) + 2 * 1, 1e-5))
        #expect(l.metrics.wallCount == 8 && near(l.metrics.wallLength, 24, 1e-5))
        #expect(l.metrics.countsPerStory == [0: l.elements.count])
        // The same room without its floor: the wall loop gives the same area.
        let noFloor = try RoomLayering.layer(scene: nil, capturedRoom: {
            var r = try CapturedRoomDecoder.decode(try TestFiles.bytes(p.json)).0
            r.floors = []
            return r
        }())
        #expect(noFloor.metrics.floorAreaSource == "walls" && near(noFloor.metrics.floorArea ?? 0, 29, 1e-5))
        // USD alone: the floor is measured from its mesh.
        let usdOnly = try RoomLayering.layer(scene: try TestFiles.scene(p.usdz), capturedRoomJSON: nil)
        #expect(near(usdOnly.metrics.floorArea ?? 0, 29, 1e-4) && near(usdOnly.metrics.perimeter ?? 0, 24, 1e-4))
    }

    @Test func handBuiltRoomFromWallsAndFloor() throws {
        let corners: [SIMD2<Double>] = [SIMD2(0, 0), SIMD2(5, 0), SIMD2(5, 4), SIMD2(0, 4)]
        var r = TestRoom.outline(corners, height: 2.7)
        let walls = try RoomLayering.layer(scene: nil, capturedRoomJSON: r.json())
        #expect(near(walls.metrics.floorArea ?? 0, 20, 1e-5) && near(walls.metrics.perimeter ?? 0, 18, 1e-5))
        #expect(walls.metrics.floorAreaSource == "walls" && near(walls.metrics.ceilingHeight ?? 0, 2.7, 1e-6))
        r.floors = [corners]
        let floor = try RoomLayering.layer(scene: nil, capturedRoomJSON: r.json())
        #expect(floor.metrics.floorAreaSource == "floor")
        #expect(near(floor.metrics.floorArea ?? 0, 20, 1e-5) && near(floor.metrics.perimeter ?? 0, 18, 1e-5))
    }

    @Test func openWallsUseTheConvexHullOfTheirEnds() throws {
        // Three walls of a 5 × 4 room (one side missing): not a loop.
        let r = TestRoom(walls: [
            .init(a: SIMD2(0, 0), b: SIMD2(5, 0)), .init(a: SIMD2(5, 0), b: SIMD2(5, 4)), .init(a: SIMD2(5, 4), b: SIMD2(0, 4)),
        ])
        let l = try RoomLayering.layer(scene: nil, capturedRoomJSON: r.json())
        #expect(l.quality.wallsClosed == false)
        #expect(near(l.metrics.floorArea ?? 0, 20, 1e-5))
    }

    @Test func medianWallHeight() {
        #expect(RoomMeasurements.median([2.4, 2.6, 2.5]) == 2.5)
        #expect(RoomMeasurements.median([2.4, 2.6, 2.5, 3.0]) == 2.55)
        #expect(RoomMeasurements.median([]) == nil)
    }

    @Test func closureToleranceAndTJunctions() {
        func seg(_ a: SIMD2<Double>, _ b: SIMD2<Double>) -> RoomMeasurements.WallSegment { .init(a: a, b: b) }
        func square(gap: Double) -> [RoomMeasurements.WallSegment] {
            [seg(SIMD2(0, 0), SIMD2(5, 0)), seg(SIMD2(5, 0), SIMD2(5, 4)), seg(SIMD2(5, 4), SIMD2(0, 4)),
             seg(SIMD2(0, 4), SIMD2(0, gap))]
        }
        #expect(RoomMeasurements.wallsClosed(square(gap: 0), tolerance: 0.3))
        #expect(RoomMeasurements.wallsClosed(square(gap: 0.29), tolerance: 0.3))
        #expect(!RoomMeasurements.wallsClosed(square(gap: 0.31), tolerance: 0.3))
        // An interior wall meeting the middle of two walls (T-junctions) keeps the room closed.
        #expect(RoomMeasurements.wallsClosed(square(gap: 0) + [seg(SIMD2(2.5, 0), SIMD2(2.5, 4))], tolerance: 0.3))
        // A free-standing wall opens it.
        #expect(!RoomMeasurements.wallsClosed(square(gap: 0) + [seg(SIMD2(1, 1), SIMD2(2, 1))], tolerance: 0.3))
        #expect(!RoomMeasurements.wallsClosed(Array(square(gap: 0).prefix(2)), tolerance: 0.3))
    }
}

@Suite struct QualityGradeTests {
    struct WallCase: Sendable, CustomStringConvertible {
        var high: Int
        var total: Int
        var grade: String
        var description: String { "\(high)/\(total) → \(grade)" }
    }

    @Test(arguments: [
        WallCase(high: 10, total: 10, grade: "A"), WallCase(high: 9, total: 10, grade: "A"),
        WallCase(high: 90, total: 100, grade: "A"), WallCase(high: 89, total: 100, grade: "B"),
        WallCase(high: 7, total: 10, grade: "B"), WallCase(high: 70, total: 100, grade: "B"),
        WallCase(high: 69, total: 100, grade: "C"), WallCase(high: 0, total: 4, grade: "C"),
        WallCase(high: 0, total: 0, grade: "C"),
    ])
    func wallConfidenceBoundaries(_ c: WallCase) {
        #expect(QualityGrader.wallConfidenceGrade(high: c.high, total: c.total) == c.grade)
    }

    @Test(arguments: [(0, "C"), (1, "C"), (2, "B"), (3, "B"), (4, "B"), (5, "A"), (12, "A")])
    func furnitureBoundaries(_ count: Int, _ grade: String) {
        #expect(QualityGrader.furnitureGrade(count: count) == grade)
    }

    @Test(arguments: [
        (["A", "A", "A"], "A"), (["A", "B", "A"], "B"), (["B", "B", "B"], "B"), (["A", "A", "C"], "C"),
        (["C", "B", "A"], "C"), (["A", "B"], "B"),
    ] as [([String], String)])
    func overallIsTheWorst(_ grades: [String], _ expected: String) {
        #expect(QualityGrader.overall(grades) == expected)
    }

    /// End to end with hand-built rooms: wall confidences, objects and closure decide the grade.
    @Test(arguments: [
        (10, 9, 5, true, "A"), (10, 9, 4, true, "B"), (10, 8, 5, true, "B"), (10, 7, 5, true, "B"),
        (10, 6, 5, true, "C"), (10, 10, 1, true, "C"), (10, 10, 5, false, "C"), (10, 10, 2, true, "B"),
    ] as [(Int, Int, Int, Bool, String)])
    func gradeFollowsTheRules(walls: Int, high: Int, objects: Int, closed: Bool, expected: String) throws {
        // A regular polygon of `walls` sides, radius 3 m; an open room drops a 1 m piece of the last wall.
        var pts: [SIMD2<Double>] = []
        for i in 0..<walls {
            let a = 2 * Double.pi * Double(i) / Double(walls)
            pts.append(SIMD2(3 * cos(a), 3 * sin(a)))
        }
        var r = TestRoom.outline(pts, confidences: (0..<walls).map { $0 < high ? "high" : "medium" })
        if !closed {
            let w = r.walls[walls - 1]
            let d = w.b - w.a
            r.walls[walls - 1].b = w.a + d * (1 - 1 / (d * d).sum().squareRoot())
        }
        for i in 0..<objects {
            r.objects.append(.init(category: "chair", center: SIMD3(Double(i) * 0.1, 0.5, 0), size: SIMD3(0.5, 1, 0.5)))
        }
        let l = try RoomLayering.layer(scene: nil, capturedRoomJSON: r.json())
        #expect(l.quality.grade == expected, "\(l.quality.notes)")
        #expect(l.quality.wallsClosed == closed)
        #expect(l.quality.furnitureCount == objects)
        #expect(near(l.quality.highConfidenceWallShare ?? -1, Double(high) / Double(walls)))
        #expect(l.quality.notes.last == QualityGrader.durationNote)
    }

    @Test func notARoomHasNoGrade() throws {
        let scene = Scene(nodes: [Node(name: "Box", mesh: MeshIndex(0))], meshes: [SynthesisTests.triangle()])
        let l = try RoomLayering.layer(scene: scene, capturedRoomJSON: nil)
        #expect(l.quality.grade == nil && !l.isRoomPlan)
        #expect(l.quality.notes.contains(QualityGrader.durationNote))
    }
}
