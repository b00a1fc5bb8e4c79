import Foundation
import Testing
@testable import TranscodeWorker
import TestSupport
import Thumbnailer
@testable import ObjectStorage
import USDParse
@testable import WorkerCore
@testable import JobPipeline
import SourceFiles

/// The floor plan in the pipeline: rooms get the three plan files, listed in the manifest with
/// their hashes and in the report; inputs that are not rooms get none and a note.
@Suite struct PlanPipelineTests {
    static func run(_ usd: String?, json: String?, thumbnails: Bool = false) throws -> PipelineResult {
        let root = TestPaths.packageRoot
        var input = PipelineInput(limits: .default, thumbnails: thumbnails ? ThumbnailOptions() : nil)
        if let usd {
            let p = root.appendingPathComponent(usd).path
            input.usd = .init(name: (p as NSString).lastPathComponent, bytes: try FileReader.map(p, maxBytes: 1 << 28),
                              siblings: DirectoryAssetProvider(root: (p as NSString).deletingLastPathComponent, maxBytes: 1 << 28))
        }
        if let json { input.roomPlanJSON = ("room.json", try FileReader.read(root.appendingPathComponent(json).path, maxBytes: 1 << 26)) }
        return try TranscodePipeline.run(input)
    }

    static func manifest(_ r: PipelineResult) throws -> [String: Any] {
        let bytes = try #require(r.files.first { $0.path == "layer_manifest.json" }?.bytes)
        return try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    @Test func aRoomGetsItsPlanFilesListedWithTheirHashes() throws {
        let r = try Self.run("samples/roomplan/parametric_two_sections.usdz", json: "samples/roomplan/parametric_two_sections.json")
        let m = try Self.manifest(r)
        let plan = try #require(m["plan"] as? [String: Any])
        #expect(plan["note"] is NSNull)
        let files = try #require(plan["files"] as? [[String: Any]])
        #expect(files.compactMap { $0["path"] as? String } == ["plan.dxf", "plan.pdf", "plan.svg"])
        for f in files {
            let path = try #require(f["path"] as? String)
            let bytes = try #require(r.files.first { $0.path == path }?.bytes)
            #expect((f["bytes"] as? NSNumber)?.intValue == bytes.count)
            #expect(f["sha256"] as? String == Digest.hex(Digest.sha256(bytes)))
        }
        let rooms = try #require(m["rooms"] as? [[String: Any]])
        #expect(rooms.count == 2)
        let metrics = try #require(m["metrics"] as? [String: Any])
        let total = rooms.compactMap { ($0["area"] as? NSNumber)?.doubleValue }.reduce(0, +)
        #expect(abs(total - ((metrics["floor_area"] as? NSNumber)?.doubleValue ?? -1)) < 1e-5)
        let report = String(decoding: try ReportBuilder.build(result: r), as: UTF8.self)
        #expect(report.contains("<h2>Floor plan</h2>") && report.contains("data:image/svg+xml;base64,"))
        #expect(report.contains("Living room") && report.contains("Dining room"))
    }

    @Test func inputsThatAreNotRoomsGetNoPlanAndANote() throws {
        for usd in ["samples/textured/textured_box.usdz"] {
            let r = try Self.run(usd, json: nil, thumbnails: true)
            #expect(!r.files.contains { $0.path.hasPrefix("plan.") })
            #expect(r.files.contains { $0.path == "thumbs/plan.webp" }, "the rendered top-down view stays")
            let plan = try #require(try Self.manifest(r)["plan"] as? [String: Any])
            #expect((plan["files"] as? [Any])?.isEmpty == true)
            #expect((plan["note"] as? String)?.contains("no walls") == true || (plan["note"] as? String)?.contains("not a room") == true)
            #expect((try Self.manifest(r)["rooms"] as? [Any])?.isEmpty == true)
            let report = String(decoding: try ReportBuilder.build(result: r), as: UTF8.self)
            #expect(report.contains("No plan: "))
        }
    }
}
