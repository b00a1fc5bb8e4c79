import Foundation
import Testing
@testable import ObjectStorage
@testable import PGQueue
@testable import WorkerRuntime

/// Retention (migration 21): the sources and the redactions of a version ready for longer than the
/// settings say are deleted, and a later re-transcode fails at once instead of publishing without
/// the blur. Real Postgres, real child, file storage.
@Suite struct RetentionTests {
    /// A ready version of the textured sample with one area the worker blurred.
    static func readyVersion(_ f: JobFixture) throws -> (id: String, dir: String, crop: String) {
        let version = UUID().uuidString.lowercased()
        let dir = "rooms/\(f.roomId)/versions/\(version)/"
        let usdz = [UInt8](try Data(contentsOf: AppRedactionTests.sampleRoot.appendingPathComponent("textured_box.usdz")))
        try f.files.put(dir + "scan.usdz", bytes: usdz, contentType: "model/vnd.usdz+zip")
        try f.store.submit(versionId: version, roomId: f.roomId, roomName: nil, usdzKey: dir + "scan.usdz", jsonKey: nil)
        try f.store.connection.query("SELECT transcode_add_redactions($1::uuid, $2::jsonb)", [version,
            #"[{"textureRef":"textures/albedo.png","kind":"face","region":[[0.1,0.1],[0.5,0.5]],"method":"gaussian_blur_r18"}]"#])
        let job = try f.claim()
        #expect(f.runner().run(job, control: JobControl()) == .ready(outputPrefix: job.outputPrefix))
        let crop = try #require(try f.store.connection.query("SELECT crop_path FROM redactions WHERE room_version_id = $1::uuid",
                                                             [version]).first?["crop_path"])
        return (version, dir, crop)
    }

    @Test func sourcesAndRedactionsAreDeletedAfterTheirDaysAndARetranscodeFailsForGood() throws {
        var f = try JobFixture()
        let v = try Self.readyVersion(f)
        #expect(try f.files.list(prefix: v.dir).contains(v.dir + "scan.usdz"))
        f.config.deletion.sourceRetentionDays = 30
        f.config.deletion.redactionRetentionDays = 7
        // Not yet due: nothing happens.
        #expect(try RetentionSweeper.sweep(store: f.store, storage: f.files, config: f.config, logger: nil) == (0, 0))
        try f.store.connection.query("UPDATE transcode_private.room_versions SET transcoded_at = now() - interval '10 days' WHERE id = $1::uuid", [v.id])
        #expect(try RetentionSweeper.sweep(store: f.store, storage: f.files, config: f.config, logger: nil) == (0, 1))
        #expect(try f.store.redactions(versionId: v.id).isEmpty)
        #expect(throws: StorageError.self) { try f.files.get(v.crop, maxBytes: 1 << 20) }
        #expect(try f.files.list(prefix: v.dir).contains(v.dir + "scan.usdz"), "sources are kept for 30 days")
        try f.store.connection.query("UPDATE transcode_private.room_versions SET transcoded_at = now() - interval '31 days' WHERE id = $1::uuid", [v.id])
        #expect(try RetentionSweeper.sweep(store: f.store, storage: f.files, config: f.config, logger: nil) == (1, 0))
        #expect(!(try f.files.list(prefix: v.dir).contains(v.dir + "scan.usdz")))
        #expect(try f.store.erasure(versionId: v.id) == (true, true))
        // A re-transcode fails at once, and the version stays ready on the outputs it has.
        try f.store.connection.query("UPDATE transcode_private.room_versions SET reprocess_requested_at = now() WHERE id = $1::uuid", [v.id])
        let again = try f.claim()
        #expect(f.runner().run(again, control: JobControl()) == .failed(reason: "SOURCE_NOT_FOUND"))
        #expect(try f.store.show(versionId: v.id)?["status"] == "ready")
        #expect(try f.store.show(versionId: v.id)?["last_error"]?.hasPrefix("SOURCE_EXPIRED") == true)
    }

    @Test func withoutTheSettingsNothingIsDeleted() throws {
        let f = try JobFixture()
        let v = try Self.readyVersion(f)
        try f.store.connection.query("UPDATE transcode_private.room_versions SET transcoded_at = now() - interval '10 years' WHERE id = $1::uuid", [v.id])
        #expect(try RetentionSweeper.sweep(store: f.store, storage: f.files, config: f.config, logger: nil) == (0, 0))
        #expect(try f.store.redactions(versionId: v.id).count == 1)
        #expect(try f.store.erasure(versionId: v.id) == (false, false))
    }
}
