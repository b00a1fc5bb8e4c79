import Foundation
import Testing
@testable import TranscodeWorker
@testable import WorkerRuntime
import TestSupport

/// `plan.svg` is published where browsers open it, so the worker publishes only the plain drawing
/// the pipeline writes: a child that slips in a script, an event handler, a link or an entity is
/// refused with `CHILD_PROTOCOL` (permanent) before anything is uploaded.
@Suite("Plan output safety")
struct PlanOutputSafetyTests {
    typealias Fixture = ChildOutputValidationTests.Fixture

    /// The SVG the pipeline writes for the two-section sample.
    static func realSVG() throws -> [UInt8] {
        let root = TestPaths.packageRoot.appendingPathComponent("samples/roomplan")
        var input = PipelineInput(limits: .default, thumbnails: nil)
        input.roomPlanJSON = ("room.json", [UInt8](try Data(contentsOf: root.appendingPathComponent("parametric_two_sections.json"))))
        let result = try TranscodePipeline.run(input)
        return try #require(result.files.first { $0.path == "plan.svg" }?.bytes)
    }

    @Test func theWrittenPlanPassesAndIsPublished() throws {
        let svg = try Self.realSVG()
        #expect(SVGSafety.problem(svg) == nil)
        let f = try Fixture()
        try f.put("plan.svg", svg)
        try f.put("plan.pdf", Array("%PDF-1.5".utf8))
        try f.put("plan.dxf", Array("  0\nEOF\n".utf8))
        #expect(f.refusal() == nil)
        #expect(JobAttempt.contentType("plan.svg") == "image/svg+xml")
        #expect(JobAttempt.contentType("plan.pdf") == "application/pdf")
        #expect(JobAttempt.contentType("plan.dxf") == "image/vnd.dxf")
    }

    @Test func scriptsHandlersLinksAndEntitiesAreRefused() throws {
        let svg = String(decoding: try Self.realSVG(), as: UTF8.self)
        let head = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        let hostile = [
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
}
