import Foundation
import TestSupport
import Testing
@testable import WorkerRuntime
@testable import PGQueue

/// Phase changes renew a job's lease at most every `HeartbeatLoop.phaseGapSeconds`: the phases of
/// a fast job would otherwise each cost a statement and a commit. Each renewal is counted by a
/// trigger on `room_versions` in the test's own database.
@Suite("Heartbeat phase renewals on real Postgres", .enabled(if: postgresConfigured), .serialized)
struct HeartbeatPhaseTests {
    /// A claimed job of a fresh fixture, with every renewal of its row logged (`hb_log`).
    static func claimedJob() throws -> (JobFixture, ClaimedJob) {
        let f = try JobFixture()
        try f.store.connection.execute(script: """
            CREATE TABLE hb_log (phase text);
            CREATE FUNCTION hb_log_renewal() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN INSERT INTO hb_log VALUES (NEW.transcode_phase); RETURN NEW; END $$;
            CREATE TRIGGER hb_log_renewal AFTER UPDATE ON transcode_private.room_versions FOR EACH ROW
              WHEN (NEW.heartbeat_at IS DISTINCT FROM OLD.heartbeat_at AND OLD.lease_id IS NOT NULL)
              EXECUTE FUNCTION hb_log_renewal();
            """)
        try f.submit(usd: try JobFixture.sample(JobFixture.sampleUSDZ), json: try JobFixture.sample(JobFixture.sampleJSON))
        let job = try #require(try f.store.claim(workerId: f.config.workerId, leaseSeconds: 30))
        return (f, job)
    }

    static func renewals(_ f: JobFixture) throws -> [String?] {
        try f.store.connection.query("SELECT phase FROM hb_log").map { $0["phase"] }
    }

    static func loop(_ f: JobFixture, _ job: ClaimedJob, gap: Double) -> HeartbeatLoop {
        HeartbeatLoop(job: job, control: JobControl(), logger: JSONLogger(workerId: "tw-hb", minimum: .error, fd: TestOutput.logFD),
                      databaseURL: f.db.url, leaseSeconds: 30, interval: 3600, phaseGap: gap)
    }

    @Test("phase changes within the gap after the claim send no renewal")
    func changesWithinTheGapAreNotSent() throws {
        let (f, job) = try Self.claimedJob()
        let hb = Self.loop(f, job, gap: 3600)
        hb.start()
        for phase in ["layering", "writing", "preview", "manifest"] { hb.setPhase(phase) }
        // Time enough for the loop to have sent them, had it sent each at once.
        Thread.sleep(forTimeInterval: 0.5)
        hb.stop()
        let sent = try Self.renewals(f)
        #expect(sent.isEmpty, "renewals sent: \(sent)")
    }

    @Test("past the gap, a phase change renews the lease with the latest phase")
    func changesPastTheGapAreSent() throws {
        let (f, job) = try Self.claimedJob()
        let hb = Self.loop(f, job, gap: 0)
        hb.start()
        hb.setPhase("layering")
        let end = Date().addingTimeInterval(10)
        while Date() < end, try Self.renewals(f).isEmpty { Thread.sleep(forTimeInterval: 0.02) }
        hb.stop()
        #expect(try Self.renewals(f).first == "layering")
    }
}
