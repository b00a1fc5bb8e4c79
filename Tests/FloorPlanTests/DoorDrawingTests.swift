import Testing
import Layering
import SceneModel

@testable import FloorPlan

/// How doors and small openings are drawn: one leaf up to `SheetDrawing.maxSingleLeaf`, two leaves
/// up to `maxDoubleLeaf`, an open passage beyond; nothing for an opening narrower than
/// `PlanGeometry.minimumOpening`. On the two-section sample, whose doors are 0.9 and 0.8 m wide.
struct DoorDrawingTests {
    static func arcs(_ sheet: PlanSheet) -> [Double] {
        sheet.items.compactMap { if case .arc(_, let r, _, _, _, _, .doors) = $0 { return r } else { return nil } }
    }

    static func windows(_ sheet: PlanSheet) -> Int {
        sheet.items.filter { if case .polygon(_, _, _, _, .windows) = $0 { return true } else { return false } }.count
    }

    @Test func wideDoorsGetTwoLeavesOrNoneAndTinyOpeningsAreNotDrawn() throws {
        var l = try PlanFixtures.layered("parametric_two_sections")
        let before = try #require(PlanBuilder.build(l).plan?.sheets.first)
        let mm = 1000 / before.scale
        #expect(Self.arcs(before).map { ($0 / mm * 100).rounded() / 100 }.sorted() == [0.8, 0.9])
        let doors = l.elements.indices.filter { l.elements[$0].category == .door }
        let windows = l.elements.indices.filter { l.elements[$0].category == .window }
        try #require(doors.count == 2 && windows.count == 2)
        // The 0.9 m door 1.8 m wide (two leaves of 0.9 m), the 0.8 m door 2.5 m (a passage), a
        // window 0.05 m (not drawn).
        l.elements[doors[0]].dimensions!.x = 1.8
        l.elements[doors[1]].dimensions!.x = 2.5
        l.elements[windows[1]].dimensions!.x = 0.05
        let plan = try #require(PlanBuilder.build(l).plan)
        let after = plan.sheets[0]
        #expect(Self.arcs(after).map { ($0 / mm * 100).rounded() / 100 } == [0.9, 0.9])
        #expect(Self.windows(after) == Self.windows(before) - 1)
        #expect(plan.openings.map(\.kind) == ["door", "door", "window"])
        // A single room has no schedule page, but its door and window schedule is in the manifest.
        #expect(plan.sheets.map(\.kind) == [.drawing])
    }
}
