import Foundation
import Testing
@testable import TranscodeWorker
@testable import JSONCore
@testable import PGQueue
@testable import WorkerRuntime
@testable import WorkerCore

/// `status`, `show` and `watch` on real Postgres (the suite's other commands are in
/// `OperatorCommandTests.swift`).
extension OperatorCommandTests {
    @Test func statusAndShowPrintTextAndJSON() throws {
        let db = try TestDatabase()
        defer { db.drop() }
        let (store, ids) = try seeded(db, count: 3)
        try makeReady(store, schema: 1)  // all three ready
        try store.submit(versionId: UUID().uuidString.lowercased(), roomId: UUID().uuidString.lowercased(), roomName: nil,
                         usdzKey: "a.usdz", jsonKey: nil)
        let running = try #require(try store.claim(workerId: "w-status", leaseSeconds: 60))
        let failed = try store.finalize(versionId: running.versionId, leaseId: running.leaseId, status: "failed",
                                        error: .object(["reason": .string("SOURCE_DOWNLOAD_FAILED"),
                                                        "message": .string("connection reset"), "phase": .string("parsing")]))
        #expect(failed.ok)

        #expect(tool(db, "status") == ExitStatus.ok)
        #expect(tool(db, "status", "--failure-window-hours", "48") == ExitStatus.ok)
        #expect(tool(db, "show", ids[0]) == ExitStatus.ok)
        #expect(tool(db, "show", running.versionId) == ExitStatus.ok)

        let status = CapturedLines()
        var snapshot = try StatusCommand(["--json", "--database-url", db.url])
        snapshot.options.emit = status.append
        #expect(try snapshot.run() == ExitStatus.ok)
        let s = try status.object()
        let counts = try #require(s["counts"] as? [String: Int])
        #expect(counts == ["uploading": 0, "queued": 0, "transcoding": 0, "ready": 3, "failed": 1])
        #expect(s["waiting"] as? Int == 0)
        let failures = try #require(s["recent_failures"] as? [[String: Any]])
        #expect(failures.first?["reason"] as? String == "SOURCE_DOWNLOAD_FAILED")

        let text = CapturedLines()
        var plain = try StatusCommand(["--database-url", db.url])
        plain.options.emit = text.append
        #expect(try plain.run() == ExitStatus.ok)
        #expect(text.all.contains { $0.contains("SOURCE_DOWNLOAD_FAILED") })

        let shown = CapturedLines()
        var show = try ShowCommand([running.versionId, "--json", "--database-url", db.url])
        show.options.emit = shown.append
        #expect(try show.run() == ExitStatus.ok)
        let row = try shown.object()
        #expect(row["id"] as? String == running.versionId)
        #expect(row["attempt"] as? Int == 1)
        #expect(row["status"] as? String == "failed")
        let errors = try #require(row["errors"] as? [[String: Any]])
        #expect(errors.count == 1)
        #expect(errors.first?["code"] as? String == "SOURCE_DOWNLOAD_FAILED")
        #expect((row["thumbnail_paths"] as? [Any])?.isEmpty == true)
        #expect((row["created_at"] as? String)?.contains("T") == true)

        let readyShown = CapturedLines()
        var showReady = try ShowCommand([ids[0], "--json", "--database-url", db.url])
        showReady.options.emit = readyShown.append
        #expect(try showReady.run() == ExitStatus.ok)
        let ready = try readyShown.object()
        #expect((ready["glb_path"] as? String)?.hasSuffix("/model.glb") == true)
        #expect(ready["manifest_schema_version"] as? Int == 1)
        let thumbs = try #require(ready["thumbnail_paths"] as? [[String: Any]])
        #expect(thumbs.first?["kind"] as? String == "hero")
    }

    @Test func watchPrintsEventsAndStopsWhenIdle() throws {
        let db = try TestDatabase()
        defer { db.drop() }
        let (store, ids) = try seeded(db, count: 1)

        // Idle right away (nothing queued after the cancel below), but only after the first
        // check interval; the timeout is a backstop.
        let lines = CapturedLines()
        let url = db.url
        let finished = DispatchSemaphore(value: 0)
        let result = CapturedLines()
        Thread.detachNewThread {
            do {
                var watch = try WatchCommand(["--until-idle", "--timeout", "20", "--database-url", url])
                watch.options.emit = lines.append
                result.append(String(try watch.run()))
            } catch {
                result.append("error \(error)")
            }
            finished.signal()
        }
        // Give the watcher time to LISTEN, then send an event by cancelling the only version.
        Thread.sleep(forTimeInterval: 1.0)
        #expect(try store.cancel(versionId: ids[0]).ok)
        #expect(finished.wait(timeout: .now() + 30) == .success)
        #expect(result.all == ["0"])
        let events = lines.all.filter { $0.contains(" failed ") }
        #expect(events.count == 1)
        #expect(events.first?.contains("room:") == true)
        #expect(events.first?.contains("CANCELLED") == true)
        #expect(lines.all.last?.contains("idle") == true)

        // --timeout alone returns 0 too; --json prints the raw event objects.
        let raw = CapturedLines()
        var timed = try WatchCommand(["--timeout", "0.3", "--json", "--database-url", db.url])
        timed.options.emit = raw.append
        #expect(try timed.run() == ExitStatus.ok)
        #expect(raw.all.isEmpty)
    }

    @Test func watchSummarizesEachEventKind() {
        let time = "12:00:00.000"
        func line(_ json: String) -> String {
            WatchCommand.line(PGNotification(channel: SchemaCatalog.eventsChannel, payload: json, senderPID: 1), at: time)
        }
        #expect(line(#"{"topic":"room:r1","event":"transcode_progress","payload":{"phase":"transcoding","step":"layering","seq":3,"attempt":1,"max_attempts":5}}"#)
                == "12:00:00.000 room:r1 transcode_progress layering seq 3 attempt 1/5")
        #expect(line(#"{"topic":"room:r1","event":"ready","payload":{"output_revision":1,"reprocess":false,"seq":1001}}"#)
                == "12:00:00.000 room:r1 ready revision 1 seq 1001")
        #expect(line(#"{"topic":"room:r1","event":"failed","payload":{"error":"ROOM_TRANSCODE_FAILED","reason":"USDZ_PARSE_ERROR","message":"The 3D scan file could not be read.","failure_count":2,"attempt":1}}"#)
                == "12:00:00.000 room:r1 failed USDZ_PARSE_ERROR: The 3D scan file could not be read. (failure 2) (attempt 1)")
        #expect(line(#"{"topic":"room:r1","event":"failed","payload":{"error":{"code":"ROOM_TRANSCODE_FAILED","reason":"USDZ_PARSE_ERROR","message":"bad"},"attempt":2}}"#)
                == "12:00:00.000 room:r1 failed USDZ_PARSE_ERROR: bad (attempt 2)")
        #expect(line("not json") == "12:00:00.000 transcode_events not json")
    }
}
