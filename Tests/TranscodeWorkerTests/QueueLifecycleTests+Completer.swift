import Foundation
import Testing
@testable import TranscodeWorker
@testable import PGQueue

/// The completer's side: retries with backoff, and the fenced, idempotent finalize.
extension QueueLifecycleTests {
    // MARK: Retries

    /// Regression: `retryLater` passes untyped text parameters, and one of them also goes into
    /// `jsonb_build_object` (`VARIADIC "any"`); without `::text` casts Postgres refused the whole
    /// statement with `could not determine data type of parameter $3` (SQLSTATE 42P08).
    @Test func retriesBackOffThenTheLastAttemptFailsWithAnEvent() throws {
        let (db, c, store) = try QueueKit.open()
        defer { db.drop() }
        let events = try QueueListener(db, channel: SchemaCatalog.eventsChannel)
        let room = QueueKit.newID()
        let v = try QueueKit.insert(c, room: room, maxAttempts: 3)
        let base = 2.0

        for attempt in 1...2 {
            let job = try #require(try store.claim(workerId: "w-retry", leaseSeconds: 30))
            #expect(job.versionId == v)
            #expect(job.attempt == attempt)
            #expect(job.maxAttempts == 3)
            #expect(try store.retryLater(job, code: "STORAGE_UNAVAILABLE", message: "storage answered 503 (\(attempt))",
                                         baseDelaySeconds: base, maxDelaySeconds: 600) != nil)
            let r = try QueueKit.row(c, v)
            #expect(r["status"] == "queued")
            #expect(r["lease_id"] == nil && r["locked_by"] == nil && r["lease_expires_at"] == nil)
            #expect(r["transcode_phase"] == nil)
            #expect(r["attempt"] == String(attempt))
            #expect(r["last_error_code"] == "STORAGE_UNAVAILABLE")
            // run_after and updated_at come from the same now(): the difference is the delay.
            let delay = try #require(Double(try QueueKit.value(c, "SELECT extract(epoch FROM run_after - updated_at) FROM transcode_private.room_versions WHERE id = $1::uuid", [v]) ?? ""))
            let nominal = base * pow(3, Double(attempt - 1))
            #expect(delay >= nominal * 0.9 - 0.001 && delay <= nominal * 1.1 + 0.001, "attempt \(attempt): delay \(delay) s, nominal \(nominal) s")
            // Backing off: not claimable yet.
            #expect(try store.claim(workerId: "w-retry", leaseSeconds: 30) == nil)
            try c.query("UPDATE transcode_private.room_versions SET run_after = now() WHERE id = $1::uuid", [v])
        }

        let last = try #require(try store.claim(workerId: "w-retry", leaseSeconds: 30))
        #expect(last.attempt == 3)
        #expect(try store.retryLater(last, code: "STORAGE_UNAVAILABLE", message: "storage answered 503 (3)",
                                     baseDelaySeconds: base) == nil)
        // Attempts used up: the lease is still this worker's, so it can finalize.
        var r = try QueueKit.row(c, v)
        #expect(r["status"] == "transcoding")
        #expect(r["lease_id"] == last.leaseId)
        let failed = try store.finalize(versionId: v, leaseId: last.leaseId, status: "failed",
                                        error: QueueKit.failure("STORAGE_UNAVAILABLE", "storage answered 503 (3)", retryable: true))
        #expect(failed.ok && failed.status == "failed" && !failed.idempotentReplay)
        r = try QueueKit.row(c, v)
        #expect(r["status"] == "failed")
        #expect(r["lease_id"] == nil)
        #expect(r["last_error_code"] == "STORAGE_UNAVAILABLE")
        #expect(r["last_error"] == "storage answered 503 (3)")
        let errors = QueueKit.array(r["errors"])
        #expect(errors.count == 3)
        #expect(errors.map { ($0["attempt"] as? NSNumber)?.intValue } == [1, 2, 3])
        #expect(errors.map { $0["code"] as? String } == Array(repeating: "STORAGE_UNAVAILABLE", count: 3))
        #expect(errors.map { $0["message"] as? String } == (1...3).map { "storage answered 503 (\($0))" })
        #expect(errors.allSatisfy { ($0["worker"] as? String) == "w-retry" })
        #expect(errors.last?["final"] as? Bool == true)
        #expect(errors.dropLast().allSatisfy { $0["final"] == nil })

        let got = try events.wait { QueueKit.events($0, for: v).contains { $0.event == "failed" } }
        let mine = QueueKit.events(got, for: v)
        #expect(mine.map(\.event) == ["failed"], "retries send no event; the final failure sends one")
        let e = try #require(mine.first)
        #expect(e.topic == "room:\(room)")
        #expect(e.payload["schema"] as? String == "transcode-failed/v1")
        #expect(e.payload["version_id"] as? String == v)
        #expect(e.payload["room_id"] as? String == room)
        #expect((e.payload["attempt"] as? NSNumber)?.intValue == 3)
        #expect(e.payload["at"] is String)
        // As the app reads it: `error` is the string code, the reason and flags beside it.
        #expect(e.payload["error"] as? String == "ROOM_TRANSCODE_FAILED")
        #expect(e.payload["reason"] as? String == "STORAGE_UNAVAILABLE")
        #expect(e.payload["retryable"] as? Bool == true)
        #expect((e.payload["failure_count"] as? NSNumber)?.intValue == 1)
        #expect(e.payload["status"] as? String == "failed")
        let later = try events.collect(for: 0.3)
        #expect(QueueKit.events(later, for: v).isEmpty, "no second event")
        #expect(try store.claim(workerId: "w-retry", leaseSeconds: 30) == nil)
        events.close()
    }

    @Test func backoffIsCappedAndTheWorkerLimitEndsRetriesEarly() throws {
        let (db, c, store) = try QueueKit.open()
        defer { db.drop() }
        let v = try QueueKit.insert(c, room: QueueKit.newID(), maxAttempts: 5)

        let first = try #require(try store.claim(workerId: "w", leaseSeconds: 30))
        #expect(try store.retryLater(first, code: "TIMEOUT", message: "t", baseDelaySeconds: 0) != nil)
        // A zero base retries at once.
        let second = try #require(try store.claim(workerId: "w", leaseSeconds: 30))
        #expect(second.attempt == 2)
        // base·3 = 30 s, capped at 4 s (±10 %).
        #expect(try store.retryLater(second, code: "TIMEOUT", message: "t", baseDelaySeconds: 10, maxDelaySeconds: 4) != nil)
        let delay = try #require(Double(try QueueKit.value(c, "SELECT extract(epoch FROM run_after - updated_at) FROM transcode_private.room_versions WHERE id = $1::uuid", [v]) ?? ""))
        #expect(delay >= 3.6 - 0.001 && delay <= 4.4 + 0.001)
        try c.query("UPDATE transcode_private.room_versions SET run_after = now() WHERE id = $1::uuid", [v])

        // The worker allows 3 attempts although the row allows 5.
        let third = try #require(try store.claim(workerId: "w", leaseSeconds: 30))
        #expect(third.attempt == 3)
        #expect(try store.retryLater(third, code: "TIMEOUT", message: "t", maxAttempts: 3) == nil)
        let r = try QueueKit.row(c, v)
        #expect(r["lease_id"] == third.leaseId)
        #expect(r["status"] == "transcoding")
        #expect(QueueKit.array(r["errors"]).count == 2)
        // A stale lease cannot retry.
        #expect(try store.retryLater(second, code: "TIMEOUT", message: "t") == nil)
        #expect(try QueueKit.row(c, v)["lease_id"] == third.leaseId)
    }

    // MARK: Finalize

    @Test func finalizeIsFencedIdempotentAndSendsOneEvent() throws {
        let (db, c, store) = try QueueKit.open()
        defer { db.drop() }
        let events = try QueueListener(db, channel: SchemaCatalog.eventsChannel)
        let room = QueueKit.newID()
        let v = try QueueKit.insert(c, room: room)

        let job = try #require(try store.claim(workerId: "w-fin", leaseSeconds: 30))
        #expect(job.outputRevision == 0)
        #expect(job.outputPrefix == "rooms/\(room)/versions/\(v)/r1-\(job.leaseId.prefix(8))/")
        let outputs = QueueKit.outputs(job, schema: 3)
        let glb = job.outputPrefix + "model.glb"

        #expect(try store.finalize(versionId: v, leaseId: job.leaseId, status: "done", outputs: outputs).error == "INVALID_STATUS")
        #expect(try store.finalize(versionId: QueueKit.newID(), leaseId: job.leaseId, status: "ready", outputs: outputs).error == "VERSION_NOT_FOUND")
        #expect(try QueueKit.row(c, v)["status"] == "transcoding")

        let done = try store.finalize(versionId: v, leaseId: job.leaseId, status: "ready", outputs: outputs)
        #expect(done.ok && done.status == "ready" && done.outputRevision == 1 && !done.idempotentReplay && done.error == nil)
        var r = try QueueKit.row(c, v)
        #expect(r["status"] == "ready")
        #expect(r["glb_path"] == glb)
        #expect(r["manifest_path"] == job.outputPrefix + "layer_manifest.json")
        #expect(r["thumbnail_path"] == job.outputPrefix + "thumb_256.webp")
        #expect(r["output_revision"] == "1")
        #expect(r["manifest_schema_version"] == "3")
        #expect(r["transcoded_at"] != nil)
        #expect(r["lease_id"] == nil && r["locked_by"] == nil && r["lease_expires_at"] == nil && r["transcode_phase"] == nil)
        let thumbs = QueueKit.array(r["thumbnail_paths"])
        #expect(thumbs.count == 1)

        // The same call again (the response was lost): 200, nothing changes, no second event.
        let replay = try store.finalize(versionId: v, leaseId: job.leaseId, status: "ready", outputs: outputs)
        #expect(replay.ok && replay.idempotentReplay && replay.status == "ready" && replay.outputRevision == 1)
        // A stale worker with its own outputs: refused.
        var staleOutputs = QueueKit.outputs(job)
        if case .object(var o) = staleOutputs {
            o["glb_path"] = .string("rooms/\(room)/versions/\(v)/r1-deadbeef/model.glb")
            staleOutputs = .object(o)
        }
        let stale = try store.finalize(versionId: v, leaseId: QueueKit.newID(), status: "ready", outputs: staleOutputs)
        #expect(!stale.ok && stale.error == "LEASE_LOST")
        let staleFailed = try store.finalize(versionId: v, leaseId: QueueKit.newID(), status: "failed",
                                             error: QueueKit.failure("PARSE_FAILED", "x"))
        #expect(!staleFailed.ok && staleFailed.error == "LEASE_LOST")
        r = try QueueKit.row(c, v)
        #expect(r["status"] == "ready" && r["glb_path"] == glb && r["output_revision"] == "1" && r["last_error_code"] == nil)

        let got = try events.wait { QueueKit.events($0, for: v).contains { $0.event == "ready" } }
        let later = try events.collect(for: 0.4)
        let all = QueueKit.events(got + later, for: v)
        #expect(all.map(\.event) == ["ready"], "exactly one event for one successful finalize")
        let e = try #require(all.first)
        #expect(e.topic == "room:\(room)")
        #expect(e.payload["schema"] as? String == "transcode-ready/v1")
        #expect(e.payload["version_id"] as? String == v)
        #expect(e.payload["room_id"] as? String == room)
        #expect(e.payload["glb_path"] == nil && e.payload["manifest_path"] == nil, "events carry no paths")
        #expect(e.payload["status"] as? String == "ready")
        #expect((e.payload["seq"] as? NSNumber)?.int64Value == job.eventSeq + 1, "the terminal event follows the attempt's block")
        #expect((e.payload["output_revision"] as? NSNumber)?.intValue == 1)
        #expect((e.payload["manifest_schema_version"] as? NSNumber)?.intValue == 3)
        #expect(e.payload["reprocess"] as? Bool == false)
        #expect(e.payload["thumbnails"] == nil)

        // Failed, then the failed call replayed.
        let w = try QueueKit.insert(c, room: room)
        let job2 = try #require(try store.claim(workerId: "w-fin", leaseSeconds: 30))
        #expect(job2.versionId == w)
        let err = QueueKit.failure("PARSE_FAILED", "not a USDZ package", phase: "parsing")
        let failed = try store.finalize(versionId: w, leaseId: job2.leaseId, status: "failed", error: err)
        #expect(failed.ok && failed.status == "failed" && !failed.idempotentReplay)
        let failedAgain = try store.finalize(versionId: w, leaseId: job2.leaseId, status: "failed", error: err)
        #expect(failedAgain.ok && failedAgain.idempotentReplay && failedAgain.status == "failed")
        #expect(try store.finalize(versionId: w, leaseId: QueueKit.newID(), status: "failed", error: err).error == "LEASE_LOST")
        // A ready report for a version that failed: refused.
        #expect(try store.finalize(versionId: w, leaseId: job2.leaseId, status: "ready", outputs: QueueKit.outputs(job2)).error == "LEASE_LOST")
        let rw = try QueueKit.row(c, w)
        #expect(rw["status"] == "failed" && rw["last_error_code"] == "PARSE_FAILED" && rw["output_revision"] == "0")
        #expect(QueueKit.array(rw["errors"]).count == 1)
        #expect(QueueKit.array(rw["errors"]).first?["phase"] as? String == "parsing")
        let wEvents = QueueKit.events(try events.collect(for: 0.4), for: w)
        #expect(wEvents.map(\.event) == ["failed"])
        events.close()
    }
}
