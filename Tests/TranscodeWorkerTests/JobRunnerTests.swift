import Foundation
import Testing
@testable import TranscodeWorker
import Manifest
import WorkerCore
@testable import JSONCore
@testable import ObjectStorage
@testable import PGQueue
@testable import WorkerRuntime
import TestSupport

#if canImport(Glibc)
import Glibc
@testable import WorkerCore
#endif

@Suite("Job runner on real Postgres, storage and child processes", .enabled(if: postgresConfigured))
struct JobRunnerTests {
    @Test func directModeSuccessPublishesOutputsAndEvents() throws {
        let f = try JobFixture()
        let version = try f.submitSample()
        let listener = try JobEventListener(f.db)
        let job = try f.claim()
        #expect(job.versionId == version)

        let outcome = f.runner().run(job, control: JobControl())
        #expect(outcome == .ready(outputPrefix: job.outputPrefix))

        let row = try f.row(version)
        #expect(row["status"] == "ready")
        #expect(row["lease_id"] == nil)
        #expect(row["glb_path"] == job.outputPrefix + "model.glb")
        #expect(row["manifest_path"] == job.outputPrefix + "layer_manifest.json")
        #expect(row["thumbnail_path"] == job.outputPrefix + "thumbs/hero.webp")
        #expect(row.int("manifest_schema_version") == ManifestBuilder.schemaVersion)
        #expect(row.int("output_revision") == 1)
        let thumbs = try JSONSerialization.jsonObject(with: Data((row["thumbnail_paths"] ?? "[]").utf8)) as? [[String: Any]] ?? []
        #expect(thumbs.contains { $0["kind"] as? String == "hero" && ($0["width"] as? NSNumber)?.intValue == 1320 })
        // Every preview is listed with its size: the feed card, the small card and the carousel.
        #expect(thumbs.contains { $0["kind"] as? String == "card" && ($0["width"] as? NSNumber)?.intValue == 1320 })
        #expect(thumbs.contains { $0["kind"] as? String == "card_small" && ($0["width"] as? NSNumber)?.intValue == 660 })
        #expect(thumbs.filter { $0["kind"] as? String == "orbit" && ($0["height"] as? NSNumber)?.intValue == 990 }.count == 8)
        #expect(thumbs.allSatisfy { ($0["path"] as? String)?.hasPrefix(job.outputPrefix + "thumbs/") == true })

        // Every output is in storage under the attempt's prefix; the manifest was written last.
        let keys = try f.files.list(prefix: job.outputPrefix)
        for name in ["model.glb", "layer_manifest.json", "thumbs/hero.webp", "thumbs/card.webp", "thumbs/plan.webp"] {
            #expect(keys.contains(job.outputPrefix + name), "missing \(name)")
        }
        let puts = f.recorder.puts
        #expect(puts.last?.key == job.outputPrefix + "layer_manifest.json")
        #expect(puts.first { $0.key.hasSuffix("model.glb") }?.contentType == "model/gltf-binary")
        #expect(puts.filter { $0.key.hasSuffix(".webp") }.allSatisfy { $0.contentType == "image/webp" })
        #expect(puts.last?.contentType == "application/json")
        let manifest = try JSONSerialization.jsonObject(with: Data(try f.files.get(job.outputPrefix + "layer_manifest.json",
                                                                                   maxBytes: 1 << 24))) as? [String: Any]
        #expect(manifest?["version_id"] as? String == version)
        #expect(manifest?["room_id"] as? String == f.roomId)

        // The ready event, and progress events with increasing seq for each step.
        try listener.collect { events in events.contains { $0.event == "ready" } }
        let ready = try #require(listener.events.first { $0.event == "ready" })
        #expect(ready.payload["version_id"] as? String == version)
        #expect(ready.payload["glb_path"] == nil, "events carry no paths: clients read them from the row")
        let progress = listener.events.filter { $0.event == "transcode_progress" }.map(\.payload)
        let seqs = progress.compactMap { ($0["seq"] as? NSNumber)?.int64Value }
        // One sequence per version: this attempt's block, then the terminal event after it.
        let first = job.eventSeq - Int64(SchemaCatalog.eventSeqBlock) + 1
        #expect(seqs == Array(first..<(first + Int64(seqs.count))))
        #expect((ready.payload["seq"] as? NSNumber)?.int64Value == job.eventSeq + 1)
        #expect(progress.allSatisfy { $0["status"] as? String == "transcoding" })
        #expect(progress.compactMap { $0["step"] as? String }.starts(with: ["parsing", "layering"]))
        #expect(Set(progress.compactMap { $0["step"] as? String }).isSuperset(of: ["parsing", "layering", "preview"]))
        for p in progress {
            #expect(p["schema"] as? String == "transcode-progress/v1")
            #expect(p["phase"] as? String == "transcoding")
            #expect(p["room_id"] as? String == f.roomId)
            #expect((p["attempt"] as? NSNumber)?.intValue == 1)
            #expect((p["max_attempts"] as? NSNumber)?.intValue == 5)
            #expect(p["retry_at"] is NSNull)
            #expect((p["at"] as? String)?.hasSuffix("Z") == true)
        }
        let values = progress.compactMap { ($0["progress"] as? NSNumber)?.doubleValue }
        #expect(values == values.sorted())
    }

    @Test func redactedTexturesFromRowsAndPrefixReachTheChild() throws {
        let f = try JobFixture()
        // Both kinds of redaction: a recorded row and an object under <version prefix>/redacted/.
        let root = JobFixture.packageRoot.appendingPathComponent("samples/textured")
        let usdz = [UInt8](try Data(contentsOf: root.appendingPathComponent("textured_box.usdz")))
        let blurred = [UInt8](try Data(contentsOf: root.appendingPathComponent("redacted/textures/albedo.png")))
        let version = UUID().uuidString.lowercased()
        let dir = "rooms/\(f.roomId)/versions/\(version)/"
        try f.files.put(dir + "scan.usdz", bytes: usdz, contentType: "model/vnd.usdz+zip")
        try f.files.put(dir + "blurred/albedo.png", bytes: blurred, contentType: "image/png")
        try f.store.submit(versionId: version, roomId: f.roomId, roomName: nil, usdzKey: dir + "scan.usdz", jsonKey: nil,
                           redactions: [(texturePath: "textures/albedo.png", storageKey: dir + "blurred/albedo.png")])
        let job = try f.claim()
        #expect(f.runner().run(job, control: JobControl()) == .ready(outputPrefix: job.outputPrefix))
        let manifest = try JSONSerialization.jsonObject(
            with: Data(try f.files.get(job.outputPrefix + "layer_manifest.json", maxBytes: 1 << 24))) as? [String: Any]
        let redactions = manifest?["redactions"] as? [[String: Any]] ?? []
        #expect(redactions.map { $0["texture_path"] as? String } == ["textures/albedo.png"])

        // The same through the listing: an object under <prefix>redacted/<texture path>.
        let listed = UUID().uuidString.lowercased()
        let dir2 = "rooms/\(f.roomId)/versions/\(listed)/"
        try f.files.put(dir2 + "scan.usdz", bytes: usdz, contentType: "model/vnd.usdz+zip")
        try f.files.put(dir2 + "redacted/textures/albedo.png", bytes: blurred, contentType: "image/png")
        try f.store.submit(versionId: listed, roomId: f.roomId, roomName: nil, usdzKey: dir2 + "scan.usdz", jsonKey: nil)
        let job2 = try f.claim()
        #expect(f.runner().run(job2, control: JobControl()) == .ready(outputPrefix: job2.outputPrefix))

        // A recorded redaction whose object is missing fails the version: never publish the original.
        let other = UUID().uuidString.lowercased()
        let dir3 = "rooms/\(f.roomId)/versions/\(other)/"
        try f.files.put(dir3 + "scan.usdz", bytes: usdz, contentType: "model/vnd.usdz+zip")
        try f.store.submit(versionId: other, roomId: f.roomId, roomName: nil, usdzKey: dir3 + "scan.usdz",
                           jsonKey: nil, redactions: [(texturePath: "textures/albedo.png", storageKey: dir3 + "blurred/missing.png")])
        let job3 = try f.claim()
        #expect(f.runner().run(job3, control: JobControl()) == .failed(reason: "SOURCE_NOT_FOUND"))
    }

    @Test func missingSourceFailsAtOnce() throws {
        let f = try JobFixture()
        let version = try f.submit(usd: nil, json: nil, missingUSD: true)
        let job = try f.claim()
        let outcome = f.runner().run(job, control: JobControl())
        #expect(outcome == .failed(reason: "SOURCE_NOT_FOUND"))
        let row = try f.row(version)
        #expect(row["status"] == "failed")
        #expect(row.int("attempt") == 1)
        #expect(row["last_error_code"] == "SOURCE_NOT_FOUND")
        #expect(row["last_error"]?.hasPrefix("STORAGE_NOT_FOUND") == true)
        let errors = try f.errors(version)
        #expect(errors.last?["code"] as? String == "SOURCE_NOT_FOUND")
        #expect(errors.last?["final"] as? Bool == true)
    }

    @Test func tooLargeSourceFailsAtOnce() throws {
        let f = try JobFixture()
        f.config.maxSourceBytes = 1000
        let version = try f.submitSample()
        let job = try f.claim()
        #expect(f.runner().run(job, control: JobControl()) == .failed(reason: "FILE_TOO_LARGE"))
        #expect(try f.row(version)["status"] == "failed")
    }

    @Test func corruptUSDZFailsWithoutRetry() throws {
        let f = try JobFixture()
        let sample = try JobFixture.sample(JobFixture.sampleUSDZ)
        let version = try f.submit(usd: Array(sample.prefix(sample.count / 2)), json: nil)
        let job = try f.claim()
        let outcome = f.runner().run(job, control: JobControl())
        #expect(outcome == .failed(reason: "USDZ_PARSE_ERROR"))
        let row = try f.row(version)
        #expect(row["status"] == "failed")
        #expect(row.int("attempt") == 1)
        #expect(row["last_error_code"] == "USDZ_PARSE_ERROR")
        #expect(row["last_error"]?.hasPrefix("USD_") == true)
        #expect(try f.errors(version).count == 1)
        #expect(try f.files.list(prefix: job.outputPrefix).isEmpty)
    }

    @Test func childKilledByItsMemoryLimitIsRetriedThenFails() throws {
        let f = try JobFixture()
        f.config.childMemoryMB = 64
        let version = try f.submitSample(maxAttempts: 2)

        let first = try f.claim()
        let outcome1 = f.runner().run(first, control: JobControl())
        guard case .retried(let code, _) = outcome1 else {
            Issue.record("expected a retry, got \(outcome1)")
            return
        }
        #expect(code == "INTERNAL")
        var row = try f.row(version)
        #expect(row["status"] == "queued")
        #expect(row.int("attempt") == 1)
        #expect(row["last_error_code"] == "INTERNAL")

        let second = try f.claim()
        #expect(second.attempt == 2)
        #expect(f.runner().run(second, control: JobControl()) == .failed(reason: "INTERNAL"))
        row = try f.row(version)
        #expect(row["status"] == "failed")
        #expect(row.int("attempt") == 2)
        #expect(try f.errors(version).map { $0["code"] as? String } == ["INTERNAL", "INTERNAL"])
    }

    /// The child dying from a signal (here SIGKILL, as the kernel's OOM killer sends it) is a
    /// failed attempt, not a failed version.
    @Test func childKilledBySignalIsRetried() throws {
        let f = try JobFixture()
        let version = try f.submitSample()
        let job = try f.claim()
        let running = f.start(f.runner(), job, control: JobControl())
        let child = try #require(Self.childProcess(of: version, within: 60), "the job-exec child never appeared")
        kill(child, SIGKILL)
        let outcome = running.wait()
        guard case .retried(let code, _)? = outcome else {
            Issue.record("expected a retry, got \(String(describing: outcome))")
            return
        }
        #expect(code == "INTERNAL")
        let row = try f.row(version)
        #expect(row["status"] == "queued")
        #expect(row["last_error"] == "CHILD_CRASHED: child process killed by signal 9")
        #expect(try f.files.list(prefix: job.outputPrefix).isEmpty)
    }

    /// The pid of the `job-exec` process working on `version`, found in /proc.
    static func childProcess(of version: String, within seconds: Double) -> pid_t? {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
                guard let pid = pid_t(entry),
                      let raw = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline") else { continue }
                let args = raw.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
                // The version is named in the job's document (`--job`), not on the command line.
                guard args.contains("job-exec"), let at = args.firstIndex(of: "--job"), at + 1 < args.count,
                      let document = FileManager.default.contents(atPath: args[at + 1]),
                      (try? JobInput(document: Array(document)))?.versionId == version else { continue }
                return pid
            }
            usleep(1000)
        }
        return nil
    }

    @Test func attemptTimeoutKillsTheChild() throws {
        let f = try JobFixture()
        f.config.attemptTimeoutSeconds = 0.05
        let version = try f.submitSample()
        let listener = try JobEventListener(f.db)
        let job = try f.claim()
        let outcome = f.runner().run(job, control: JobControl())
        guard case .retried(let code, let runAfter) = outcome else {
            Issue.record("expected a retry, got \(outcome)")
            return
        }
        #expect(code == "TIMEOUT")
        #expect(runAfter.hasSuffix("Z"))
        let row = try f.row(version)
        #expect(row["status"] == "queued")
        #expect(row["last_error_code"] == "TIMEOUT")
        #expect(row["lease_id"] == nil)
        try listener.collect { events in events.contains { $0.payload["phase"] as? String == "queued" } }
        let queued = try #require(listener.events.first { $0.payload["phase"] as? String == "queued" })
        #expect(queued.event == "transcode_progress")
        #expect(queued.payload["retry_at"] as? String == runAfter)
    }

    @Test func shutdownReleasesWithoutBurningAnAttempt() throws {
        let f = try JobFixture()
        let (version, job, control, running) = try f.startSamplePastClaim()
        control.requestStop(.shutdown)
        #expect(running.wait() == .released)
        let row = try f.row(version)
        #expect(row["status"] == "queued")
        #expect(row.int("attempt") == 0)
        #expect(row["lease_id"] == nil)
        #expect(try f.files.list(prefix: job.outputPrefix).isEmpty)
    }

    @Test func cancelWhileRunningFailsWithCancelled() throws {
        let f = try JobFixture()
        let (version, job, control, running) = try f.startSamplePastClaim()
        let cancel = try f.store.cancel(versionId: version)
        #expect(cancel.ok && cancel.running)
        #expect(running.wait() == .failed(reason: "CANCELLED"))
        #expect(control.stopReason == .cancelled)
        let row = try f.row(version)
        #expect(row["status"] == "failed")
        #expect(row["last_error_code"] == "CANCELLED")
        #expect(try f.files.list(prefix: job.outputPrefix).isEmpty)
    }

    @Test func callbackModeRetriesUntilAccepted() throws {
        let f = try JobFixture()
        let finalizeURL = f.db.url
        let calls = CallCounter()
        let server = try LoopbackHTTPServer { request in
            guard calls.next() > 2 else { return (503, [], Array("busy".utf8)) }
            // What the backend's transcode-done does: finalize in SQL, fenced by the lease.
            return SupabaseStandIn.transcodeDone(request, secret: JobFixture.doneSecret, databaseURL: finalizeURL)
        }
        defer { server.stop() }
        f.config.doneURL = server.url("/functions/v1/transcode-done")
        f.config.doneSecret = JobFixture.doneSecret
        let version = try f.submitSample()
        let job = try f.claim()

        let outcome = f.runner().run(job, control: JobControl())
        #expect(outcome == .ready(outputPrefix: job.outputPrefix))
        let requests = server.requests
        #expect(requests.count == 3)
        for r in requests {
            #expect(r.method == "POST")
            #expect(r.path == "/functions/v1/transcode-done")
            #expect(r.headers["idempotency-key"] == "\(version):\(job.leaseId)")
            #expect(r.headers["authorization"] == "Bearer \(JobFixture.doneSecret)")
            #expect(r.headers["apikey"] == JobFixture.doneSecret)
            #expect(r.headers["x-worker-id"] == f.config.workerId)
            #expect(r.headers["content-type"] == "application/json")
            #expect(r.body == requests[0].body)
        }
        let body = try #require(try JSONSerialization.jsonObject(with: Data(requests[0].body)) as? [String: Any])
        #expect(body["schema"] as? String == "transcode-done/v1")
        #expect(body["version_id"] as? String == version)
        #expect(body["room_id"] as? String == f.roomId)
        #expect(body["status"] as? String == "ready")
        let lease = try #require(body["lease"] as? [String: Any])
        #expect(lease["lease_id"] as? String == job.leaseId)
        #expect(lease["worker_id"] as? String == f.config.workerId)
        #expect((lease["attempt"] as? NSNumber)?.intValue == 1)
        let outputs = try #require(body["outputs"] as? [String: Any])
        #expect(outputs["bucket"] as? String == f.files.bucket, "the file store's directory name is its bucket")
        #expect(outputs["glb_path"] as? String == job.outputPrefix + "model.glb")
        #expect(outputs["manifest_path"] as? String == job.outputPrefix + "layer_manifest.json")
        let glb = try f.files.get(job.outputPrefix + "model.glb", maxBytes: 1 << 26)
        #expect((outputs["glb_bytes"] as? NSNumber)?.intValue == glb.count)
        #expect(outputs["glb_sha256"] as? String == Digest.hex(Digest.sha256(glb)))
        #expect((outputs["manifest_schema_version"] as? NSNumber)?.intValue == ManifestBuilder.schemaVersion)
        #expect(((outputs["layer_count"] as? NSNumber)?.intValue ?? 0) > 0)
        let thumbnails = outputs["thumbnails"] as? [[String: Any]] ?? []
        #expect(thumbnails.contains { $0["kind"] as? String == "plan" && ($0["path"] as? String)?.hasPrefix(job.outputPrefix) == true })
        let timings = try #require(body["timings_ms"] as? [String: Any])
        for key in ["download", "parsing", "layering", "preview", "upload", "total"] { #expect(timings[key] != nil, "\(key)") }
        #expect((body["worker"] as? [String: Any])?["version"] as? String == CommandLineTool.version)

        let row = try f.row(version)
        #expect(row["status"] == "ready")
        #expect(row["glb_path"] == job.outputPrefix + "model.glb")
        #expect(try f.files.list(prefix: job.outputPrefix).count >= 3)
    }

    @Test func callbackModeLeaseLostDeletesOutputs() throws {
        let f = try JobFixture()
        let server = try LoopbackHTTPServer { _ in (409, [], Array("{\"ok\":false,\"error\":\"LEASE_LOST\"}".utf8)) }
        defer { server.stop() }
        f.config.doneURL = server.url("/functions/v1/transcode-done")
        _ = try f.submitSample()
        let job = try f.claim()
        #expect(f.runner().run(job, control: JobControl()) == .leaseLost)
        #expect(server.requestCount == 1)
        #expect(server.requests.first?.headers["authorization"] == nil)
        #expect(f.recorder.puts.count >= 3)
        #expect(try f.files.list(prefix: job.outputPrefix).isEmpty)
    }

    @Test func callbackModeRejectionIsARetryableFailure() throws {
        let f = try JobFixture()
        let server = try LoopbackHTTPServer { _ in (422, [], Array("{\"ok\":false,\"error\":\"INVALID_BODY\"}".utf8)) }
        defer { server.stop() }
        f.config.doneURL = server.url("/functions/v1/transcode-done")
        let version = try f.submitSample()
        let job = try f.claim()
        let outcome = f.runner().run(job, control: JobControl())
        guard case .retried(let code, _) = outcome else {
            Issue.record("expected a retry, got \(outcome)")
            return
        }
        #expect(code == "COMPLETION_REJECTED")
        #expect(server.requestCount == 1)
        #expect(try f.row(version)["status"] == "queued")
        #expect(try f.row(version)["last_error_code"] == "COMPLETION_REJECTED")
        #expect(try f.files.list(prefix: job.outputPrefix).isEmpty)
    }

    @Test func callbackModeFailureIsReportedToTheBackend() throws {
        let f = try JobFixture()
        let server = try LoopbackHTTPServer { _ in (200, [], Array("{\"ok\":true}".utf8)) }
        defer { server.stop() }
        f.config.doneURL = server.url("/functions/v1/transcode-done")
        let sample = try JobFixture.sample(JobFixture.sampleUSDZ)
        _ = try f.submit(usd: Array(sample.prefix(200)), json: nil)
        let job = try f.claim()
        #expect(f.runner().run(job, control: JobControl()) == .failed(reason: "USDZ_PARSE_ERROR"))
        let request = try #require(server.requests.first)
        let body = try #require(try JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any])
        #expect(body["status"] as? String == "failed")
        let error = try #require(body["error"] as? [String: Any])
        #expect(error["code"] as? String == "ROOM_TRANSCODE_FAILED")
        #expect(error["reason"] as? String == "USDZ_PARSE_ERROR")
        #expect((error["message"] as? String)?.hasPrefix("USD_") == true)
        #expect(error["phase"] as? String == "parsing")
        #expect(error["retryable"] as? Bool == false)
        #expect((error["attempt"] as? NSNumber)?.intValue == 1)
        #expect((error["max_attempts"] as? NSNumber)?.intValue == 5)
    }
}
