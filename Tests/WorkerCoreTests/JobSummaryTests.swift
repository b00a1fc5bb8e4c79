import JSONCore
import Testing

@testable import WorkerCore

/// The `done` line's summary: what the child encodes is what the daemon decodes, and a child that
/// sends less, or the wrong kinds, is refused.
@Suite struct JobSummaryTests {
    static let hero = JobSummary.Thumbnail(path: "thumbs/hero.webp", kind: "hero", width: 1320, height: 990)
    static let full = JobSummary(
        phaseMilliseconds: [.parsing: 12.5, .layering: 3, .writing: 40.25, .preview: 310, .manifest: 1.5, .report: 9],
        layers: 9, elements: 41, triangles: 5210, vertices: 9876, warnings: 2, qualityGrade: "B",
        manifestSchemaVersion: 10, reused: ["thumbs/card.webp", "thumbs/hero.webp"], thumbnails: [hero])

    @Test func encodingAndDecodingRoundTripThroughTheChildsLine() throws {
        let line = ChildMessage.done(files: [.init(path: "model.glb", bytes: 7, sha256: "ab")], summary: Self.full).line
        #expect(ChildMessage(line: line) == .done(files: [.init(path: "model.glb", bytes: 7, sha256: "ab")], summary: Self.full))
        var ungraded = Self.full
        ungraded.qualityGrade = nil
        ungraded.phaseMilliseconds = [:]
        ungraded.reused = []
        #expect(JobSummary(json: ungraded.json) == ungraded)
        // Every phase's name is the one `JobPhase` gives it.
        guard case .object(let o) = Self.full.json, case .object(let phases)? = o["phase_ms"] else {
            Issue.record("no phase_ms object")
            return
        }
        #expect(Set(phases.keys) == ["parsing", "layering", "writing", "preview", "manifest", "report"])
    }

    @Test func aSummaryMissingWhatTheReportNeedsIsRefused() {
        guard case .object(let good) = Self.full.json else {
            Issue.record("not an object")
            return
        }
        let cases: [(String, JSONValue)] = [
            ("manifest_schema_version", .string("10")), ("manifest_schema_version", .int(0)), ("layers", .int(-1)),
            ("thumbnails", .object([:])), ("quality_grade", .int(1)),
            ("thumbnails", .array([.object(["path": .string("x"), "kind": .string("hero"), "width": .int(1 << 20), "height": .int(1)])])),
            ("thumbnails", .array([.object(["path": .string("x"), "kind": .string("hero"), "width": .int(2)])])),
        ]
        for (key, bad) in cases {
            var broken = good
            broken[key] = bad
            #expect(JobSummary(json: .object(broken)) == nil, "\(key) = \(bad)")
        }
        for key in ["manifest_schema_version", "layers", "thumbnails"] {
            var missing = good
            missing[key] = nil
            #expect(JobSummary(json: .object(missing)) == nil, "without \(key)")
        }
        #expect(JobSummary(json: .array([])) == nil && JobSummary(json: .null) == nil)
    }

    /// Only logs read the timings, the reused list and the counts: what is not of their kind is
    /// left out rather than refusing the attempt.
    @Test func whatOnlyTheLogsReadIsReadLeniently() throws {
        let json: JSONValue = .object([
            "manifest_schema_version": .int(10), "layers": .int(2), "thumbnails": .array([]),
            "phase_ms": .object(["parsing": .int(4), "downloading": .double(1), "preview": .string("fast")]),
            "reused": .array([.string("thumbs/hero.webp"), .int(3)]), "elements": .int(-4), "triangles": .string("many"),
        ])
        let summary = try #require(JobSummary(json: json))
        #expect(summary.phaseMilliseconds == [.parsing: 4])
        #expect(summary.reused == ["thumbs/hero.webp"])
        #expect(summary.elements == 0 && summary.triangles == 0 && summary.vertices == 0 && summary.warnings == 0)
        #expect(summary.qualityGrade == nil && summary.layers == 2 && summary.thumbnails.isEmpty)
    }
}
