import Foundation
import Testing
@testable import TranscodeWorker
@testable import PGQueue

/// The operators' side: reprocess, cancel, retry and status.
extension QueueLifecycleTests {
    // MARK: Reprocess

    @Test func reprocessKeepsTheVersionReadyUntilTheNewOutputsAreIn() throws {
        let (db, c, store) = try QueueKit.open()
        defer { db.drop() }
        let events = try QueueListener(db, channel: SchemaCatalog.eventsChannel)
        let room = QueueKit.newID()

        // Three versions made at manifest schema 1, one already at schema 2.
        var old: [String: (glb: String, manifest: String)] = [:]
        var atSchema1: [String] = []
        for _ in 0..<3 {
            let (id, job) = try QueueKit.makeReady(c, store, room: room, schema: 1)
            atSchema1.append(id)
            old[id] = (job.outputPrefix + "model.glb", job.outputPrefix + "layer_manifest.json")
        }
        let (current, _) = try QueueKit.makeReady(c, store, room: room, schema: 2)
        // Let the set-up's own `ready` events arrive, so that later counts are the reprocess's.
        _ = try events.wait { notes in (atSchema1 + [current]).allSatisfy { !QueueKit.events(notes, for: $0).isEmpty } }

        // Dry run: the list, and nothing changes.
        #expect(try store.markReprocess(belowSchema: 2, limit: 10, dryRun: true) == atSchema1.sorted())
        #expect(try QueueKit.value(c, "SELECT count(*) FROM transcode_private.room_versions WHERE reprocess_requested_at IS NOT NULL") == "0")
        #expect(try QueueKit.value(c, "SELECT count(*) FROM transcode_private.room_versions WHERE priority <> 0") == "0")
        #expect(try store.markReprocess(belowSchema: 2, limit: 2, dryRun: true).count == 2)

        // The limit is respected; later calls pick up the rest and skip what is already marked.
        let firstBatch = try store.markReprocess(belowSchema: 2, limit: 2)
        #expect(firstBatch.count == 2)
        #expect(Set(firstBatch).isSubset(of: Set(atSchema1)))
        let secondBatch = try store.markReprocess(belowSchema: 2, limit: 10)
        #expect(Set(firstBatch + secondBatch) == Set(atSchema1))
        #expect(secondBatch.count == 1)
        #expect(try store.markReprocess(belowSchema: 2, limit: 10).isEmpty)
        // The version already at schema 2 is only picked for a higher schema.
        #expect(try store.markReprocess(belowSchema: 3, limit: 10, dryRun: true) == [current])
        #expect(try store.markReprocess(versionId: atSchema1[0]) == false, "already marked")
        for id in atSchema1 {
            let r = try QueueKit.row(c, id)
            #expect(r["status"] == "ready" && r["glb_path"] == old[id]?.glb && r["reprocess_requested_at"] != nil)
            #expect(r["priority"] == "20" && r["attempt"] == "0")
        }
        #expect(try QueueKit.row(c, current)["reprocess_requested_at"] == nil)

        // Watch the marked rows from another connection for the rest of the test.
        let watcher = try ReadyWatcher(db, ids: atSchema1)
        defer { _ = watcher.stop() }

        // A fresh upload arriving after the marks still goes first.
        let fresh = try QueueKit.insert(c, room: room)
        let freshJob = try #require(try store.claim(workerId: "w-re", leaseSeconds: 30))
        #expect(freshJob.versionId == fresh)
        #expect(!freshJob.isReprocess && freshJob.status == "transcoding")
        #expect(try store.finalize(versionId: fresh, leaseId: freshJob.leaseId, status: "ready", outputs: QueueKit.outputs(freshJob)).ok)

        // Reprocess 1: succeeds, the paths and revision swap in one step.
        let j1 = try #require(try store.claim(workerId: "w-re", leaseSeconds: 30))
        #expect(Set(atSchema1).contains(j1.versionId))
        #expect(j1.isReprocess && j1.status == "ready" && j1.attempt == 1 && j1.outputRevision == 1)
        #expect(j1.outputPrefix.contains("/r2-"))
        let o1 = try #require(old[j1.versionId])
        var seen = try QueueKit.row(watcher.connection, j1.versionId)
        #expect(seen["status"] == "ready" && seen["glb_path"] == o1.glb && seen["lease_id"] == j1.leaseId)
        #expect(try store.heartbeat(j1, leaseSeconds: 30, phase: "layering") == .alive(cancelRequested: false))
        seen = try QueueKit.row(watcher.connection, j1.versionId)
        #expect(seen["status"] == "ready" && seen["glb_path"] == o1.glb && seen["manifest_path"] == o1.manifest)
        let done = try store.finalize(versionId: j1.versionId, leaseId: j1.leaseId, status: "ready", outputs: QueueKit.outputs(j1, schema: 2))
        #expect(done.ok && done.status == "ready" && done.outputRevision == 2)
        seen = try QueueKit.row(watcher.connection, j1.versionId)
        #expect(seen["status"] == "ready")
        #expect(seen["glb_path"] == j1.outputPrefix + "model.glb")
        #expect(seen["manifest_path"] == j1.outputPrefix + "layer_manifest.json")
        #expect(seen["output_revision"] == "2" && seen["manifest_schema_version"] == "2")
        #expect(seen["reprocess_requested_at"] == nil && seen["lease_id"] == nil)

        // Reprocess 2: fails; the version stays ready on its old outputs.
        let j2 = try #require(try store.claim(workerId: "w-re", leaseSeconds: 30))
        #expect(j2.isReprocess && j2.status == "ready")
        let o2 = try #require(old[j2.versionId])
        let failed = try store.finalize(versionId: j2.versionId, leaseId: j2.leaseId, status: "failed",
                                        error: QueueKit.failure("PARSE_FAILED", "new parser rejects it"))
        #expect(failed.ok && failed.status == "ready" && failed.outputRevision == 1)
        let r2 = try QueueKit.row(c, j2.versionId)
        #expect(r2["status"] == "ready" && r2["glb_path"] == o2.glb && r2["manifest_path"] == o2.manifest)
        #expect(r2["output_revision"] == "1" && r2["manifest_schema_version"] == "1")
        #expect(r2["reprocess_requested_at"] == nil && r2["lease_id"] == nil)
        #expect(r2["last_error_code"] == "PARSE_FAILED")
        // Its failure is not retried as a reprocess, and the failed replay is idempotent.
        #expect(try store.finalize(versionId: j2.versionId, leaseId: j2.leaseId, status: "failed",
                                   error: QueueKit.failure("PARSE_FAILED", "new parser rejects it")).idempotentReplay)

        // Reprocess 3: given back on shutdown, stays ready and claimable, then succeeds.
        let j3 = try #require(try store.claim(workerId: "w-re", leaseSeconds: 30))
        #expect(j3.isReprocess)
        #expect(try store.release(j3))
        let r3 = try QueueKit.row(c, j3.versionId)
        #expect(r3["status"] == "ready" && r3["reprocess_requested_at"] != nil && r3["attempt"] == "0")
        let j3b = try #require(try store.claim(workerId: "w-re", leaseSeconds: 30))
        #expect(j3b.versionId == j3.versionId && j3b.isReprocess && j3b.attempt == 1)
        #expect(try store.finalize(versionId: j3b.versionId, leaseId: j3b.leaseId, status: "ready",
                                   outputs: QueueKit.outputs(j3b, schema: 2)).ok)
        #expect(try store.claim(workerId: "w-re", leaseSeconds: 30) == nil)
        #expect(try store.isIdle())

        let polls = watcher.stop()
        #expect(polls > 0)
        #expect(watcher.anomalies.isEmpty, "a reprocessed version was seen not ready: \(watcher.anomalies.prefix(5))")

        let got = try events.wait(timeout: 5) { all in
            QueueKit.events(all, for: j1.versionId).count >= 1 && QueueKit.events(all, for: j2.versionId).count >= 1
                && QueueKit.events(all, for: j3.versionId).count >= 1
        }
        let e1 = QueueKit.events(got, for: j1.versionId)
        // A reprocess is not the app's story: the room hears `version_updated`, never `ready`.
        #expect(e1.map(\.event) == [SchemaCatalog.versionUpdatedEvent])
        #expect(e1.first?.payload["reprocess"] as? Bool == true)
        #expect((e1.first?.payload["output_revision"] as? NSNumber)?.intValue == 2)
        #expect(e1.first?.payload["glb_path"] == nil, "events carry no paths: clients read them from the row")
        let e2 = QueueKit.events(got, for: j2.versionId)
        #expect(e2.map(\.event) == ["reprocess_failed"], "a failed reprocess must not tell clients the room failed")
        #expect(e2.first?.payload["schema"] as? String == "transcode-failed/v1")
        #expect(QueueKit.events(got, for: j3.versionId).map(\.event) == [SchemaCatalog.versionUpdatedEvent])
        events.close()
    }

    // MARK: Cancel

    @Test func cancelFailsQueuedFlagsRunningAndWithdrawsReprocess() throws {
        let (db, c, store) = try QueueKit.open()
        defer { db.drop() }
        let events = try QueueListener(db, channel: SchemaCatalog.eventsChannel)
        let room = QueueKit.newID()

        // Ready with a pending reprocess (made first, so later claims are deterministic).
        let (rp, rpJob) = try QueueKit.makeReady(c, store, room: room, schema: 1)
        #expect(try store.markReprocess(versionId: rp))
        let rpCancel = try store.cancel(versionId: rp)
        #expect(rpCancel.ok && !rpCancel.running && rpCancel.status == "ready")
        var r = try QueueKit.row(c, rp)
        #expect(r["status"] == "ready" && r["reprocess_requested_at"] == nil)
        #expect(r["glb_path"] == rpJob.outputPrefix + "model.glb" && r["output_revision"] == "1")
        #expect(try store.claim(workerId: "w", leaseSeconds: 30) == nil, "the withdrawn reprocess is not claimable")
        let rpAgain = try store.cancel(versionId: rp)
        #expect(!rpAgain.ok && rpAgain.error == "INVALID_STATE" && rpAgain.status == "ready")

        // Queued: failed at once with reason CANCELLED.
        let q = try QueueKit.insert(c, room: room)
        let qc = try store.cancel(versionId: q)
        #expect(qc.ok && !qc.running && qc.status == "failed")
        r = try QueueKit.row(c, q)
        #expect(r["status"] == "failed" && r["last_error_code"] == "CANCELLED" && r["lease_id"] == nil)
        #expect(QueueKit.array(r["errors"]).last?["code"] as? String == "CANCELLED")
        #expect(try store.claim(workerId: "w", leaseSeconds: 30) == nil)
        let qAgain = try store.cancel(versionId: q)
        #expect(!qAgain.ok && qAgain.error == "INVALID_STATE" && qAgain.status == "failed")

        // Queued but backing off after a failed attempt (its worker died): also failed at once.
        let b = try QueueKit.insert(c, room: room)
        let bj = try #require(try store.claim(workerId: "w", leaseSeconds: 30))
        #expect(bj.versionId == b)
        try QueueKit.expireLease(c, b)
        #expect(try store.rescueExpired(baseDelaySeconds: 600) == [b])
        #expect(try store.cancel(versionId: b).status == "failed")
        #expect(try QueueKit.row(c, b)["status"] == "failed")

        // Still uploading: failed too.
        let u = try QueueKit.insert(c, room: room, status: "uploading")
        #expect(try store.cancel(versionId: u).status == "failed")

        // Running: only flagged; the worker stops at its next heartbeat and reports CANCELLED.
        let run = try QueueKit.insert(c, room: room)
        let job = try #require(try store.claim(workerId: "w", leaseSeconds: 30))
        #expect(job.versionId == run)
        let rc = try store.cancel(versionId: run)
        #expect(rc.ok && rc.running && rc.status == "transcoding")
        r = try QueueKit.row(c, run)
        #expect(r["status"] == "transcoding" && r["cancel_requested_at"] != nil && r["lease_id"] == job.leaseId)
        #expect(try store.cancel(versionId: run).running, "cancelling twice is harmless")
        #expect(try store.heartbeat(job, leaseSeconds: 30) == .alive(cancelRequested: true))
        let out = try store.finalize(versionId: run, leaseId: job.leaseId, status: "failed",
                                     error: QueueKit.failure("CANCELLED", "cancelled by an operator"))
        #expect(out.ok && out.status == "failed")
        r = try QueueKit.row(c, run)
        #expect(r["status"] == "failed" && r["last_error_code"] == "CANCELLED" && r["cancel_requested_at"] == nil)

        // Unknown and malformed ids.
        #expect(try store.cancel(versionId: QueueKit.newID()).error == "VERSION_NOT_FOUND")
        #expect(try store.cancel(versionId: "42").error == "VERSION_NOT_FOUND")

        let got = try events.wait { all in [q, b, u, run].allSatisfy { !QueueKit.events(all, for: $0).isEmpty } }
        for id in [q, b, u, run] {
            let mine = QueueKit.events(got, for: id)
            #expect(mine.map(\.event) == ["failed"], "version \(id)")
            #expect(mine.first?.payload["error"] as? String == "ROOM_TRANSCODE_FAILED")
            #expect(mine.first?.payload["reason"] as? String == "CANCELLED")
            #expect(mine.first?.payload["retryable"] as? Bool == false)
            #expect((mine.first?.payload["failure_count"] as? NSNumber)?.intValue == 1)
            #expect(mine.first?.payload["schema"] as? String == "transcode-failed/v1")
        }
        let tail = try events.collect(for: 0.3)
        #expect(QueueKit.events(got + tail, for: rp).filter { $0.event != "ready" }.isEmpty,
                "withdrawing a reprocess sends no failure")
        events.close()
    }

    /// Regression: the claim used to clear `cancel_requested_at`, so when a cancelled version's
    /// worker died before its next heartbeat, the rescuer re-queued it and the next claim wiped
    /// the request: the version was transcoded although an operator had cancelled it.
    @Test func cancelOfARunningVersionSurvivesItsWorkerDying() throws {
        let (db, c, store) = try QueueKit.open()
        defer { db.drop() }
        let v = try QueueKit.insert(c, room: QueueKit.newID(), maxAttempts: 5)
        _ = try #require(try store.claim(workerId: "w-doomed", leaseSeconds: 30))
        #expect(try store.cancel(versionId: v).running)
        try QueueKit.expireLease(c, v)
        #expect(try store.rescueExpired(baseDelaySeconds: 0) == [v])

        let r = try QueueKit.row(c, v)
        if r["status"] == "failed" {
            #expect(r["last_error_code"] == "CANCELLED")
        } else {
            let next = try #require(try store.claim(workerId: "w-next", leaseSeconds: 30))
            #expect(next.versionId == v)
            #expect(try store.heartbeat(next, leaseSeconds: 30) == .alive(cancelRequested: true),
                    "the operator's cancel was lost when the version was claimed again")
        }
    }

    // MARK: Operator retry

    @Test func retryFailedVersionsOneOrAllWithFilters() throws {
        let (db, c, store) = try QueueKit.open()
        defer { db.drop() }
        let roomA = QueueKit.newID(), roomB = QueueKit.newID()

        let (readyA, _) = try QueueKit.makeReady(c, store, room: roomA, schema: 1)
        // a1: failed by its worker; a2, aOld, b1: cancelled while queued.
        let a1 = try QueueKit.insert(c, room: roomA, maxAttempts: 2)
        let j = try #require(try store.claim(workerId: "w", leaseSeconds: 30))
        #expect(j.versionId == a1)
        try QueueKit.expireLease(c, a1)
        #expect(try store.rescueExpired(baseDelaySeconds: 0) == [a1])
        let j2 = try #require(try store.claim(workerId: "w", leaseSeconds: 30))
        #expect(try store.finalize(versionId: a1, leaseId: j2.leaseId, status: "failed", error: QueueKit.failure("TIMEOUT", "t")).ok)
        let a2 = try QueueKit.insert(c, room: roomA)
        let aOld = try QueueKit.insert(c, room: roomA)
        let b1 = try QueueKit.insert(c, room: roomB)
        for id in [a2, aOld, b1] { #expect(try store.cancel(versionId: id).status == "failed") }
        try c.query("UPDATE transcode_private.room_versions SET updated_at = now() - interval '2 days' WHERE id = $1::uuid", [aOld])
        let waitingA = try QueueKit.insert(c, room: roomA, runAfterSeconds: 3600)
        let since = try #require(try QueueKit.value(c, "SELECT (now() - interval '1 day')::text"))

        // One at a time: only failed versions.
        #expect(try !store.retryFailed(versionId: readyA))
        #expect(try !store.retryFailed(versionId: waitingA))
        #expect(try !store.retryFailed(versionId: QueueKit.newID()))
        #expect(try !store.retryFailed(versionId: "bogus"))

        // Dry run: the list only.
        #expect(try store.retryAllFailed(since: since, roomId: nil, dryRun: true) == [a1, a2, b1].sorted())
        #expect(try store.retryAllFailed(since: nil, roomId: nil, dryRun: true) == [a1, a2, aOld, b1].sorted())
        #expect(try store.retryAllFailed(since: nil, roomId: roomB, dryRun: true) == [b1])
        #expect(try QueueKit.value(c, "SELECT count(*) FROM transcode_private.room_versions WHERE status = 'failed'") == "4")

        // By room.
        #expect(try store.retryAllFailed(since: nil, roomId: roomB) == [b1])
        var r = try QueueKit.row(c, b1)
        #expect(r["status"] == "queued" && r["priority"] == "10" && r["attempt"] == "0" && r["last_error_code"] == nil)
        #expect(try QueueKit.value(c, "SELECT enqueued_at > now() - interval '1 minute' AND run_after <= now() FROM transcode_private.room_versions WHERE id = $1::uuid", [b1]) == "t")

        // One.
        #expect(try store.retryFailed(versionId: a1))
        r = try QueueKit.row(c, a1)
        #expect(r["status"] == "queued" && r["priority"] == "10" && r["attempt"] == "0")
        #expect(r["last_error_code"] == nil && r["last_error"] == nil)
        #expect(QueueKit.array(r["errors"]).count == 2, "the history is kept")
        #expect(try !store.retryFailed(versionId: a1), "already queued")

        // Since a day ago, room A: a2 only (aOld is older, a1 is no longer failed).
        #expect(try store.retryAllFailed(since: since, roomId: roomA) == [a2])
        #expect(try QueueKit.row(c, aOld)["status"] == "failed")
        #expect(try store.retryAllFailed(since: nil, roomId: nil, dryRun: true) == [aOld])
        #expect(try QueueKit.row(c, readyA)["status"] == "ready")

        // Retried versions run after fresh uploads (priority 10 > 0), and with fresh attempts.
        let fresh = try QueueKit.insert(c, room: roomB)
        let firstClaim = try #require(try store.claim(workerId: "w", leaseSeconds: 30))
        #expect(firstClaim.versionId == fresh)
        var retried: Set<String> = []
        while let next = try store.claim(workerId: "w", leaseSeconds: 30) {
            #expect(next.attempt == 1)
            retried.insert(next.versionId)
        }
        #expect(retried == [a1, a2, b1])
    }

    // MARK: Status

    @Test func statusCountsWaitingInFlightAgeAndFailures() throws {
        let (db, c, store) = try QueueKit.open()
        defer { db.drop() }
        let room = QueueKit.newID()

        let empty = try store.status()
        #expect(empty.counts.isEmpty && empty.waiting == 0 && empty.inFlight == 0 && empty.oldestQueuedSeconds == nil)
        #expect(empty.recentFailures.isEmpty && empty.leases.isEmpty)

        _ = try QueueKit.makeReady(c, store, room: room, schema: 1)
        let (r2, _) = try QueueKit.makeReady(c, store, room: room, schema: 1)
        #expect(try store.markReprocess(versionId: r2))
        for _ in 0..<2 { _ = try QueueKit.makeFailed(c, store, room: room, reason: "PARSE_FAILED") }
        let old = try QueueKit.makeFailed(c, store, room: room, reason: "PARSE_FAILED")
        try c.query("UPDATE transcode_private.room_versions SET updated_at = now() - interval '48 hours' WHERE id = $1::uuid", [old])
        let cancelled = try QueueKit.insert(c, room: room)
        #expect(try store.cancel(versionId: cancelled).ok)
        let t1 = try QueueKit.insert(c, room: room)
        #expect(try store.claim(workerId: "w-a", leaseSeconds: 60)?.versionId == t1)
        let t2 = try QueueKit.insert(c, room: room)
        #expect(try store.claim(workerId: "w-b", leaseSeconds: 60)?.versionId == t2)
        try QueueKit.expireLease(c, t2)
        _ = try QueueKit.insert(c, room: room, status: "uploading")
        let q1 = try QueueKit.insert(c, room: room)
        try c.query("UPDATE transcode_private.room_versions SET enqueued_at = now() - interval '120 seconds' WHERE id = $1::uuid", [q1])
        _ = try QueueKit.insert(c, room: room)
        let q3 = try QueueKit.insert(c, room: room, runAfterSeconds: 600)
        try c.query("UPDATE transcode_private.room_versions SET last_error_code = 'STORAGE_UNAVAILABLE', attempt = 1 WHERE id = $1::uuid", [q3])

        let s = try store.status()
        #expect(s.counts == ["uploading": 1, "queued": 3, "transcoding": 2, "ready": 2, "failed": 4])
        #expect(s.waiting == 4, "three queued (one backing off) and one reprocess")
        #expect(s.reprocessWaiting == 1)
        #expect(s.inFlight == 2)
        #expect(s.expiredLeases == 1)
        let oldest = try #require(s.oldestQueuedSeconds)
        #expect(oldest >= 119 && oldest < 180)
        #expect(Set(s.leases.map(\.worker)) == ["w-a", "w-b"])
        #expect(Set(s.leases.map(\.versionId)) == [t1, t2])
        let expired = try #require(s.leases.first { $0.versionId == t2 })
        #expect(expired.leaseRemainingSeconds < 0)
        let live = try #require(s.leases.first { $0.versionId == t1 })
        #expect(live.leaseRemainingSeconds > 30 && live.attempt == 1 && live.phase == "parsing" && live.roomId == room)
        #expect(s.failureWindowHours == 24)
        #expect(s.recentFailures.map(\.reason) == ["PARSE_FAILED", "CANCELLED", "STORAGE_UNAVAILABLE"])
        #expect(s.recentFailures.map(\.count) == [2, 1, 1])
        #expect(s.recentFailures.allSatisfy { !$0.lastAt.isEmpty })

        let wide = try store.status(failureWindowHours: 72)
        #expect(wide.recentFailures.first?.reason == "PARSE_FAILED" && wide.recentFailures.first?.count == 3)
        #expect(wide.failureWindowHours == 72)
        #expect(try !store.isIdle())
    }
}
