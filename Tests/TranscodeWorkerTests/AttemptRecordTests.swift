import Foundation
import Testing
@testable import PGQueue
@testable import WorkerRuntime
@testable import WorkerCore

/// What the worker leaves for the console (migration 12): one `transcode_attempts` row per
/// finished attempt with its phase timings, and the terminal events in `transcode_event_log`.
@Suite("Attempt records and the event log", .enabled(if: postgresConfigured), .serialized)
struct AttemptRecordTests {
    static func attempts(_ f: JobFixture, _ version: String) throws -> [PGRow] {
        try f.store.connection.query("""
            SELECT attempt, lease_id::text AS lease_id, worker, outcome, reason, reprocess, timings_ms::text AS timings,
                   finished_at >= started_at AS ordered FROM transcode_attempts WHERE version_id = $1::uuid ORDER BY id
            """, [version])
    }

    @Test func aReadyAttemptIsRecordedWithItsPhasesAndItsEvent() throws {
        let f = try JobFixture()
        let version = try f.submitSample()
        let job = try f.claim()
        #expect(f.runner().run(job, control: JobControl()) == .ready(outputPrefix: job.outputPrefix))
        let rows = try Self.attempts(f, version)
        #expect(rows.count == 1)
        let row = try #require(rows.first)
        #expect(row["outcome"] == "ready")
        #expect(row["reason"] == nil)
        #expect(row["worker"] == f.config.workerId)
        #expect(row["lease_id"] == job.leaseId)
        #expect(row.int("attempt") == 1)
        #expect(row.bool("reprocess") == false)
        #expect(row.bool("ordered") == true)
        let timings = try #require(try JSONSerialization.jsonObject(with: Data((row["timings"] ?? "").utf8)) as? [String: Int])
        for phase in ["download", "parsing", "layering", "preview", "upload", "total"] {
            #expect(timings[phase] != nil, "no \(phase) in \(timings)")
        }
        #expect(timings["total"]! >= timings["preview"]!)
        let events = try f.store.connection.query(
            "SELECT event, payload->>'version_id' AS v FROM transcode_event_log WHERE version_id = $1::uuid", [version])
        #expect(events.map { $0["event"] ?? "" } == ["ready"])
        #expect(events.first?["v"] == version)
        // The report is stored beside the outputs, as plain text (never rendered by a storage host).
        let report = try #require(f.recorder.puts.first { $0.key == job.outputPrefix + "report.html" })
        #expect(report.contentType == "text/plain; charset=utf-8")
        #expect(String(decoding: try f.files.get(job.outputPrefix + "report.html", maxBytes: 1 << 26), as: UTF8.self)
            .hasPrefix("<!DOCTYPE html>"))
        #expect(f.recorder.puts.last?.key == job.outputPrefix + "layer_manifest.json")
        // The console reads them back.
        #expect(try f.store.attempts(versionId: version).first?["outcome"] == "ready")
        #expect(try f.store.events(versionId: version).first?["event"] == "ready")
        #expect(try f.store.throughput()?.int("ready_hour") == 1)
    }

    @Test func withTheReportOffNoReportIsStored() throws {
        let f = try JobFixture()
        f.config.job.report = false
        _ = try f.submitSample()
        let job = try f.claim()
        #expect(f.runner().run(job, control: JobControl()) == .ready(outputPrefix: job.outputPrefix))
        #expect(!(try f.files.list(prefix: job.outputPrefix)).contains(job.outputPrefix + "report.html"))
        #expect(WorkerConfig(environment: ["TRANSCODE_JOB_REPORT": "off"]).job.report == false)
        #expect(throws: UsageError.self) { try WorkerConfig(environment: ["TRANSCODE_JOB_REPORT": "maybe"]).validate() }
    }

    @Test func aFailedAttemptIsRecordedWithItsReason() throws {
        let f = try JobFixture()
        let sample = try JobFixture.sample(JobFixture.sampleUSDZ)
        let version = try f.submit(usd: Array(sample.prefix(sample.count / 2)), json: nil)
        let job = try f.claim()
        #expect(f.runner().run(job, control: JobControl()) == .failed(reason: "USDZ_PARSE_ERROR"))
        let rows = try Self.attempts(f, version)
        #expect(rows.map { $0["outcome"] ?? "" } == ["failed"])
        #expect(rows.first?["reason"] == "USDZ_PARSE_ERROR")
        let events = try f.store.events(versionId: version)
        #expect(events.map { $0["event"] ?? "" } == ["failed"])
        #expect(events.first?["payload"]?.contains("\"reason\": \"USDZ_PARSE_ERROR\"") == true)
        #expect(try f.store.throughput()?.int("failed_day") == 1)
    }
}
