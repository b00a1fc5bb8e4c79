import Foundation
import Testing

@testable import TranscodeWorker
@testable import JobPipeline
import TestSupport
import WorkerCore

/// `convert` with several rooms: their JSON files merged into one structure; a repeated or
/// mismatched input is a usage error (exit 2), never dropped.
@Suite struct ConvertRoomsTests {
    static let binary: String? = TestPaths.workerBinary
    static let home = TestPaths.sharedHome.path
    static var ready: Bool { binary != nil && HomeStructureFixture.present }

    static func room(_ name: String) -> String { home + "/" + name + "/capturedRoom.json" }

    @Test func repeatedOrMismatchedPathsAreUsageErrors() throws {
        #expect(throws: UsageError.self) { try ConvertCommand(["a.json", "--roomplan", "a.json", "--out", "o"]) }
        #expect(throws: UsageError.self) { try ConvertCommand(["a.json", "--roomplan", "./a.json", "--out", "o"]) }
        #expect(throws: UsageError.self) {
            try ConvertCommand(["r.usdz", "--roomplan", "a.json", "--roomplan", "b.json", "--out", "o"])
        }
        #expect(throws: UsageError.self) { try ConvertCommand(["a.json", "--roomplan", "b.usdz", "--out", "o"]) }
        #expect(throws: UsageError.self) {
            try ConvertCommand(["a.usdz", "b.usdz", "c.usdz", "--roomplan", "a.json", "--roomplan", "b.json", "--out", "o"])
        }
        #expect(throws: UsageError.self) { try ConvertCommand(["a.json", "b.json", "--out", "o"]) }
        let many = (0..<300).flatMap { ["--roomplan", "r\($0).json"] }
        #expect(throws: UsageError.self) { try ConvertCommand(["a.json", "--out", "o"] + many) }
        let usd = try ConvertCommand(["a.usdz", "b.usdz", "--roomplan", "a.json", "--roomplan", "b.json", "--out", "o"])
        #expect(usd.input == "a.usdz" && usd.moreInputs == ["b.usdz"] && usd.roomPlans == ["a.json", "b.json"])
        let c = try ConvertCommand(["a.json", "--roomplan", "b.json", "--roomplan", "c.json", "--out", "o"])
        #expect(c.roomPlans == ["b.json", "c.json"])
        #expect(ConvertCommand.displayNames(["x/Kitchen/capturedRoom.json", "y/Hall/capturedRoom.json", "z/a.json"])
            == ["Kitchen/capturedRoom.json", "Hall/capturedRoom.json", "a.json"])
    }

    @Test func theWorkersRoomOptionsTakeSeveralRoomsButNoRepeatOrMismatch() throws {
        #expect(throws: UsageError.self) { try JobExecCommand(["--out", "o", "--roomplan", "a.json", "--roomplan", "a.json"]) }
        #expect(throws: UsageError.self) { try JobExecCommand(["--out", "o", "--usd", "a.usdz", "--usd", "a.usdz"]) }
        #expect(throws: UsageError.self) {
            try JobExecCommand(["--out", "o", "--usd", "a.usdz", "--usd", "b.usdz", "--roomplan", "a.json"])
        }
        let many = (0..<(2 * RoomInputs.maxRooms + 1)).flatMap { ["--roomplan", "r\($0).json"] }
        #expect(throws: UsageError.self) { try JobExecCommand(["--out", "o"] + many) }
        let rooms = try JobExecCommand(["--out", "o", "--usd", "a.usdz", "--roomplan", "a.json", "--usd", "b.usdz", "--roomplan", "b.json"])
        #expect(rooms.job.usd == ["a.usdz", "b.usdz"] && rooms.job.roomPlan == ["a.json", "b.json"])
        #expect(throws: UsageError.self) {
            try SubmitCommand(["--usdz", "a.usdz", "--roomplan", "a.json", "--roomplan", "b.json",
                               "--database-url", "postgresql://127.0.0.1:1/none"])
        }
    }

    @Test(.enabled(if: ready, "the executable or ../shared/homes is missing"))
    func sixRoomsConvertToOneModelAndOnePlanWithARecordPerRoom() throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("rooms-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        var args = ["convert", Self.room(HomeStructureFixture.roomNames[0])]
        for name in HomeStructureFixture.roomNames.dropFirst() { args += ["--roomplan", Self.room(name)] }
        let r = try ProgramRun.run(Self.binary!, args + ["--out", out, "--views", "hero,plan"])
        #expect(r.exited && r.status == 0, "\(r.stderr)")
        let data = try #require(FileManager.default.contents(atPath: out + "/layer_manifest.json"))
        let manifest = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let rooms = try #require(manifest["rooms"] as? [[String: Any]])
        #expect(rooms.compactMap { $0["name"] as? String } == HomeStructureTests.expectedNames)
        #expect(rooms.allSatisfy { $0["polygon_source"] as? String == "room" && !(($0["wall_lengths"] as? [String: Any]) ?? [:]).isEmpty })
        #expect(manifest["schema_version"] as? Int == 10)
        // One wall where two rooms meet, each room graded, the schedules as tables.
        let metrics = try #require(manifest["metrics"] as? [String: Any])
        #expect((metrics["shared_walls"] as? [Any])?.count == 5 && (metrics["floor_levels"] as? [Any])?.count == 1)
        let quality = try #require(manifest["quality"] as? [String: Any])
        #expect((quality["rooms"] as? [[String: Any]])?.compactMap { $0["room"] as? String } == HomeStructureTests.expectedNames)
        let plan = try #require(manifest["plan"] as? [String: Any])
        #expect(plan["sheets"] as? Int == 2 && (plan["opening_schedule"] as? [Any])?.count == 24)
        #expect((plan["room_schedule"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == HomeStructureTests.expectedNames)
        for f in ["model.glb", "plan.svg", "plan.pdf", "plan.dxf", "thumbs/hero.webp", "thumbs/plan.webp"] {
            #expect(FileManager.default.fileExists(atPath: out + "/" + f), "\(f)")
        }
    }

    @Test(.enabled(if: ready, "the executable or ../shared/homes is missing"))
    func sixRoomsUSDZFilesMergeAndLinkByUUID() throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("rooms-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        let names = HomeStructureFixture.roomNames
        let args = ["convert"] + names.map { Self.home + "/" + $0 + "/floorplan.usdz" }
            + names.flatMap { ["--roomplan", Self.room($0)] } + ["--out", out, "--no-thumbnails", "--no-plan"]
        let r = try ProgramRun.run(Self.binary!, args)
        #expect(r.exited && r.status == 0, "\(r.stderr)")
        let data = try #require(FileManager.default.contents(atPath: out + "/layer_manifest.json"))
        let manifest = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let inputs = try #require(manifest["inputs"] as? [[String: Any]])
        #expect(inputs.filter { $0["role"] as? String == "usd" }.count == 6)
        let elements = try #require(manifest["elements"] as? [[String: Any]])
        // Every element but the openings (holes in the wall meshes, no prim of their own) has USD geometry.
        let synthesized = elements.filter { $0["geometry"] as? String != "usd" }.compactMap { $0["category"] as? String }
        #expect(elements.count == 114 && synthesized == Array(repeating: "opening", count: 6), "\(synthesized)")
    }

    @Test(.enabled(if: ready, "the executable or ../shared/homes is missing"))
    func aUSDZWithAnotherRoomsJSONOrTheSameRoomTwiceIsAUsageError() throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("rooms-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        let usdz = Self.home + "/Kitchen/floorplan.usdz"
        let mismatched = try ProgramRun.run(Self.binary!, ["convert", usdz, "--roomplan", Self.room("Hallway2"), "--out", out,
                                                           "--no-thumbnails", "--json"])
        #expect(mismatched.status == 2, "\(mismatched.stdout)")
        #expect(mismatched.stdout.contains("ROOMPLAN_INPUTS_MISMATCHED"))
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("room-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: copy) }
        try FileManager.default.copyItem(atPath: Self.room("Kitchen"), toPath: copy)
        let twice = try ProgramRun.run(Self.binary!, ["convert", Self.room("Kitchen"), "--roomplan", copy, "--out", out,
                                                      "--no-thumbnails"])
        #expect(twice.status == 2, "\(twice.stderr)")
        let repeated = try ProgramRun.run(Self.binary!, ["convert", Self.room("Kitchen"), "--roomplan", Self.room("Kitchen"),
                                                         "--out", out])
        #expect(repeated.status == 2)
        #expect(!FileManager.default.fileExists(atPath: out + "/layer_manifest.json"))
    }
}
