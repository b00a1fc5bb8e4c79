import Foundation
import Testing
import SceneModel
import WorkerRuntime

@testable import FloorPlan
@testable import Layering
import TestSupport

/// A home's plan, metrics and grade on the six real rooms of `../shared/homes` merged
/// (`RoomSetMerger`) and as a `CapturedStructure` (`HomeStructureFixture`): one wall where two
/// rooms meet, floors levelled, schedules, labels and doors, and each room's grade.
@Suite(.enabled(if: HomeStructureFixture.present, "../shared/homes is not present"))
struct HomePlanTests {
    /// Collisions left on the sample home's sheet (`collisions`).
    static let labelsOnWallsLeft = 0
    static let swingsOnFurnitureLeft = 5

    static func merged() throws -> LayeredScene {
        let inputs = try HomeStructureFixture.roomNames.map { ("\($0)/capturedRoom.json", try HomeStructureFixture.json($0)) }
        return try RoomLayering.layer(scene: nil, capturedRoomJSON: try RoomSetMerger.merge(inputs))
    }

    /// The five walls of the sample home that two rooms scanned from both sides, by room.
    static let sharedRooms: [[String]] = [
        ["Bathroom", "Bedroom 1"], ["Bathroom", "Room 1"], ["Bedroom 1", "Room 1"], ["Bedroom 2", "Room 1"], ["Room 1", "Living room"],
    ]

    @Test func wallsScannedFromBothSidesAreOneWallCountedOnce() throws {
        let l = try Self.merged()
        let shared = l.metrics.sharedWalls
        #expect(shared.map(\.rooms) == Self.sharedRooms)
        let walls = l.elements.filter { $0.category == .wall }
        for s in shared {
            // Both scanned walls stay in the model, each in its own room.
            for (id, room) in zip(s.identifiers, s.rooms) {
                #expect(walls.first { $0.identifier == id }?.room == room)
            }
            // Each names the other (the model's extras).
            #expect(walls.first { $0.identifier == s.identifiers[0] }?.sharedWith.contains(s.identifiers[1]) == true)
            #expect(walls.first { $0.identifier == s.identifiers[1] }?.sharedWith.contains(s.identifiers[0]) == true)
            #expect(s.gap > 0.01 && s.gap < 0.12, "\(s.rooms): \(s.gap)")
            #expect(s.thickness == (s.gap >= SharedWall.minimumMeasured ? s.gap : SharedWall.defaultThickness))
            #expect(s.length >= SharedWallFinder.minOverlap)
        }
        let sum = walls.reduce(0) { $0 + $1.dimensions!.x }
        #expect(abs(l.metrics.wallLength - (sum - shared.reduce(0) { $0 + $1.length })) < 1e-9)
        #expect(l.metrics.wallCount == SharedWallFinder.wallCount(walls.map(\.identifier), shared: shared))
        #expect(l.metrics.wallCount < walls.count)
        // A room alone has none of it.
        for name in HomeStructureFixture.roomNames {
            let one = try RoomLayering.layer(scene: nil, capturedRoomJSON: try HomeStructureFixture.json(name))
            #expect(one.metrics.sharedWalls.isEmpty && one.metrics.floorLevels.isEmpty && one.quality.rooms.isEmpty)
        }
    }

    @Test func theRoomFloorsOfAStoryAreLevelled() throws {
        let l = try Self.merged()
        let level = try #require(l.metrics.floorLevels.first)
        #expect(l.metrics.floorLevels.count == 1 && level.story == 0 && level.moved == 6)
        #expect(level.largestChange > 0.01 && level.largestChange <= FloorLevel.maxChange)
        let floors = l.elements.filter { $0.category == .floor }
        #expect(floors.count == 6)
        for f in floors {
            #expect(f.transform.m[13] == level.height)
            #expect(l.scene.nodes[f.node.rawValue].localTransform.m[13] == level.height)
        }
    }

    @Test func thePlanDrawsEachSharedWallOnceOutsideTheRooms() throws {
        let l = try Self.merged()
        var g = PlanGeometry(l)
        HomePlanWalls.redraw(&g, thickness: 0.10)
        #expect(g.drawnWalls.filter { $0.identifier.hasPrefix("shared:") }.count == 5)
        // Every other drawn wall lies outside its own room's floor, but for the two short walls
        // standing inside the bathroom's floor (a cupboard's), drawn centred on their line.
        let inside = g.drawnWalls.filter { !$0.identifier.hasPrefix("shared:") && HomePlanWalls.outward($0, g) == .zero }
        #expect(inside.map(\.room) == ["Bathroom", "Bathroom"])
        for w in g.drawnWalls where !w.identifier.hasPrefix("shared:") && HomePlanWalls.outward(w, g) != .zero {
            let floors = try #require(g.roomFloors[w.room ?? ""])
            #expect(!floors.contains { RoomPartition.contains($0, w.mid) }, "\(w.identifier)")
        }
        // A door both rooms scanned is drawn once, with its twin.
        #expect(g.drawnOpenings.count + g.drawnOpenings.reduce(0) { $0 + $1.twins.count } == g.openings.count)
        #expect(g.drawnOpenings.filter { !$0.twins.isEmpty }.count == 3)
    }

    @Test func theHomesPlanHasItsSchedulesAndStatesTheConvention() throws {
        let l = try Self.merged()
        let plan = try #require(PlanBuilder.build(l).plan)
        #expect(plan.sheets.map(\.kind) == [.drawing, .schedule])
        let drawing = plan.sheets[0], schedule = plan.sheets[1]
        let total = plan.rooms.reduce(0) { $0 + $1.area }
        let format = MeasureFormatter(units: .metric)
        #expect(drawing.title.hasSuffix(format.area(total)))
        #expect(Self.texts(drawing).contains(PlanVocabulary(locale: .en).homeConvention))
        let cells = Self.texts(schedule)
        for r in plan.rooms { #expect(cells.contains(r.name) && cells.contains(format.area(r.area))) }
        #expect(cells.contains(format.area(total)))
        // The door and window schedule: every drawn opening once, doors between rooms with both.
        #expect(plan.openings.count == 24)
        let between = plan.openings.filter { $0.identifiers.count == 2 }
        #expect(between.count == 3 && between.allSatisfy { $0.rooms.count == 2 && $0.kind == "door" })
        #expect(plan.openings.allSatisfy { $0.width >= PlanGeometry.minimumOpening && !$0.walls.isEmpty })
        let windows = plan.openings.filter { $0.kind == "window" }
        #expect(windows.count == 7 && windows.allSatisfy { ($0.sillHeight ?? 0) > 0.5 })
        // The worker stores the SVG only when it is the plain drawing the writer makes.
        #expect(SVGSafety.problem(SVGPlanWriter.write(plan)) == nil)
        #expect(PDFSafety.problem(try CairoPlanRenderer.pdf(plan)) == nil && DXFSafety.problem(DXFPlanWriter.write(plan)) == nil)
        // Deterministic bytes.
        #expect(SVGPlanWriter.write(plan) == SVGPlanWriter.write(try #require(PlanBuilder.build(l).plan)))
        #expect(DXFPlanWriter.write(plan) == DXFPlanWriter.write(FloorPlan(sheets: [drawing], rooms: plan.rooms, options: plan.options)))
    }

    @Test func roomLabelsDoNotOverlapAndDoorsAreNoWiderThanALeaf() throws {
        let l = try Self.merged()
        let plan = try #require(PlanBuilder.build(l).plan)
        let sheet = plan.sheets[0]
        var labels: [LabelBox] = []
        for item in sheet.items {
            guard case .text(let s, let at, let size, let angle, _, _, let role, _) = item else { continue }
            switch role {
            case .roomName, .roomArea, .roomSize: labels.append(LabelBox(s, at: at, size: size, angle: angle))
            default: continue
            }
        }
        let names = sheet.items.filter { if case .text(_, _, _, _, _, _, .roomName, _) = $0 { return true } else { return false } }
        #expect(names.count == plan.rooms.count && labels.count >= 2 * plan.rooms.count)
        var overlaps = 0
        for i in labels.indices { for j in labels.indices where j > i && labels[i].overlaps(labels[j]) { overlaps += 1 } }
        #expect(overlaps == 0)
        // What still collides, held at what it is: door leaves or swings touching furniture where
        // neither hinge is clear (closet doors over the bed and nightstands, the kitchen's door).
        let left = Self.collisions(sheet)
        #expect(left.texts == 0 && left.dimensionsOnFurniture == 0, "\(left)")
        #expect(left.labelsOnWalls <= Self.labelsOnWallsLeft && left.swingsOnFurniture <= Self.swingsOnFurnitureLeft, "\(left)")
        // No swing wider than a leaf; the 3.67 m door is an open passage.
        let mm = 1000 / sheet.scale
        for item in sheet.items {
            if case .arc(_, let r, _, _, _, _, .doors) = item { #expect(r <= SheetDrawing.maxSingleLeaf * mm + 1e-9) }
        }
    }

    @Test func eachRoomIsGradedAndTheHomeTakesTheWorst() throws {
        for l in [try Self.merged(), try RoomLayering.layer(scene: nil, capturedRoomJSON: try HomeStructureFixture.structure())] {
            let q = l.quality
            #expect(q.rooms.map(\.room) == HomeStructureTests.expectedNames)
            #expect(q.grade == QualityGrader.overall(q.rooms.map(\.quality.grade)))
            // The hallway holds no object: C, as one room scanned alone would be.
            let hall = try #require(q.rooms.first { $0.room == "Room 1" }?.quality)
            #expect(hall.furnitureCount == 0 && hall.furnitureGrade == "C" && q.grade == "C")
            #expect(q.notes.first?.hasPrefix("home: the worst of its 6 rooms' grades (C: ") == true)
            #expect(q.notes.contains("Room 1: furniture: 0 objects (C)"))
            // Each room graded on its own elements.
            for r in q.rooms {
                #expect(r.quality.furnitureCount == l.elements.filter { $0.room == r.room && $0.layer.kind == .objects }.count)
            }
        }
    }

    @Test func aStructureFindsTheSameSharedWallsAndHasOneFloor() throws {
        let l = try RoomLayering.layer(scene: nil, capturedRoomJSON: try HomeStructureFixture.structure())
        #expect(l.metrics.sharedWalls.map(\.rooms) == Self.sharedRooms)
        #expect(l.metrics.floorLevels.isEmpty)  // one merged floor: nothing to level
    }

    /// What still collides on the home's sheet: pairs of texts that overlap, room labels over a
    /// wall or a door's leaf or swing, dimension lines over a footprint, door swings over a
    /// footprint (each counted once per item pair).
    static func collisions(_ sheet: PlanSheet) -> (texts: Int, labelsOnWalls: Int, dimensionsOnFurniture: Int, swingsOnFurniture: Int) {
        var texts: [(box: LabelBox, role: PlanTextRole)] = []
        var walls: [[LabelBox]] = [], doors: [[LabelBox]] = [], furniture: [[LabelBox]] = [], dimensions: [[LabelBox]] = []
        for item in sheet.items {
            switch item {
            case .text(let s, let at, let size, let angle, _, _, let role, _):
                texts.append((LabelBox(s, at: at, size: size, angle: angle), role))
            case .polygon(let c, _, _, _, .walls): walls.append(LabelBox.pieces(ofRectangle: c))
            case .polygon(let c, _, _, _, .furniture): furniture.append(LabelBox.pieces(ofRectangle: c))
            case .line(let a, let b, let w, _, .doors): doors.append(LabelBox.pieces(ofSegment: a, b, width: w))
            case .line(let a, let b, let w, _, .dimensions): dimensions.append(LabelBox.pieces(ofSegment: a, b, width: w))
            case .arc(let c, let r, let s0, let s1, let w, _, .doors):
                doors.append((0..<8).flatMap { k -> [LabelBox] in
                    let t0 = s0 + (s1 - s0) * Double(k) / 8, t1 = s0 + (s1 - s0) * Double(k + 1) / 8
                    return LabelBox.pieces(ofSegment: c + SIMD2(cosine(t0), sine(t0)) * r, c + SIMD2(cosine(t1), sine(t1)) * r, width: w)
                })
            default: continue
            }
        }
        func meets(_ a: [LabelBox], _ b: [LabelBox]) -> Bool { a.contains { x in b.contains { x.overlaps($0) } } }
        var t = 0
        for i in texts.indices { for j in texts.indices where j > i && texts[i].box.overlaps(texts[j].box) { t += 1 } }
        let labels = texts.filter { if case .roomName = $0.role { return true }; if case .roomArea = $0.role { return true }
            if case .roomSize = $0.role { return true }; return false }
        let onWalls = labels.reduce(0) { n, l in n + (walls + doors).filter { meets([l.box], $0) }.count }
        let dims = dimensions.reduce(0) { n, d in n + furniture.filter { meets(d, $0) }.count }
        let swings = doors.reduce(0) { n, d in n + furniture.filter { meets(d, $0) }.count }
        return (t, onWalls, dims, swings)
    }

    static func texts(_ sheet: PlanSheet) -> [String] {
        sheet.items.compactMap { if case .text(let s, _, _, _, _, _, _, _) = $0 { return s } else { return nil } }
    }
}
