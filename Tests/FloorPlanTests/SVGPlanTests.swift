import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
@testable import FloorPlan
import SceneModel

/// The SVG plan: well-formed XML whose texts carry every wall's dimension and every room's name
/// and area, the same bytes for the same room.
@Suite struct SVGPlanTests {
    /// Every `<text>` of an SVG: its attributes and content.
    final class TextCollector: NSObject, XMLParserDelegate {
        var texts: [(attributes: [String: String], text: String)] = []
        var current: [String: String]?
        var buffer = ""
        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String] = [:]) {
            if name == "text" { current = attributes; buffer = "" }
        }
        func parser(_ parser: XMLParser, foundCharacters string: String) { if current != nil { buffer += string } }
        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            if name == "text", let a = current { texts.append((a, buffer)); current = nil }
        }
    }

    static func texts(_ svg: [UInt8]) throws -> [(attributes: [String: String], text: String)] {
        let parser = XMLParser(data: Data(svg))
        let collector = TextCollector()
        parser.delegate = collector
        #expect(parser.parse(), "the SVG is well-formed XML")
        return collector.texts
    }

    @Test(arguments: ["parametric_two_sections", "model_catalog", "ios16_mesh", "mesh_opening_unmatched"])
    func everyWallDimensionAndRoomLabelIsText(_ sample: String) throws {
        let layered = try PlanFixtures.layered(sample)
        let plan = try #require(PlanBuilder.build(layered).plan)
        let texts = try Self.texts(SVGPlanWriter.write(plan))
        let format = MeasureFormatter(units: .metric)
        let dimensions = texts.filter { $0.attributes["class"] == "dimension" }
        let walls = layered.elements.filter { $0.category == .wall }
        #expect(!walls.isEmpty)
        for w in walls {
            let length = try #require(w.dimensions?.x)
            guard length >= 0.5 else { continue }
            let matches = dimensions.filter { d in
                abs((Double(d.attributes["data-metres"] ?? "") ?? -1) - length) < 1e-4 && d.text == format.length(length)
            }
            #expect(!matches.isEmpty, "wall \(w.identifier) of \(length) m has no dimension")
        }
        let names = texts.filter { $0.attributes["class"] == "room-name" }.map(\.text)
        let areas = texts.filter { $0.attributes["class"] == "room-area" }
        let vocabulary = PlanVocabulary(locale: .en)
        let labels = layered.sections.isEmpty ? ["room"] : layered.sections.map(\.label)
        for label in labels { #expect(names.contains(vocabulary.section(label)), "no label for \(label)") }
        #expect(areas.count == plan.rooms.count)
        for room in plan.rooms {
            #expect(areas.contains { $0.text == format.area(room.area) && abs((Double($0.attributes["data-square-metres"] ?? "") ?? -1) - room.area) < 1e-3 })
        }
        #expect(texts.contains { $0.attributes["class"] == "title" && $0.text.contains(format.area(plan.rooms.reduce(0) { $0 + $1.area })) })
    }

    @Test func sameRoomSameBytesInEveryFormat() throws {
        let a = try #require(PlanBuilder.build(try PlanFixtures.layered("parametric_two_sections")).plan)
        let b = try #require(PlanBuilder.build(try PlanFixtures.layered("parametric_two_sections")).plan)
        #expect(SVGPlanWriter.write(a) == SVGPlanWriter.write(b))
        #expect(DXFPlanWriter.write(a) == DXFPlanWriter.write(b))
        #expect(try CairoPlanRenderer.pdf(a) == CairoPlanRenderer.pdf(b))
        let text = String(decoding: try CairoPlanRenderer.pdf(a), as: UTF8.self)
        #expect(text.contains("/CreationDate (20000101000000)"), "the creation date is pinned")
    }

    @Test func chineseLabelsAndImperialUnits() throws {
        let layered = try PlanFixtures.layered("parametric_two_sections")
        let plan = try #require(PlanBuilder.build(layered, options: PlanOptions(units: .imperial, locale: .zhHans)).plan)
        let texts = try Self.texts(SVGPlanWriter.write(plan))
        let names = Set(texts.filter { $0.attributes["class"] == "room-name" }.map(\.text))
        #expect(names == ["餐厅", "客厅"])
        #expect(texts.filter { $0.attributes["class"] == "room-area" }.allSatisfy { $0.text.hasSuffix(" sq ft") })
        #expect(texts.filter { $0.attributes["class"] == "dimension" }.allSatisfy { $0.text.hasSuffix("″") })
        #expect(plan.rooms.map(\.name).sorted() == ["客厅", "餐厅"].sorted())
    }

    @Test func textIsEscaped() {
        #expect(SVGPlanWriter.escape("a<b>&\"c'\u{01}") == "a&lt;b&gt;&amp;&quot;c&apos;")
    }
}
