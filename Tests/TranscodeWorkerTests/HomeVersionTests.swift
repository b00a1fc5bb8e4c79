import Foundation
import Testing
@testable import ObjectStorage
@testable import PGQueue
import TestSupport
@testable import WorkerRuntime

/// A version that carries every room of a home (`source_rooms`, migration 22), recorded as the
/// backend's upload-complete records sources (`transcode_set_version_inputs`), turned by the worker
/// into one model and one plan with a record per room; malformed lists and keys outside the
/// version's prefix are refused.
@Suite("A home's rooms in one version", .enabled(if: postgresConfigured))
struct HomeVersionTests {
    static var homesPresent: Bool { HomeStructureFixture.present }

    /// The room's JSON (and USDZ) stored under the version's layout `rooms/<n>/`; returns the list
    /// `source_rooms` holds.
    static func storeRooms(_ f: JobFixture, version: String, names: [String], usdz: Bool) throws -> [[String: String]] {
        var list: [[String: String]] = []
        for (i, name) in names.enumerated() {
            let dir = "rooms/\(f.roomId)/versions/\(version)/rooms/\(i + 1)/"
            let folder = TestPaths.sharedHome.path + "/" + name
            try f.files.put(dir + "roomplan.json", bytes: try JobFixture.sample(folder + "/capturedRoom.json"), contentType: "application/json")
            var entry = ["json_path": dir + "roomplan.json"]
            if usdz {
                try f.files.put(dir + "source.usdz", bytes: try JobFixture.sample(folder + "/floorplan.usdz"), contentType: "model/vnd.usdz+zip")
                entry["usdz_path"] = dir + "source.usdz"
            }
            list.append(entry)
        }
        return list
    }

    static func json(_ value: Any) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys]), as: UTF8.self)
    }

    /// `transcode_set_version_inputs` as upload-complete calls it; its answer.
    static func setInputs(_ f: JobFixture, _ version: String, _ inputs: [String: Any]) throws -> [String: Any] {
        let rows = try f.store.connection.query("SELECT transcode_set_version_inputs($1::uuid, $2::jsonb)::text AS r",
                                                [version, try json(inputs)])
        let text = try #require(rows.first?["r"])
        return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test(.enabled(if: homesPresent, "../shared/homes is missing"))
    func sixRoomsOfAHomeBecomeOneReadyVersionWithARecordPerRoom() throws {
        let f = try JobFixture()
        let version = try f.submit(usd: nil, json: Array("{}".utf8))
        let rooms = try Self.storeRooms(f, version: version, names: HomeStructureFixture.roomNames, usdz: false)
        #expect(try Self.setInputs(f, version, ["source_rooms": rooms, "source_json_path": NSNull()])["ok"] as? Bool == true)
        let job = try f.claim()
        #expect(job.sourceRooms?.map(\.jsonPath) == rooms.map { $0["json_path"]! })
        #expect(f.runner().run(job, control: JobControl()) == .ready(outputPrefix: job.outputPrefix))
        let manifest = try #require(try JSONSerialization.jsonObject(
            with: Data(f.files.get(job.outputPrefix + "layer_manifest.json", maxBytes: 1 << 26))) as? [String: Any])
        let names = (manifest["rooms"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        #expect(names == HomeStructureTests.expectedNames)
        // Every room's file was read, and nothing outside the version's prefix.
        let prefix = "rooms/\(f.roomId)/versions/\(version)/"
        #expect(Set(f.recorder.gets.filter { $0.hasSuffix("roomplan.json") }) == Set(rooms.map { $0["json_path"]! }))
        #expect(f.recorder.gets.allSatisfy { $0.hasPrefix(prefix) })
    }

    @Test(.enabled(if: homesPresent, "../shared/homes is missing"))
    func twoRoomsWithTheirUSDZBecomeOneModel() throws {
        let f = try JobFixture()
        let version = try f.submit(usd: nil, json: Array("{}".utf8))
        let names = Array(HomeStructureFixture.roomNames.prefix(2))
        let rooms = try Self.storeRooms(f, version: version, names: names, usdz: true)
        #expect(try Self.setInputs(f, version, ["source_rooms": rooms])["ok"] as? Bool == true)
        let job = try f.claim()
        let outcome = f.runner().run(job, control: JobControl())
        let errors = try f.errors(version)
        #expect(outcome == .ready(outputPrefix: job.outputPrefix), "\(errors)")
        let manifest = try #require(try JSONSerialization.jsonObject(
            with: Data(f.files.get(job.outputPrefix + "layer_manifest.json", maxBytes: 1 << 26))) as? [String: Any])
        #expect((manifest["rooms"] as? [[String: Any]])?.count == 2)
        #expect(f.recorder.gets.filter { $0.hasSuffix("source.usdz") }.count == 2)
    }

    @Test func malformedRoomListsAreRefusedByTheFunctionAndTheTable() throws {
        let f = try JobFixture()
        let version = try f.submit(usd: nil, json: Array("{}".utf8))
        let p = "rooms/\(f.roomId)/versions/\(version)/rooms/"
        let bad: [(Any, String)] = [
            ([["json_path": p + "1.json"]], "from 2 to"),
            ((1...17).map { ["json_path": p + "\($0).json"] }, "from 2 to"),
            ([["json_path": p + "1.json"], ["json_path": p + "1.json"]], "given before"),
            ([["json_path": p + "1.json"], ["usdz_path": p + "2.usdz"]], "no json_path"),
            ([["json_path": p + "1.json"], ["json_path": p + "2.json", "usdz_path": 3]], "not a string"),
            ([["json_path": p + "1.json"], ["json_path": p + "2.json", "extra": "x"]], "unknown key"),
            (["json_path": p + "1.json"], "not an array"),
        ]
        for (list, problem) in bad {
            let answer = try Self.setInputs(f, version, ["source_rooms": list])
            #expect(answer["ok"] as? Bool == false && answer["error"] as? String == "INVALID_INPUTS")
            #expect((answer["problem"] as? String)?.contains(problem) == true, "\(answer)")
        }
        // The same rule holds for a writer that skips the function.
        #expect(throws: DatabaseError.self) {
            try f.store.connection.query("UPDATE transcode_private.room_versions SET source_rooms = $2::jsonb WHERE id = $1::uuid",
                                         [version, try Self.json([["json_path": p + "1.json"]])])
        }
        let stored = try f.store.connection.query("SELECT source_rooms::text AS r FROM transcode_private.room_versions WHERE id = $1::uuid",
                                                  [version])
        #expect(stored.first?["r"] == nil)
    }

    @Test func aRoomOutsideTheVersionsPrefixFailsTheVersionBeforeAnythingIsRead() throws {
        let f = try JobFixture()
        let version = try f.submit(usd: nil, json: Array("{}".utf8))
        let other = "rooms/\(UUID().uuidString.lowercased())/versions/x/roomplan.json"
        try f.files.put(other, bytes: Array("{}".utf8), contentType: "application/json")
        let rooms = [["json_path": "rooms/\(f.roomId)/versions/\(version)/rooms/1/roomplan.json"], ["json_path": other]]
        #expect(try Self.setInputs(f, version, ["source_rooms": rooms])["ok"] as? Bool == true)
        let job = try f.claim()
        #expect(f.runner().run(job, control: JobControl()) == .failed(reason: "SOURCE_KEY_REFUSED"))
        #expect(!f.recorder.gets.contains(other))
    }
}
