import Foundation
import Testing
@testable import FloorPlan
import SceneModel
import TestSupport

/// The PDF (checked with poppler's `pdfinfo` and `pdffonts`), the DXF (read and audited by
/// `ezdxf`), the raster plan and the room figures.
@Suite struct PlanOutputTests {
    /// Every code is unique, upper case, starts with `PLAN_` and reads back as its case.
    @Test func errorCodesAreWellFormed() {
        #expect(errorCodeProblems(FloorPlanError.Code.self, prefix: "PLAN_") == [])
    }

    @Test func thePDFHasOnePagePerStory() throws {
        for (layered, pages) in [(try PlanFixtures.layered("parametric_two_sections"), 1), (try PlanFixtures.twoStories("parametric_two_sections"), 2)] {
            let plan = try #require(PlanBuilder.build(layered).plan)
            #expect(plan.sheets.count == pages)
            let path = try PlanFixtures.temporary(try CairoPlanRenderer.pdf(plan), suffix: ".pdf")
            defer { try? FileManager.default.removeItem(atPath: path) }
            let info = try #require(PlanFixtures.run("pdfinfo", [path]))
            #expect(info.contains("Pages:           \(pages)\n"), "\(info)")
            #expect(info.contains("A4"))
        }
        let zh = try #require(PlanBuilder.build(try PlanFixtures.layered("parametric_two_sections"), options: PlanOptions(locale: .zhHans)).plan)
        let path = try PlanFixtures.temporary(try CairoPlanRenderer.pdf(zh), suffix: ".pdf")
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(try #require(PlanFixtures.run("pdffonts", [path])).contains("NotoSansCJK"), "Chinese text needs the CJK font embedded")
    }

    @Test func theDXFAuditsCleanWithItsLayers() throws {
        let plan = try #require(PlanBuilder.build(try PlanFixtures.twoStories("parametric_two_sections")).plan)
        let path = try PlanFixtures.temporary(DXFPlanWriter.write(plan), suffix: ".dxf")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let script = """
            import sys, ezdxf
            doc = ezdxf.readfile(sys.argv[1])
            auditor = doc.audit()
            print(doc.dxfversion, doc.header.get('$INSUNITS'), len(auditor.errors), len(auditor.fixes))
            print(' '.join(sorted(layer.dxf.name for layer in doc.layers)))
            print(' '.join(sorted(set(e.dxftype() for e in doc.modelspace()))))
            print(len([e for e in doc.modelspace().query('TEXT') if e.dxf.layer == 'S1-DIMENSIONS']))
            """
        let out = try #require(PlanFixtures.run("python3", ["-c", script, path])).split(separator: "\n").map(String.init)
        #expect(out.count == 4)
        guard out.count == 4 else { return }
        #expect(out[0] == "AC1015 6 0 0", "version, $INSUNITS (metres), audit errors and fixes: \(out[0])")
        let layers = Set(out[1].split(separator: " ").map(String.init))
        for story in ["S1", "S2"] {
            for kind in ["WALLS", "DOORS", "WINDOWS", "OPENINGS", "FURNITURE", "DIMENSIONS", "TEXT"] {
                #expect(layers.contains("\(story)-\(kind)"), "layer \(story)-\(kind)")
            }
        }
        #expect(Set(out[2].split(separator: " ")).isSuperset(of: ["LINE", "LWPOLYLINE", "ARC", "TEXT"]))
        let walls = try PlanFixtures.layered("parametric_two_sections").elements.filter { ($0.dimensions?.x ?? 0) >= 0.5 && $0.category == .wall }
        #expect((Int(out[3]) ?? 0) >= walls.count, "a dimension text per wall on story 1")
    }

    @Test func theRasterPlanHasText() throws {
        let plan = try #require(PlanBuilder.build(try PlanFixtures.layered("parametric_two_sections")).plan)
        var sheet = plan.sheets[0]
        let with = try CairoPlanRenderer.raster(sheet, locale: .en, width: 512, height: 512).rgba
        sheet.items.removeAll { if case .text = $0 { return true } else { return false } }
        let without = try CairoPlanRenderer.raster(sheet, locale: .en, width: 512, height: 512).rgba
        var differing = 0
        for i in stride(from: 0, to: with.count, by: 4) where with[i] != without[i] || with[i + 1] != without[i + 1] { differing += 1 }
        #expect(differing > 1500, "text changes \(differing) pixels")
        // The title band is dark where the title is written.
        var dark = 0
        for y in 0..<40 { for x in 0..<512 where with[(y * 512 + x) * 4] < 100 { dark += 1 } }
        #expect(dark > 200, "\(dark) dark pixels in the title band")
    }

    @Test func roomsSplitTheFloorAndListTheirElements() throws {
        let layered = try PlanFixtures.layered("parametric_two_sections")
        let plan = try #require(PlanBuilder.build(layered).plan)
        #expect(plan.rooms.map(\.label).sorted() == layered.sections.map(\.label).sorted())
        let floor = try #require(layered.metrics.floorArea)
        #expect(abs(plan.rooms.reduce(0) { $0 + $1.area } - floor) < 1e-6, "the rooms cover the floor exactly once")
        #expect(plan.rooms.allSatisfy { $0.polygonSource == "floor+split" && $0.perimeter > 0 })
        let dining = try #require(plan.rooms.first { $0.label == "diningRoom" })
        let chairs = layered.elements.filter { $0.category == "chair" }.map(\.identifier)
        #expect(!chairs.isEmpty && chairs.allSatisfy { dining.elements.contains($0) } || chairs.allSatisfy { id in plan.rooms.contains { $0.elements.contains(id) } })
        // Every object is in exactly one room.
        for o in layered.elements where !o.category.isSurface && o.category != .unclassified {
            #expect(plan.rooms.filter { $0.elements.contains(o.identifier) }.count == 1, "\(o.category) \(o.identifier)")
        }
    }

    @Test func inputsThatAreNotRoomsGetANoteAndRoomsWithoutFloorsStillAPlan() throws {
        var layered = try PlanFixtures.layered("parametric_two_sections")
        var noWalls = layered
        noWalls.elements.removeAll { $0.category == .wall }
        let none = PlanBuilder.build(noWalls)
        #expect(none.plan == nil && none.note?.contains("no walls") == true)
        var empty = layered
        empty.elements = []
        #expect(PlanBuilder.build(empty).note?.contains("not a room") == true)
        layered.elements.removeAll { $0.category == .floor }
        let plan = try #require(PlanBuilder.build(layered).plan)
        #expect(!plan.sheets.isEmpty && plan.rooms.allSatisfy { $0.polygonSource.hasPrefix("walls") })
        #expect(abs(plan.rooms.reduce(0) { $0 + $1.area } - 29) < 0.05, "the wall loop of the 6 × 5 m room less its 1 × 1 m notch")
    }

    @Test func measurementsAreRoundedAsDocumented() {
        let m = MeasureFormatter(units: .metric), i = MeasureFormatter(units: .imperial)
        #expect(m.length(2.346) == "2.35 m" && m.length(0.004) == "0.00 m" && m.length(12) == "12.00 m")
        #expect(m.area(14.25) == "14.3 m²" && m.area(0.04) == "0.0 m²")
        #expect(i.length(0.3048) == "1′ 0″")
        #expect(i.length(0.0254) == "1″" && i.length(0.0127) == "½″" && i.length(0.00635) == "¼″")
        #expect(i.length(3) == "9′ 10″" && i.length(5) == "16′ 4¾″" && i.length(0.9144 + 0.0254 * 11.8) == "3′ 11¾″")
        #expect(i.length(0.0254 * 11.8) == "11¾″" && i.length(0.0254 * 11.9) == "1′ 0″", "rounding carries into feet")
        #expect(i.area(1) == "11 sq ft" && i.area(9.290304) == "100 sq ft")
        #expect(m.scaleBar(maxMetres: 3).label == "2 m" && i.scaleBar(maxMetres: 3).label == "5 ft")
        // Beyond any room, and not numbers at all: a dash, never a trap.
        for f in [m, i] {
            #expect([1e12, -1e30, 3e38, .infinity, .nan].allSatisfy { f.length($0) == "–" && f.area($0) == "–" })
        }
        #expect(m.length(9.99e11) == "999000000000.00 m" && m.area(-9.99e11) == "-999000000000.0 m²")
        #expect(i.area(9.99e11).hasSuffix(" sq ft") && i.length(9.99e11).hasSuffix("″"))
    }
}
