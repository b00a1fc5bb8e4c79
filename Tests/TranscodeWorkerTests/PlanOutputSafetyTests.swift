import Foundation
import Testing
@testable import TranscodeWorker
@testable import WorkerRuntime
import TestSupport
@testable import JobPipeline

/// `plan.svg` is published where browsers open it, so the worker publishes only the plain drawing
/// the pipeline writes: a child that slips in a script, an event handler, a link or an entity is
/// refused with `CHILD_PROTOCOL` (permanent) before anything is uploaded.
@Suite("Plan output safety")
struct PlanOutputSafetyTests {
    typealias Fixture = ChildOutputValidationTests.Fixture

    /// The plan files the pipeline writes for the two-section sample.
    static func realPlan() throws -> [String: [UInt8]] {
        let root = TestPaths.packageRoot.appendingPathComponent("samples/roomplan")
        var input = PipelineInput(limits: .default, thumbnails: nil)
        input.roomPlanJSON = ("room.json", [UInt8](try Data(contentsOf: root.appendingPathComponent("parametric_two_sections.json"))))
        let result = try TranscodePipeline.run(input)
        return Dictionary(uniqueKeysWithValues: result.files.filter { $0.path.hasPrefix("plan.") }.map { ($0.path, $0.bytes) })
    }

    /// The SVG the pipeline writes for the two-section sample.
    static func realSVG() throws -> [UInt8] { try #require(try realPlan()["plan.svg"]) }

    @Test func theWrittenPlanPassesAndIsPublished() throws {
        let plan = try Self.realPlan()
        let svg = try #require(plan["plan.svg"]), pdf = try #require(plan["plan.pdf"]), dxf = try #require(plan["plan.dxf"])
        #expect(SVGSafety.problem(svg) == nil)
        #expect(PDFSafety.problem(pdf) == nil)
        #expect(DXFSafety.problem(dxf) == nil)
        let f = try Fixture()
        try f.put("plan.svg", svg)
        try f.put("plan.pdf", pdf)
        try f.put("plan.dxf", dxf)
        #expect(f.refusal() == nil)
        #expect(JobAttempt.contentType("plan.svg") == "image/svg+xml")
        #expect(JobAttempt.contentType("plan.pdf") == "application/pdf")
        #expect(JobAttempt.contentType("plan.dxf") == "image/vnd.dxf")
    }

    @Test func scriptsHandlersLinksAndEntitiesAreRefused() throws {
        let svg = String(decoding: try Self.realSVG(), as: UTF8.self)
        let head = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        let hostile: [String] = [
            svg.replacingOccurrences(of: "</svg>", with: "<script>alert(1)</script></svg>"),
            svg.replacingOccurrences(of: "<svg ", with: "<svg onload=\"alert(1)\" "),
            svg.replacingOccurrences(of: "</svg>", with: "<a href=\"https://example.invalid\"><text>x</text></a></svg>"),
            svg.replacingOccurrences(of: "fill=\"#FFFFFF\"", with: "fill=\"url(https://example.invalid/x#y)\""),
            svg.replacingOccurrences(of: "</svg>", with: "<foreignObject><p>x</p></foreignObject></svg>"),
            svg.replacingOccurrences(of: head, with: head + "<!DOCTYPE svg [<!ENTITY x \"y\">]>\n"),
            svg.replacingOccurrences(of: "</svg>", with: "<text>&x;</text></svg>"),
            svg.replacingOccurrences(of: "</svg>", with: "<!-- --></svg>"),
            svg.replacingOccurrences(of: "xmlns=\"http://www.w3.org/2000/svg\"", with: "xmlns=\"http://www.w3.org/1999/xhtml\""),
            svg.replacingOccurrences(of: "</svg>", with: "</svg><svg xmlns=\"http://www.w3.org/2000/svg\"></svg>"),
            svg.replacingOccurrences(of: "class=\"title\"", with: "style=\"background:url(x)\""),
            String(svg.dropFirst(head.count)),
            // Scanned as bytes, as XML parsers read it: a combining mark after `<` or `&` or a
            // non-ASCII space does not hide markup, and `URL(` is `url(`.
            svg.replacingOccurrences(of: "</svg>", with: "<text>a<\u{301}script>x</text></svg>"),
            svg.replacingOccurrences(of: "</svg>", with: "<text>&\u{301}x;</text></svg>"),
            svg.replacingOccurrences(of: "<svg ", with: "<svg\u{A0}onload=\"alert(1)\" "),
            svg.replacingOccurrences(of: "fill=\"#FFFFFF\"", with: "fill=\"URL(#y)\""),
        ]
        for (i, text) in hostile.enumerated() {
            #expect(text != svg, "variant \(i) changed nothing")
            #expect(SVGSafety.problem(Array(text.utf8)) != nil, "variant \(i) accepted")
        }
        #expect(SVGSafety.problem([0xFF, 0xFE]) != nil)
        let f = try Fixture()
        try f.put("plan.svg", Array(hostile[0].utf8))
        let refusal = try #require(f.refusal())
        #expect(ChildOutputValidationTests.isViolation(refusal) && refusal.message.contains("plan.svg"))
    }

    @Test func pdfScriptsActionsLinksAndHiddenObjectsAreRefused() throws {
        let pdf = String(decoding: try #require(try Self.realPlan()["plan.pdf"]), as: UTF8.self)
        let catalog = "/Type /Catalog"
        #expect(pdf.contains(catalog))
        let hostile = [
            pdf.replacingOccurrences(of: catalog, with: catalog + " /OpenAction << /S /JavaScript /JS (app.alert(1)) >>"),
            pdf.replacingOccurrences(of: catalog, with: catalog + " /OpenAction << /S /J#61vaScript /J#53 (app.alert(1)) >>"),
            pdf.replacingOccurrences(of: catalog, with: catalog + " /AA << /O << /S /Launch /F (calc.exe) >> >>"),
            pdf.replacingOccurrences(of: "/Type /Page", with: "/Type /Page /Annots [ << /Subtype /Link /A << /S /URI /URI (https://x.invalid) >> >> ]"),
            pdf.replacingOccurrences(of: catalog, with: catalog + " /Names << /EmbeddedFiles << >> >>"),
            pdf.replacingOccurrences(of: catalog, with: catalog + " /AcroForm << /XFA 1 0 R >>"),
            pdf.replacingOccurrences(of: "%%EOF", with: "%%EOF\n9 0 obj << /Type /ObjStm /N 1 /First 4 >> stream\nxxxx\nendstream endobj\n%%EOF"),
            "<html>" + pdf,
            String(pdf.dropLast(8)),
        ]
        for (i, text) in hostile.enumerated() {
            #expect(text != pdf, "variant \(i) changed nothing")
            #expect(PDFSafety.problem(Array(text.utf8)) != nil, "variant \(i) accepted")
        }
        let f = try Fixture()
        try f.put("plan.pdf", Array(hostile[0].utf8))
        let refusal = try #require(f.refusal())
        #expect(ChildOutputValidationTests.isViolation(refusal) && refusal.message.contains("plan.pdf"))
    }

    /// A `stream` keyword inside a comment or a string must not make the check skip what follows
    /// it up to an `endstream` elsewhere: a viewer would run the action in between.
    @Test func aStreamKeywordInACommentOrAStringHidesNothing() throws {
        let pdf = String(decoding: try #require(try Self.realPlan()["plan.pdf"]), as: UTF8.self)
        let catalog = "/Type /Catalog"
        let action = " /OpenAction << /S /JavaScript /JS (app.alert(1)) >>"
        let hidden = [
            pdf.replacingOccurrences(of: catalog, with: "%stream\n" + catalog + action + "\n%endstream\n"),
            pdf.replacingOccurrences(of: catalog, with: catalog + " /Title (stream\n)" + action + " /Subject (endstream)"),
            pdf.replacingOccurrences(of: catalog, with: catalog + " /Title (a \\) stream\n)" + action + " /Subject (endstream)"),
        ]
        for (i, text) in hidden.enumerated() {
            #expect(text != pdf, "variant \(i) changed nothing")
            #expect(PDFSafety.problem(Array(text.utf8)) == "the name /OpenAction", "variant \(i) hid the action")
        }
        // Comments and strings that hide nothing are still accepted.
        let harmless = pdf.replacingOccurrences(of: catalog, with: "%stream\n" + catalog + " /Title (stream\n)")
        #expect(PDFSafety.problem(Array(harmless.utf8)) == nil)
    }

    @Test func aDXFThatIsNotDXFTextIsRefused() throws {
        let dxf = String(decoding: try #require(try Self.realPlan()["plan.dxf"]), as: UTF8.self)
        let hostile = [dxf + "\u{0}", "<script>alert(1)</script>\n" + dxf, String(dxf.dropLast(4)), dxf + "  0\n",
                       "0\nSECTION\nA\nB\n0\nEOF\n", "0\nSECTION\n+\nB\n0\nEOF\n", "0\nSECTION\n1234567890123456789\nB\n0\nEOF\n",
                       "0\nSECTION\n  2\n0\nEOF\n", "0\nSECTIONS\n  2\nHEADER\n0\nEOF\n"]
        for (i, text) in hostile.enumerated() {
            #expect(DXFSafety.problem(Array(text.utf8)) != nil, "variant \(i) accepted")
        }
        // The smallest acceptable file, with padded group codes and CRLF or LF line ends.
        #expect(DXFSafety.problem(Array("  0\nSECTION\n  2\nHEADER\n  0\nEOF\n".utf8)) == nil)
        #expect(DXFSafety.problem(Array("  0\r\nSECTION\r\n -2\r\nHEADER\r\n  0\r\nEOF".utf8)) == nil)
        let f = try Fixture()
        try f.put("plan.dxf", Array(hostile[1].utf8))
        #expect(try #require(f.refusal()).message.contains("plan.dxf"))
    }
}
