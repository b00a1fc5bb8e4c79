import Foundation
import Layering
import SceneModel
import Testing
import TestSupport
@testable import FloorPlan

/// The sheet is turned square to the walls: a room scanned facing any way draws the same sheet,
/// its longest walls run along the paper, and the DXF still speaks the scan's own coordinates.
@Suite struct SheetOrientationTests {
    /// `layered` turned about the vertical axis by `degrees` (every element and section centre).
    static func turned(_ layered: LayeredScene, degrees: Double) -> LayeredScene {
        var l = layered
        let r = Matrix4.rotation(axis: 1, degrees: degrees)
        for i in l.elements.indices { l.elements[i].transform = r * l.elements[i].transform }
        for i in l.sections.indices { l.sections[i].center = r.transformPoint(l.sections[i].center) }
        return l
    }

    /// An item as numbers (angles as their cosine and sine, so ±π compare equal) and its text.
    static func numbers(_ item: PlanItem) -> (values: [Double], text: String) {
        func pts(_ p: [SIMD2<Double>]) -> [Double] { p.flatMap { [$0.x, $0.y] } }
        func turn(_ a: Double) -> [Double] { [cos(a), sin(a)] }
        switch item {
        case .polygon(let p, _, _, let w, _): return (pts(p) + [w], "")
        case .line(let a, let b, let w, _, _): return (pts([a, b]) + [w], "")
        case .arc(let c, let r, let s, let e, let w, _, _): return (pts([c]) + [r, w] + turn(s) + turn(e), "")
        case .text(let s, let at, let size, let angle, _, _, _, _): return (pts([at]) + [size] + turn(angle), s)
        }
    }

    @Test(arguments: [-40.0, -12.5, 23.0, 44.0])
    func aTurnedRoomDrawsTheSameSheet(degrees: Double) throws {
        for sample in ["parametric_two_sections", "mesh_opening_unmatched", "model_catalog"] {
            let original = try PlanFixtures.layered(sample)
            let a = try #require(PlanBuilder.build(original).plan)
            let b = try #require(PlanBuilder.build(Self.turned(original, degrees: degrees)).plan)
            #expect(a.sheets.count == b.sheets.count)
            for (s, t) in zip(a.sheets, b.sheets) {
                #expect(s.rotation == 0, "\(sample): the sample's walls already run along its axes")
                #expect(abs(t.rotation - degrees * Double.pi / 180) < 1e-9, "\(sample) turned \(degrees)°: rotation \(t.rotation)")
                #expect(s.scale == t.scale && s.width == t.width && s.height == t.height)
                #expect(s.items.count == t.items.count, "\(sample) turned \(degrees)°")
                var worst = 0.0
                for (x, y) in zip(s.items, t.items) {
                    let p = Self.numbers(x), q = Self.numbers(y)
                    #expect(p.text == q.text && p.values.count == q.values.count)
                    for (u, v) in zip(p.values, q.values) { worst = max(worst, abs(u - v)) }
                }
                #expect(worst < 1e-6, "\(sample) turned \(degrees)°: items differ by up to \(worst) mm")
            }
            // The rooms' figures stay in world space: the same areas, the polygon turned with the room.
            let r = Matrix4.rotation(axis: 1, degrees: degrees)
            for (x, y) in zip(a.rooms, b.rooms) {
                #expect(abs(x.area - y.area) < 1e-9 && x.name == y.name)
                for (p, q) in zip(x.polygon, y.polygon) {
                    let w = r.transformPoint(SIMD3(p.x, 0, p.y))
                    #expect(abs(w.x - q.x) < 1e-9 && abs(w.z - q.y) < 1e-9)
                }
            }
        }
    }

    /// On the corpus's scans, taken in whatever direction the phone faced, the longest wall of the
    /// first story is drawn level or upright, and the sheet turns by at most 45°.
    @Test func theLongestWallRunsAlongThePaper() throws {
        var checked = 0
        for (name, layered) in try LabelPlacementTests.rooms() {
            guard let plan = PlanBuilder.build(layered).plan, let sheet = plan.sheets.first else { continue }
            #expect(abs(sheet.rotation) <= Double.pi / 4 + 1e-12, "\(name): \(sheet.rotation)")
            let g = PlanGeometry(layered)
            let wall = try #require(g.walls(story: sheet.story).max { $0.length < $1.length })
            let d = sheet.paper(wall.b) - sheet.paper(wall.a)
            let off = min(abs(d.y), abs(d.x)) / max(abs(d.x), abs(d.y))
            #expect(off < tan(2 * Double.pi / 180), "\(name): the longest wall leans \(atan(off) * 180 / Double.pi)° off the paper's axes")
            checked += 1
        }
        #expect(checked >= 5)
    }

    /// Texts are never upside down, and every text within 5° of vertical reads from the bottom up:
    /// on a sheet turned square to its walls the two sides' dimensions read the same way, however
    /// the rounding of the turn fell.
    @Test func verticalTextsAllReadFromTheBottomUp() throws {
        let up = -Double.pi / 2
        for (angle, expected) in [(Double.pi / 2 - 1e-12, up - 1e-12), (-Double.pi / 2 + 1e-12, up + 1e-12),
                                  (Double.pi / 2 - 0.05, up - 0.05), (0, 0), (Double.pi, 0), (3 * Double.pi / 4, -Double.pi / 4),
                                  (-3 * Double.pi / 4, Double.pi / 4), (7 * Double.pi, 0)] {
            #expect(abs(SheetDrawing.upright(angle) - expected) < 1e-9, "\(angle) → \(SheetDrawing.upright(angle))")
        }
        var vertical = 0
        for (name, layered) in try LabelPlacementTests.rooms() {
            guard let plan = PlanBuilder.build(layered).plan else { continue }
            for sheet in plan.sheets {
                for item in sheet.items {
                    guard case .text(let s, _, _, let a, _, _, _, _) = item else { continue }
                    #expect(a >= up - SheetDrawing.verticalTolerance - 1e-12 && a < Double.pi / 2 - SheetDrawing.verticalTolerance,
                            "\(name): '\(s)' at \(a)")
                    if abs(a - up) < 1e-6 { vertical += 1 }
                }
            }
        }
        #expect(vertical >= 10, "\(vertical) vertical texts")
    }

    /// The DXF of a turned room is the DXF of the room, turned: coordinates and angles in the
    /// scan's own frame (X = x, Y = −z), not the sheet's.
    @Test func theDXFKeepsTheScansCoordinates() throws {
        let degrees = 31.0
        let original = try PlanFixtures.layered("parametric_two_sections")
        let a = Self.pairs(DXFPlanWriter.write(try #require(PlanBuilder.build(original).plan)))
        let b = Self.pairs(DXFPlanWriter.write(try #require(PlanBuilder.build(Self.turned(original, degrees: degrees)).plan)))
        #expect(a.count == b.count)
        guard a.count == b.count else { return }
        let c = cos(degrees * Double.pi / 180), s = sin(degrees * Double.pi / 180)
        var points = 0, angles = 0
        var i = 0
        while i < a.count {
            #expect(a[i].code == b[i].code)
            switch a[i].code {
            case 10, 11 where i + 1 < a.count && a[i + 1].code == a[i].code + 10:
                // A world rotation about +Y by θ turns CAD space (X = x, Y = −z) by +θ.
                let x = a[i].value, y = a[i + 1].value
                let ex = c * x - s * y, ey = s * x + c * y
                #expect(abs(b[i].value - ex) < 2e-6 && abs(b[i + 1].value - ey) < 2e-6, "pair \(i): (\(x), \(y))")
                points += 1
                i += 2
                continue
            case 50, 51:
                var d = (b[i].value - a[i].value - degrees).truncatingRemainder(dividingBy: 360)
                if d > 180 { d -= 360 }
                if d < -180 { d += 360 }
                // Texts are kept upright on the sheet, so their CAD angle may also differ by 180°.
                #expect(abs(d) < 1e-4 || abs(abs(d) - 180) < 1e-4, "angle \(i): \(a[i].value) → \(b[i].value)")
                angles += 1
            default: break
            }
            i += 1
        }
        #expect(points > 100 && angles > 10)
    }

    /// The numeric group codes of a DXF's entities (points 10/20, 11/21; angles 50, 51) in file
    /// order.
    static func pairs(_ dxf: [UInt8]) -> [(code: Int, value: Double)] {
        let lines = String(decoding: dxf, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        var out: [(Int, Double)] = []
        guard var k = lines.firstIndex(where: { $0 == "ENTITIES" }).map({ $0 + 1 }) else { return [] }
        while k + 1 < lines.count {
            if let code = Int(lines[k].trimmingCharacters(in: .whitespaces)), [10, 20, 11, 21, 50, 51].contains(code),
                let v = Double(lines[k + 1].trimmingCharacters(in: .whitespaces))
            {
                out.append((code, v))
            }
            k += 2
        }
        return out
    }
}
