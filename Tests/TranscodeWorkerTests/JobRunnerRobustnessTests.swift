import Foundation
import Testing
import TestSupport
@testable import TranscodeWorker
@testable import ObjectStorage
@testable import PGQueue
@testable import WorkerRuntime

#if canImport(Glibc)
import Glibc
@testable import WorkerCore
#endif

/// An `ObjectStore` whose `get` runs a hook first and then fails with a retryable error.
final class FailingGetStore: ForwardingStore, @unchecked Sendable {
    let onGet: @Sendable () -> Void

    init(_ base: any ObjectStore, onGet: @escaping @Sendable () -> Void) {
        self.onGet = onGet
        super.init(base)
    }

    override func get(_ key: String, maxBytes: Int) throws(StorageError) -> [UInt8] {
        onGet()
        throw StorageError(code: .unavailable, message: "storage down for the test", key: key, isRetryable: true)
    }
}

@Suite("Job runner robustness on real Postgres", .enabled(if: postgresConfigured))
struct JobRunnerRobustnessTests {
    private func runner(_ f: JobFixture, storage: (any ObjectStore)? = nil, reportDeadline: Double) -> JobRunner {
        JobRunner(config: f.config, storage: storage ?? f.recorder, logger: JSONLogger(workerId: f.config.workerId, minimum: .error, fd: TestOutput.logFD),
                  observer: nil, reportDeadlineSeconds: reportDeadline)
    }

    /// A fixture whose `transcode-done` answers 503 to every call.
    private func busyDoneFunction() throws -> (JobFixture, LoopbackHTTPServer) {
        let f = try JobFixture()
        let server = try LoopbackHTTPServer { _ in (503, [], Array("busy".utf8)) }
        f.config.doneURL = server.url("/functions/v1/transcode-done")
        return (f, server)
    }

    @Test func readyReportGivesUpAtTheDeadlineAndLeavesOutputs() throws {
        let (f, server) = try busyDoneFunction()
        defer { server.stop() }
        let version = try f.submitSample()
        let job = try f.claim()
        let running = f.start(runner(f, reportDeadline: 1), job, control: JobControl())
        let outcome = try #require(running.wait(60), "the ready report did not end at its deadline")
        #expect(outcome == .leaseLost)
        #expect(server.requestCount >= 1)
        // Outputs stay in place (the report may have been recorded) and the lease is left to expire.
        #expect(try f.files.list(prefix: job.outputPrefix).count >= 3)
        let row = try f.row(version)
        #expect(row["status"] == "transcoding")
        #expect(row["lease_id"] == job.leaseId)
    }

    @Test func failureReportIsRecordedInSQLAfterTheDeadline() throws {
        let (f, server) = try busyDoneFunction()
        defer { server.stop() }
        let sample = try JobFixture.sample(JobFixture.sampleUSDZ)
        let version = try f.submit(usd: Array(sample.prefix(200)), json: nil)
        let job = try f.claim()
        let running = f.start(runner(f, reportDeadline: 1), job, control: JobControl())
        let outcome = try #require(running.wait(60), "the failure report did not end at its deadline")
        #expect(outcome == .failed(reason: "USDZ_PARSE_ERROR"))
        #expect(server.requestCount >= 1)
        let row = try f.row(version)
        #expect(row["status"] == "failed")
        #expect(row["last_error_code"] == "USDZ_PARSE_ERROR")
    }

    @Test func shutdownAfterCancelEndsAFailingReportPromptly() throws {
        let (f, server) = try busyDoneFunction()
        defer { server.stop() }
        let sample = try JobFixture.sample(JobFixture.sampleUSDZ)
        let version = try f.submit(usd: Array(sample.prefix(200)), json: nil)
        let job = try f.claim()
        let control = JobControl()
        let running = f.start(runner(f, reportDeadline: 600), job, control: control)
        let waitUntil = Date().addingTimeInterval(60)
        while server.requestCount == 0 && Date() < waitUntil { usleep(20_000) }
        #expect(server.requestCount >= 1)
        control.requestStop(.cancelled)
        control.requestStop(.shutdown)
        let outcome = try #require(running.wait(300), "the job ignored the shutdown request")
        #expect(outcome == .failed(reason: "USDZ_PARSE_ERROR"))
        #expect(try f.row(version)["status"] == "failed")
    }

    @Test func aStaleWorkerDoesNotReportAFailureForARescuedVersion() throws {
        let f = try JobFixture()
        let server = try LoopbackHTTPServer { _ in (200, [], Array("{\"ok\":true}".utf8)) }
        defer { server.stop() }
        f.config.doneURL = server.url("/functions/v1/transcode-done")
        let version = try f.submitSample(maxAttempts: 1)
        let job = try f.claim()
        let url = f.db.url
        // While the attempt downloads, another worker takes the version over; then storage fails.
        let storage = FailingGetStore(f.recorder) {
            guard let connection = try? PGConnection(url: url) else { return }
            defer { connection.close() }
            _ = try? connection.query("UPDATE transcode_private.room_versions SET lease_id = gen_random_uuid() WHERE id = $1::uuid", [version])
        }
        let outcome = runner(f, storage: storage, reportDeadline: 30).run(job, control: JobControl())
        #expect(outcome == .leaseLost)
        #expect(server.requestCount == 0)
        #expect(try f.row(version)["status"] == "transcoding")
    }
}

@Suite("Job runner robustness pieces")
struct JobRunnerRobustnessPieceTests {
    @Test func shutdownIsRecordedEvenAfterAnotherStopReason() {
        let control = JobControl()
        #expect(!control.shutdownRequested)
        control.requestStop(.cancelled)
        #expect(!control.shutdownRequested)
        control.requestStop(.shutdown)
        #expect(control.stopReason == .cancelled)
        #expect(control.shutdownRequested)

        let direct = JobControl()
        direct.requestStop(.shutdown)
        direct.requestStop(.leaseLost)
        #expect(direct.stopReason == .shutdown)
        #expect(direct.shutdownRequested)
    }

    @Test func asynchronousProgressNeverBlocksTheCallerAndKeepsOrder() {
        let sent = JobRunnerPieceTests.Sent()
        let gate = DispatchSemaphore(value: 0)
        let reporter = ProgressReporter(versionId: "v", roomId: "r", attempt: 1, maxAttempts: 5, minInterval: 0,
                                        asynchronous: true, send: { _, _, p in
                                            // A stalled transport: the first send waits until the gate
                                            // opens (a minute at most, so a reporter that sent on the
                                            // caller's thread ends the test instead of hanging it).
                                            if case .object(let o) = p, o["seq"] == .int(1) {
                                                _ = gate.wait(timeout: .now() + 60)
                                            }
                                            sent.add(p)
                                        })
        reporter.step("parsing", progress: 0.1)
        reporter.step("layering", progress: 0.4)
        reporter.flush()
        reporter.step("preview", progress: 0.7)
        reporter.queued(retryAt: "2030-01-01T00:00:00.000Z")
        // The caller got here with the gate still shut: had any call waited for the transport,
        // the first message would have gone out when the wait ran out, before these lines.
        #expect(reporter.sent == 4)
        #expect(sent.all.isEmpty, "no message went out while the transport was stalled")
        gate.signal()
        reporter.drain()
        #expect(sent.all.map { $0["seq"] } == [.int(1), .int(2), .int(3), .int(4)])
        #expect(sent.all.map { $0["step"] } == [.string("parsing"), .string("layering"), .string("preview"), .null])
    }
}
