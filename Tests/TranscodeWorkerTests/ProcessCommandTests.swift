import Foundation
import Testing
@testable import TranscodeWorker

@Suite("process command on real Postgres", .enabled(if: postgresConfigured))
struct ProcessCommandTests {
    func arguments(_ f: JobFixture, _ version: String) -> [String] {
        ["process", version, "--json", "--database-url", f.db.url, "--storage-url", f.config.storageURL,
         "--heartbeat-seconds", "0.2", "--lease-seconds", "5", "--worker-id", "tw-process-test",
         "--progress-interval-seconds", "0"]
    }

    @Test func processesAQueuedVersionToReady() throws {
        let f = try JobFixture()
        let version = try f.submitSample()
        #expect(CommandLineTool.main(arguments(f, version)) == 0)
        let row = try f.row(version)
        #expect(row["status"] == "ready")
        #expect(row.int("attempt") == 1)
        #expect(row["lease_id"] == nil)
        let glb = try #require(row["glb_path"])
        #expect(glb.hasPrefix("rooms/\(f.roomId)/versions/\(version)/r1-"))
        #expect((try f.files.size(glb) ?? 0) > 0)
    }

    @Test func requeuesAFailedVersionAndReprocessesAReadyOne() throws {
        let f = try JobFixture()
        let version = try f.submitSample()
        // Fail it first, the way a worker does.
        let job = try f.claim()
        let failed = try f.store.finalize(versionId: version, leaseId: job.leaseId, status: "failed",
                                          error: .object(["reason": .string("INTERNAL"), "message": .string("boom"),
                                                          "phase": .string("parsing"), "retryable": .bool(true)]))
        #expect(failed.ok)
        #expect(try f.row(version)["status"] == "failed")

        #expect(CommandLineTool.main(arguments(f, version)) == 0)
        var row = try f.row(version)
        #expect(row["status"] == "ready")
        #expect(row.int("attempt") == 1)
        #expect(row["last_error_code"] == nil)
        #expect(row.int("output_revision") == 1)

        // A ready version is re-transcoded as a reprocess: new revision, still ready.
        #expect(CommandLineTool.main(arguments(f, version)) == 0)
        row = try f.row(version)
        #expect(row["status"] == "ready")
        #expect(row.int("output_revision") == 2)
        #expect(row["reprocess_requested_at"] == nil)
        #expect(row["glb_path"]?.contains("/r2-") == true)
    }

    @Test func refusesAVersionALiveWorkerHolds() throws {
        let f = try JobFixture()
        let version = try f.submitSample()
        let held = try #require(try f.store.claim(workerId: "tw-other", leaseSeconds: 600))
        #expect(CommandLineTool.main(arguments(f, version)) == 4)
        let row = try f.row(version)
        #expect(row["lease_id"] == held.leaseId)
        #expect(row["locked_by"] == "tw-other")
        #expect(row.int("attempt") == 1)
    }

    @Test func takesOverAnExpiredLease() throws {
        let f = try JobFixture()
        let version = try f.submitSample()
        let dead = try #require(try f.store.claim(workerId: "tw-dead", leaseSeconds: 600))
        try f.store.connection.query("UPDATE transcode_private.room_versions SET lease_expires_at = now() - interval '1 second' WHERE id = $1::uuid",
                                     [version])
        #expect(CommandLineTool.main(arguments(f, version)) == 0)
        let row = try f.row(version)
        #expect(row["status"] == "ready")
        #expect(row.int("attempt") == 2)
        // The dead worker's lease can no longer write anything.
        #expect(try f.store.heartbeat(dead, leaseSeconds: 5) == .leaseLost)
    }

    @Test func exitStatusesForInputFailuresAndUnknownVersions() throws {
        let f = try JobFixture()
        let sample = try JobFixture.sample(JobFixture.sampleUSDZ)
        let corrupt = try f.submit(usd: Array(sample.prefix(100)), json: nil)
        #expect(CommandLineTool.main(arguments(f, corrupt)) == 3)
        #expect(try f.row(corrupt)["last_error_code"] == "USDZ_PARSE_ERROR")
        #expect(CommandLineTool.main(arguments(f, UUID().uuidString.lowercased())) == 2)
        #expect(CommandLineTool.main(["process", UUID().uuidString, "--no-such-flag", "1", "--database-url", f.db.url]) == 2)
    }
}
