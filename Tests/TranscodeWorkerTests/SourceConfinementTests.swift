import Foundation
import Testing
@testable import TranscodeWorker
@testable import WorkerRuntime
@testable import WorkerCore

/// Keys in version and redaction rows may be wrong or hostile: a version reads only below its
/// own prefix, and its redactions are bounded.
@Suite("Storage key confinement and redaction limits", .enabled(if: postgresConfigured), .serialized)
struct SourceConfinementTests {
    @Test func templates() {
        #expect(StorageConfinement.problem(template: StorageConfinement.defaultTemplate) == nil)
        #expect(StorageConfinement.problem(template: "uploads/{room_id}/{version_id}/") == nil)
        #expect(StorageConfinement.problem(template: "uploads/{room_id}") != nil, "no trailing slash")
        #expect(StorageConfinement.problem(template: "up/{owner_id}/") != nil, "unknown placeholder")
        #expect(StorageConfinement.problem(template: "../{version_id}/") != nil)
        #expect(StorageConfinement.problem(template: "/abs/{version_id}/") != nil)
        #expect(StorageConfinement.prefix("a/{room_id}/{version_id}/", roomId: "r", versionId: "v") == "a/r/v/")
        let prefix = "rooms/r/versions/v/"
        for bad in ["rooms/r/versions/w/scan.usdz", "rooms/r/versions/v/../w/scan.usdz", "rooms/r/versions/v/", "rooms/r/versions/v",
                    "rooms/r/versions/vv/scan.usdz", "/rooms/r/versions/v/scan.usdz", "rooms/r/versions/v//scan.usdz", "other/scan.usdz"] {
            #expect(throws: FailureReason.self, "\(bad)") { try StorageConfinement.check(bad, under: prefix, what: "source") }
        }
        #expect(throws: Never.self) { try StorageConfinement.check("rooms/r/versions/v/scan.usdz", under: prefix, what: "source") }
        var config = WorkerConfig(environment: ["TRANSCODE_SOURCE_PREFIX": "nope"])
        #expect(throws: UsageError.self) { try config.assign("source-prefix", "nope", name: "TRANSCODE_SOURCE_PREFIX") }
        config = WorkerConfig(environment: [:])
        #expect(config.sourcePrefixTemplate == StorageConfinement.defaultTemplate)
    }

    /// Submits a version whose keys are given as is (objects put where the keys say).
    private func submit(_ f: JobFixture, usd: String?, json: String? = nil, redactions: [(String, String)] = [],
                        version: String = UUID().uuidString.lowercased()) throws -> String {
        let sample = try JobFixture.sample(JobFixture.sampleUSDZ)
        if let usd { try f.files.put(usd, bytes: sample, contentType: "model/vnd.usdz+zip") }
        if let json { try f.files.put(json, bytes: try JobFixture.sample(JobFixture.sampleJSON), contentType: "application/json") }
        for (_, key) in redactions { try f.files.put(key, bytes: [0x89, 0x50, 0x4E, 0x47], contentType: "image/png") }
        try f.store.submit(versionId: version, roomId: f.roomId, roomName: nil, usdzKey: usd, jsonKey: json,
                           redactions: redactions.map { (texturePath: $0.0, storageKey: $0.1) })
        return version
    }

    @Test func keysOutsideTheVersionPrefixFailAtOnce() throws {
        let f = try JobFixture()
        let victim = UUID().uuidString.lowercased()
        let victimKey = "rooms/\(UUID().uuidString.lowercased())/versions/\(victim)/scan.usdz"
        let cases: [(usd: String?, json: String?, redactions: [(String, String)])] = [
            (victimKey, nil, []),                                                       // another room's scan
            ("rooms/\(f.roomId)/versions/\(victim)/scan.usdz", nil, []),                // another version of the same room
            ("shared/scan.usdz", nil, []),                                              // anywhere else
            (nil, "rooms/\(f.roomId)/versions/\(victim)/room.json", []),                // the JSON
        ]
        for c in cases {
            let v = UUID().uuidString.lowercased()
            _ = try submit(f, usd: c.usd, json: c.json, version: v)
            let job = try f.claim()
            #expect(f.runner().run(job, control: JobControl()) == .failed(reason: "SOURCE_KEY_REFUSED"))
            let row = try f.row(v)
            #expect(row["status"] == "failed" && row.int("attempt") == 1)
        }
        // A recorded redaction pointing at someone else's object.
        let v = UUID().uuidString.lowercased()
        let own = "rooms/\(f.roomId)/versions/\(v)/scan.usdz"
        _ = try submit(f, usd: own, redactions: [("textures/a.png", victimKey)], version: v)
        let job = try f.claim()
        #expect(f.runner().run(job, control: JobControl()) == .failed(reason: "SOURCE_KEY_REFUSED"))
        // Nothing was read from outside: the recorder saw no get of a foreign key.
        #expect(!f.recorder.gets.contains(victimKey))
    }

    @Test func redactionsAreCountedAndSized() throws {
        let f = try JobFixture()
        f.config.maxRedactions = 2
        let v = UUID().uuidString.lowercased()
        let dir = "rooms/\(f.roomId)/versions/\(v)/"
        _ = try submit(f, usd: dir + "scan.usdz", redactions: [("a.png", dir + "b/a.png"), ("b.png", dir + "b/b.png")], version: v)
        try f.files.put(dir + "redacted/c.png", bytes: [1], contentType: "image/png")
        let job = try f.claim()
        #expect(f.runner().run(job, control: JobControl()) == .failed(reason: "REDACTION_INVALID"))
        #expect(try f.row(v)["last_error"]?.hasPrefix("REDACTION_LIMIT_EXCEEDED") == true)

        f.config.maxRedactions = 10
        f.config.maxRedactionBytes = 6
        let w = UUID().uuidString.lowercased()
        let dir2 = "rooms/\(f.roomId)/versions/\(w)/"
        _ = try submit(f, usd: dir2 + "scan.usdz", redactions: [("a.png", dir2 + "b/a.png"), ("b.png", dir2 + "b/b.png")], version: w)
        let job2 = try f.claim()
        #expect(f.runner().run(job2, control: JobControl()) == .failed(reason: "REDACTION_INVALID"))
        #expect(try f.row(w)["last_error"]?.contains("TRANSCODE_MAX_REDACTION_BYTES") == true)
    }

    /// The sample has no textures: a replacement matches nothing, and the version fails instead
    /// of publishing a model whose texture was never blurred.
    @Test func anUnmatchedRedactionFailsTheVersion() throws {
        let f = try JobFixture()
        let v = UUID().uuidString.lowercased()
        let dir = "rooms/\(f.roomId)/versions/\(v)/"
        _ = try submit(f, usd: dir + "scan.usdz", redactions: [("textures/face.png", dir + "blurred/face.png")], version: v)
        let job = try f.claim()
        #expect(f.runner().run(job, control: JobControl()) == .failed(reason: "REDACTION_INVALID"))
        #expect(try f.files.list(prefix: job.outputPrefix).isEmpty)
    }
}
