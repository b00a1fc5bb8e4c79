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
import FloorPlan
import Layering
import SceneModel

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

    /// A room's plan thumbnail is the sheet's raster, and the sheet is turned square to the walls:
    /// the camera recorded for it maps every wall end to the pixel the raster drew it at.
    @Test func thePlanThumbnailsCameraSeesTheTurnedSheet() throws {
        let json = try FileReader.read(
            TestPaths.packageRoot.appendingPathComponent("samples/roomplan/parametric_two_sections.json").path, maxBytes: 1 << 26)
        var layered = try RoomLayering.layer(scene: nil, capturedRoomJSON: json)
        let turn = Matrix4.rotation(axis: 1, degrees: 27)
        for i in layered.elements.indices { layered.elements[i].transform = turn * layered.elements[i].transform }
        let plan = try #require(PlanBuilder.build(layered).plan)
        let sheet = try #require(plan.sheets.first)
        #expect(abs(sheet.rotation - 27 * Double.pi / 180) < 1e-9)
        let (width, height) = (1024, 1024)
        let raster = try CairoPlanRenderer.raster(sheet, locale: .en, width: width, height: height)
        let camera = sheet.topDownCamera(
            pixelsPerMillimetre: raster.pixelsPerMillimetre, offset: raster.offset, width: width, height: height, layered: layered)
        let up = camera.up, right = SIMD3(-up.z, 0, up.x)  // screen right, looking down
        #expect(abs(up.y) < 1e-12 && abs((up * up).sum() - 1) < 1e-12)
        let metresPerPixel = try #require(camera.orthoHalfExtent) / (Double(height) / 2)
        var worst = 0.0, ends = 0
        for e in layered.elements where e.category == .wall {
            guard let d = e.dimensions else { continue }
            for x in [-d.x / 2, d.x / 2] {
                let w = e.transform.transformPoint(SIMD3(x, 0, 0))
                let v = w - camera.target
                let seen = SIMD2(Double(width) / 2 + (v * right).sum() / metresPerPixel,
                                 Double(height) / 2 - (v * up).sum() / metresPerPixel)
                let drawn = raster.offset + sheet.paper(SIMD2(w.x, w.z)) * raster.pixelsPerMillimetre
                worst = max(worst, ((seen - drawn) * (seen - drawn)).sum().squareRoot())
                ends += 1
            }
        }
        #expect(ends >= 8)
        #expect(worst < 1e-6, "wall ends land \(worst) px from where the raster drew them")
    }
}
