import Foundation
import JSONCore
import ObjectStorage
import PGQueue
#if canImport(Glibc)
import Glibc
#endif

/// One attempt of one claimed job, from download to the final report (see `JobRunner`). Lives on
/// the job's thread for the duration of `run()`; the heartbeat runs on a thread of its own.
final class JobAttempt {
    /// Why a step did not go on.
    private enum Interruption: Error {
        case failed(FailureReason)
        case stopped(JobControl.StopReason)
    }

    /// What the child produced.
    private struct ChildReport {
        var files: [ChildMessage.File]
        var phaseMilliseconds: [String: Double]
        var manifestSchemaVersion: Int
        var layerCount: Int
        var thumbnails: [(path: String, kind: String, width: Int, height: Int)]
        /// The manifest's `quality.grade` (`A` best); nil when the input was not graded.
        var qualityGrade: String?
    }

    private let runner: JobRunner
    private let job: ClaimedJob
    private let control: JobControl
    private var config: WorkerConfig { runner.config }
    private var logger: JSONLogger { runner.logger }
    /// Sources and redacted textures are read here.
    private var storage: any ObjectStore { runner.storage }
    /// Outputs are written here.
    private var outputStore: any ObjectStore { runner.outputStorage }

    private var heartbeat: HeartbeatLoop!
    private var store: QueueStore!
    /// Serializes the job connection between the job thread and the progress sender.
    private let storeLock = NSLock()
    private var progress: ProgressReporter!
    /// Monotonic nanoseconds by which reporting the end must be over (set when it begins).
    private var reportDeadline: UInt64?
    /// Output keys written by this attempt, in order.
    private var uploaded: [String] = []
    /// True once a `ready` report was sent: from then on, outputs are only deleted when the
    /// answer proves they are not referenced.
    private var completionSent = false
    private var timings: [String: Double] = [:]
    private let started = Clock.now()
    private var currentStep = "parsing"

    init(runner: JobRunner, job: ClaimedJob, control: JobControl) {
        self.runner = runner
        self.job = job
        self.control = control
    }

    /// The attempt limit in force: the row's, capped by the worker's.
    private var maxAttempts: Int { min(job.maxAttempts, config.maxAttempts) }

    private var ids: [String: JSONValue] {
        ["version_id": .string(job.versionId), "room_id": .string(job.roomId), "attempt": .int(Int64(job.attempt))]
    }

    // MARK: - The attempt

    func run() -> JobOutcome {
        logger.info("job claimed", ids.merging([
            "max_attempts": .int(Int64(maxAttempts)), "reprocess": .bool(job.isReprocess),
            "output_prefix": .string(job.outputPrefix),
        ]) { a, _ in a })
        guard let url = config.databaseURL else {
            logger.error("job cannot run: no database URL", ids)
            return finish(.leaseLost, failure: nil)
        }
        heartbeat = HeartbeatLoop(job: job, control: control, logger: logger, databaseURL: url,
                                  leaseSeconds: config.leaseSeconds, interval: config.heartbeatSeconds)
        heartbeat.start()
        defer { heartbeat.stop() }

        guard let connection = openConnection(url) else {
            heartbeat.enterReporting()
            logger.error("job abandoned: no database connection while the lease lived", ids)
            return finish(.leaseLost, failure: nil)
        }
        defer { connection.close() }
        let store = QueueStore(connection: connection)
        self.store = store
        // Progress events are sent off the job thread (a stalled connection must not hold up the
        // child's tick: timeouts and stop requests), sharing the job connection under a lock.
        let storeLock = self.storeLock
        let send: ProgressReporter.Send
        if let broadcaster = runner.broadcaster {
            // Supabase mode: Realtime REST; the message id is stable per (version, lease, seq), and
            // the channel kind is the database's (`transcode.realtime_private`, public by default),
            // the same as the terminal events'.
            let name = "\(job.versionId):\(job.leaseId):"
            let privateChannel = (try? store.realtimePrivate()) ?? false
            send = { topic, event, payload in
                var seq: Int64 = 0
                if case .object(let fields) = payload, case .int(let n)? = fields["seq"] { seq = n }
                try broadcaster.send(topic: topic, event: event, payload: payload,
                                     id: RealtimeBroadcaster.messageId(for: name + String(seq)), privateChannel: privateChannel)
            }
        } else {
            send = { topic, event, payload in
                storeLock.lock()
                defer { storeLock.unlock() }
                try store.notifyEvent(topic: topic, event: event, payload: payload)
            }
        }
        let block = Int64(SchemaCatalog.eventSeqBlock)
        progress = ProgressReporter(
            versionId: job.versionId, roomId: job.roomId, attempt: job.attempt, maxAttempts: maxAttempts,
            minInterval: config.progressIntervalSeconds,
            firstSeq: job.eventSeq > 0 ? job.eventSeq - block + 1 : 1, lastSeq: job.eventSeq > 0 ? job.eventSeq : .max,
            status: job.isReprocess ? "ready" : "transcoding",
            logger: logger, asynchronous: true, send: send)

        let (outcome, failure) = execute()
        progress.drain()
        heartbeat.stop()
        return finish(outcome, failure: failure)
    }

    /// Download, transcode, upload, report; or the failure / stop handling. Returns the outcome
    /// and the failure it was about, if any.
    private func execute() -> (JobOutcome, FailureReason?) {
        let ws: JobWorkspace
        do {
            ws = try JobWorkspace()
        } catch {
            return (handleFailure(error), error)
        }
        defer { ws.remove() }
        do {
            try checkStop()
            let inputs = try download(ws)
            let report = try transcode(ws, inputs: inputs)
            try requirePreview(report)
            try upload(ws, report: report)
            return (complete(report), nil)
        } catch {
            switch error {
            case .failed(let f):
                return (handleFailure(f), f)
            case .stopped(let reason):
                let outcome = handleStop(reason)
                guard case .failed = outcome else { return (outcome, nil) }
                return (outcome, FailureReason(reason: FailureReason.cancelled, message: "CANCELLED: cancelled by an operator",
                                               phase: currentStep, isRetryable: false))
            }
        }
    }

    /// Logs the end and returns `outcome`.
    private func finish(_ outcome: JobOutcome, failure: FailureReason?) -> JobOutcome {
        timings["total"] = Clock.ms(started, Clock.now())
        var fields = ids
        for (k, v) in timings { fields["\(k)_ms"] = .int(Int64(v.rounded())) }
        switch outcome {
        case .ready(let prefix):
            fields["outcome"] = .string("ready")
            fields["output_prefix"] = .string(prefix)
        case .retried(let code, let runAfter):
            fields["outcome"] = .string("retried")
            fields["reason"] = .string(code)
            fields["retry_at"] = .string(runAfter)
        case .failed(let reason):
            fields["outcome"] = .string("failed")
            fields["reason"] = .string(reason)
        case .released:
            fields["outcome"] = .string("released")
        case .leaseLost:
            fields["outcome"] = .string("lease_lost")
        }
        if let failure {
            fields["message"] = .string(failure.message)
            fields["failed_phase"] = .string(failure.phase)
            fields["retryable"] = .bool(failure.isRetryable)
        }
        if case .ready = outcome { logger.info("job finished", fields) } else { logger.warn("job finished", fields) }
        return outcome
    }

    // MARK: - Steps

    private struct Inputs {
        var usd: String?
        var json: String?
        var redactions: Int
        /// Redaction rows per texture path (with or without a replacement).
        var regions: [String: Int] = [:]
        /// `regions` as the JSON file handed to the child, when there are any.
        var regionsFile: String?
    }

    /// Downloads the sources and the redacted textures into the workspace. Every key must lie
    /// below the version's source prefix, and a recorded `source_bucket` must be the source
    /// store's (`StorageConfinement`: `SOURCE_KEY_REFUSED`); redacted
    /// textures are the recorded rows that name a replacement (one per texture; two different keys
    /// for one texture: `REDACTION_INVALID`, permanent), then every object under
    /// `<prefix>redacted/`, at most `maxRedactions` of them and `maxRedactionBytes` in all
    /// (`REDACTION_INVALID`). Every row, with or without a replacement, counts as one redacted area
    /// of its texture; the counts go to the child as `in/redaction_regions.json`.
    private func download(_ ws: JobWorkspace) throws(Interruption) -> Inputs {
        enter("downloading")
        let t0 = Clock.now()
        defer { timings["download"] = Clock.ms(t0, Clock.now()) }
        var inputs = Inputs(usd: nil, json: nil, redactions: 0)
        guard job.sourceUSDZPath != nil || job.sourceJSONPath != nil else {
            throw .failed(FailureReason(reason: FailureReason.sourceNotFound, message: "SOURCE_MISSING: the version names no source file",
                                        phase: "downloading", isRetryable: false))
        }
        let prefix = StorageConfinement.prefix(config.sourcePrefixTemplate, roomId: job.roomId, versionId: job.versionId)
        func confined(_ key: String, _ what: String) throws(Interruption) {
            do { try StorageConfinement.check(key, under: prefix, what: what) } catch { throw .failed(error) }
        }
        if let key = job.sourceUSDZPath { try confined(key, "source") }
        if let key = job.sourceJSONPath { try confined(key, "RoomPlan JSON") }
        do { try StorageConfinement.check(bucket: job.sourceBucket, store: storage) } catch { throw .failed(error) }
        let rows: [(texturePath: String, storageKey: String?)]
        switch database("read redactions", { (s) throws(DatabaseError) in try s.redactions(versionId: job.versionId) }) {
        case .success(let r): rows = r
        case .failure(let e): throw .failed(FailureReason(reason: FailureReason.sourceDownloadFailed,
                                                            message: "\(e.code): cannot read the redactions: \(e.message)",
                                                            phase: "downloading", isRetryable: true))
        }
        for row in rows { if let key = row.storageKey { try confined(key, "redacted texture") } }
        let listed: [String]
        do {
            listed = try storage.list(prefix: prefix + "redacted/")
        } catch {
            throw .failed(FailureReason(reason: FailureReason.sourceDownloadFailed,
                                        message: "\(error.code): cannot list \(prefix)redacted/: \(error.message)",
                                        phase: "downloading", isRetryable: error.isRetryable))
        }
        var wanted: [(relative: String, key: String)] = []
        var seen: Set<String> = []
        // One replacement per texture: rows without a key only record a redacted area (counted in
        // `inputs.regions`); rows of one texture naming two different keys are refused.
        var chosen: [String: String] = [:]
        for row in rows {
            inputs.regions[row.texturePath, default: 0] += 1
            guard let key = row.storageKey else { continue }
            if let other = chosen[row.texturePath] {
                guard other == key else {
                    throw .failed(FailureReason(reason: FailureReason.redactionInvalid,
                                                message: "REDACTION_INVALID: texture \(row.texturePath) has two replacements, \(other) and \(key)",
                                                phase: "downloading", isRetryable: false))
                }
                continue
            }
            chosen[row.texturePath] = key
            seen.insert(row.texturePath)
            wanted.append((row.texturePath, key))
        }
        for key in listed {
            let relative = String(key.dropFirst(prefix.count + "redacted/".count))
            if !relative.isEmpty, seen.insert(relative).inserted { wanted.append((relative, key)) }
        }
        guard wanted.count <= config.maxRedactions else {
            throw .failed(FailureReason(reason: FailureReason.redactionInvalid,
                                        message: "REDACTION_LIMIT_EXCEEDED: \(wanted.count) redacted textures, more than TRANSCODE_MAX_REDACTIONS (\(config.maxRedactions))",
                                        phase: "downloading", isRetryable: false))
        }

        if let key = job.sourceUSDZPath {
            let bytes = try fetch(key, what: "source \(key)")
            inputs.usd = try written(bytes, to: Self.fileName(key, fallback: "source.usdz"), in: ws.inputDirectory + "/usd", ws)
        }
        if let key = job.sourceJSONPath {
            let bytes = try fetch(key, what: "source \(key)")
            inputs.json = try written(bytes, to: Self.fileName(key, fallback: "roomplan.json"), in: ws.inputDirectory + "/json", ws)
        }
        var remaining = config.maxRedactionBytes
        for (relative, key) in wanted {
            try checkStop()
            let bytes = try fetch(key, what: "redacted texture \(relative)", maxBytes: min(config.maxSourceBytes, remaining),
                                  overBudget: remaining < config.maxSourceBytes)
            remaining -= bytes.count
            _ = try written(bytes, to: relative, in: ws.redactedDirectory, ws)
        }
        inputs.redactions = wanted.count
        // The counts go beside the sources, never into the replacement tree (where any file is
        // taken for a texture).
        if !inputs.regions.isEmpty {
            var object: [String: JSONValue] = [:]
            for (path, n) in inputs.regions { object[path] = .int(Int64(n)) }
            inputs.regionsFile = try written(Array(JSONValue.object(object).serialized().utf8), to: "redaction_regions.json",
                                             in: ws.inputDirectory, ws)
        }
        return inputs
    }

    /// Fetches one object of at most `maxBytes` (default `maxSourceBytes`). With `overBudget`,
    /// an object over the limit is `REDACTION_INVALID` (the redactions' total budget ran out)
    /// rather than `FILE_TOO_LARGE`.
    /// Fails the attempt (permanently) unless the child rendered the card and hero images.
    private func requirePreview(_ report: ChildReport) throws(Interruption) {
        if let missing = Self.missingPreview(kinds: report.thumbnails.map(\.kind)) { throw .failed(missing) }
    }

    private func fetch(_ key: String, what: String, maxBytes: Int? = nil, overBudget: Bool = false) throws(Interruption) -> [UInt8] {
        try checkStop()
        do {
            return try storage.get(key, maxBytes: maxBytes ?? config.maxSourceBytes)
        } catch {
            if overBudget && error.code == StorageError.tooLarge {
                throw .failed(FailureReason(reason: FailureReason.redactionInvalid,
                                            message: "REDACTION_LIMIT_EXCEEDED: the redacted textures exceed TRANSCODE_MAX_REDACTION_BYTES (\(config.maxRedactionBytes) bytes)",
                                            phase: "downloading", isRetryable: false))
            }
            throw .failed(FailureReason.download(error, what: what))
        }
    }

    private func written(_ bytes: [UInt8], to relative: String, in directory: String, _ ws: JobWorkspace) throws(Interruption) -> String {
        do { return try ws.write(bytes, to: relative, in: directory) } catch { throw .failed(error) }
    }

    private func transcode(_ ws: JobWorkspace, inputs: Inputs) throws(Interruption) -> ChildReport {
        try checkStop()
        var args = ["job-exec", "--out", ws.outputDirectory, "--version-id", job.versionId, "--room-id", job.roomId,
                    "--memory-mb", String(config.childMemoryMB), "--cpu-seconds", String(config.childCPUSeconds),
                    "--parent-pid", String(getpid())]
        if let usd = inputs.usd { args += ["--usd", usd] }
        if let json = inputs.json { args += ["--roomplan", json] }
        if inputs.redactions > 0 { args += ["--redacted-textures", ws.redactedDirectory] }
        if let file = inputs.regionsFile { args += ["--redaction-regions", file] }

        if let ids = runner.childSandbox.ids {
            do { try ws.handOver(uid: ids.uid, gid: ids.gid) } catch { throw .failed(error) }
        }
        let child: ChildProcess
        do {
            child = try ChildProcess(executable: runner.childExecutable, arguments: args,
                                     environment: JobRunner.childEnvironment(), sandbox: runner.childSandbox)
        } catch {
            throw .failed(.internalFault(error.description, phase: "parsing"))
        }
        let deadline = Clock.now() + UInt64(max(0.001, config.attemptTimeoutSeconds) * 1e9)
        let seen = ChildState()
        let termination = child.supervise(
            interval: 0.2,
            onLine: { line in self.childLine(line, seen: seen, ws) },
            onStderr: { line in self.childStderr(line, pid: child.pid, seen: seen, ws) },
            tick: { self.childTick(seen: seen, deadline: deadline) })
        // The last step reached goes out before anything about the end of the job.
        progress.flushNow()
        if let stopCause = seen.stopCause { throw .stopped(stopCause) }
        if seen.timedOut {
            throw .failed(FailureReason(
                reason: FailureReason.timeout,
                message: "TIMEOUT: the attempt ran longer than \(Self.seconds(config.attemptTimeoutSeconds)) s; the child process was killed",
                phase: currentStep, isRetryable: true))
        }
        switch (seen.final, termination) {
        case (.error(let code, let message, let phase, let retryable)?, _):
            throw .failed(FailureReason.pipeline(code: code, message: ws.scrub(message), phase: phase, retryable: retryable))
        case (.done(let files, let summary)?, .exited(0)):
            timings.merge(Self.stepTimings(ChildMessage.phaseMilliseconds(summary))) { _, b in b }
            return try readReport(ws, files: files, summary: summary)
        case (_, .signaled(let signal)):
            throw .failed(.internalFault("CHILD_CRASHED: child process killed by signal \(signal)", phase: currentStep))
        case (_, .exited(let status)):
            throw .failed(.internalFault("CHILD_CRASHED: child process exited with status \(status) without a result",
                                         phase: currentStep))
        }
    }

    /// What supervising the child collected.
    private final class ChildState {
        var final: ChildMessage?
        var stopCause: JobControl.StopReason?
        var timedOut = false
        var stderrLines = 0
    }

    private func childLine(_ line: String, seen: ChildState, _ ws: JobWorkspace) {
        guard let message = ChildMessage(line: line) else {
            logger.warn("unexpected child output", ids.merging(["line": .string(String(ws.scrub(line).prefix(300)))]) { a, _ in a })
            return
        }
        switch message {
        case .phase(let p): pipelinePhase(p)
        case .done, .error: seen.final = message
        }
    }

    private func childStderr(_ line: String, pid: pid_t, seen: ChildState, _ ws: JobWorkspace) {
        seen.stderrLines += 1
        guard seen.stderrLines <= 40, !line.isEmpty else { return }
        logger.warn("child stderr", ids.merging(["pid": .int(Int64(pid)),
                                                 "line": .string(String(ws.scrub(line).prefix(500)))]) { a, _ in a })
    }

    /// Called at least every 200 ms while the child runs; true kills it.
    private func childTick(seen: ChildState, deadline: UInt64) -> Bool {
        progress.flush()
        if let r = control.stopReason { seen.stopCause = r; return true }
        if Clock.now() >= deadline { seen.timedOut = true; return true }
        return false
    }

    /// Checks the child's files and reads what the report needs from the manifest.
    private func readReport(_ ws: JobWorkspace, files: [ChildMessage.File], summary: JSONValue) throws(Interruption) -> ChildReport {
        guard files.contains(where: { $0.path == "model.glb" }), files.contains(where: { $0.path == "layer_manifest.json" }) else {
            throw .failed(.internalFault("CHILD_PROTOCOL: the child reported no model.glb or layer_manifest.json", phase: "preview"))
        }
        // Every reported file is checked before anything is uploaded (names, links, types, sizes).
        let manifestBytes: [UInt8]
        let limits = ChildOutputs.limits(config)
        do {
            let outputs = try ChildOutputs(ws, maxFileBytes: limits.file, maxTotalBytes: limits.total, phase: "preview")
            defer { outputs.close() }
            try outputs.validate(files, phase: "preview")
            manifestBytes = try outputs.read("layer_manifest.json", maxBytes: 256 << 20, phase: "preview")
        } catch {
            throw .failed(error)
        }
        guard let manifest = (try? JSONSerialization.jsonObject(with: Data(manifestBytes))) as? [String: Any],
              let schema = (manifest["schema_version"] as? NSNumber)?.intValue else {
            throw .failed(.internalFault("CHILD_PROTOCOL: the manifest the child wrote has no schema_version", phase: "preview"))
        }
        let layers = (manifest["layers"] as? [Any])?.count ?? 0
        var thumbnails: [(path: String, kind: String, width: Int, height: Int)] = []
        for t in manifest["thumbnails"] as? [[String: Any]] ?? [] {
            guard let path = t["path"] as? String, let kind = t["kind"] as? String else { continue }
            thumbnails.append((job.outputPrefix + path, kind, (t["width"] as? NSNumber)?.intValue ?? 0,
                               (t["height"] as? NSNumber)?.intValue ?? 0))
        }
        let grade = (manifest["quality"] as? [String: Any])?["grade"] as? String
        return ChildReport(files: files, phaseMilliseconds: ChildMessage.phaseMilliseconds(summary),
                           manifestSchemaVersion: schema, layerCount: layers, thumbnails: thumbnails,
                           qualityGrade: grade)
    }

    private func upload(_ ws: JobWorkspace, report: ChildReport) throws(Interruption) {
        try checkStop()
        enter("uploading_outputs")
        // Renew the lease (and look for a cancel) before anything becomes visible.
        var sentAt = Clock.now()
        switch database("heartbeat", { (s) throws(DatabaseError) in
            sentAt = Clock.now()
            return try s.heartbeat(job, leaseSeconds: config.leaseSeconds, phase: "uploading_outputs")
        }) {
        case .success(.leaseLost), .failure:
            control.requestStop(.leaseLost)
            throw .stopped(.leaseLost)
        case .success(.alive(let cancelRequested)):
            heartbeat.renewed(sentAt: sentAt)
            if cancelRequested {
                control.requestStop(.cancelled)
                throw .stopped(.cancelled)
            }
        }
        let t0 = Clock.now()
        defer { timings["upload"] = Clock.ms(t0, Clock.now()) }
        let ordered = report.files.filter { $0.path != "layer_manifest.json" } + report.files.filter { $0.path == "layer_manifest.json" }
        let limits = ChildOutputs.limits(config)
        let outputs: ChildOutputs
        do {
            outputs = try ChildOutputs(ws, maxFileBytes: limits.file, maxTotalBytes: limits.total, phase: "uploading_outputs")
        } catch {
            throw .failed(error)
        }
        defer { outputs.close() }
        for file in ordered {
            try checkStop()
            let bytes: [UInt8]
            do {
                bytes = try outputs.read(file.path, phase: "uploading_outputs")
            } catch {
                throw .failed(error)
            }
            guard bytes.count == file.bytes, Digest.hex(Digest.sha256(bytes)) == file.sha256 else {
                throw .failed(.internalFault("CHILD_PROTOCOL: the output \(file.path) does not match its reported size or hash",
                                             phase: "uploading_outputs"))
            }
            let key = job.outputPrefix + file.path
            do {
                try outputStore.put(key, bytes: bytes, contentType: Self.contentType(file.path),
                                    cacheControl: config.outputCacheControl)
            } catch {
                throw .failed(.upload(error))
            }
            uploaded.append(key)
        }
    }

    // MARK: - Reporting

    private func complete(_ report: ChildReport) -> JobOutcome {
        beginReporting()
        // The terminal event comes from the finalize: no progress after it.
        progress.close()
        enter("completing")
        let glbPath = job.outputPrefix + "model.glb"
        let manifestPath = job.outputPrefix + "layer_manifest.json"
        let glb = report.files.first { $0.path == "model.glb" }!
        if let url = config.completionURL {
            let client = completionClient(url)
            let outputs = CompletionClient.Outputs(
                bucket: outputStore.bucket, glbPath: glbPath, manifestPath: manifestPath, thumbnails: report.thumbnails,
                glbBytes: glb.bytes, glbSHA256: glb.sha256, manifestSchemaVersion: report.manifestSchemaVersion,
                layerCount: report.layerCount, qualityGrade: report.qualityGrade)
            timings["total"] = Clock.ms(started, Clock.now())
            let body = client.readyBody(job, outputs: outputs, timings: timings)
            completionSent = true
            var answer = client.post(body, job: job, shouldContinue: keepReporting)
            if case .gaveUp = answer, heartbeat.leaseLostSeen || !heartbeat.leaseAlive {
                // The lease may be gone because an earlier, unanswered request was recorded: one
                // more request tells (an idempotent replay answers 200).
                answer = client.post(body, job: job, once: true, shouldContinue: { false })
            }
            switch answer {
            case .accepted:
                collectSuperseded(runner: runner, job: job)
                return .ready(outputPrefix: job.outputPrefix)
            case .leaseLost:
                deleteOutputs(force: true)
                return .leaseLost
            case .rejected(let status, let excerpt):
                logger.error("transcode-done rejected the result", ids.merging([
                    "status": .int(Int64(status)), "body": .string(excerpt)]) { a, _ in a })
                deleteOutputs(force: true)
                let f = FailureReason(reason: FailureReason.completionRejected,
                                      message: "COMPLETION_REJECTED: transcode-done answered HTTP \(status)",
                                      phase: "completing", isRetryable: true)
                observer(.failure(f))
                return retryOrFail(f, failInSQL: true)
            case .gaveUp(let lastError):
                if control.shutdownRequested && !heartbeat.leaseLostSeen && heartbeat.leaseAlive {
                    return handleStop(.shutdown)
                }
                if reportDeadlinePassed {
                    // Stop renewing: the lease expires and the rescuer puts the version back. The
                    // outputs stay (the report may have been recorded without its answer reaching
                    // us); a newer attempt writes under a prefix of its own.
                    heartbeat.stop()
                    logger.error("transcode-done not accepted before the report deadline; outputs left in place, the lease will expire",
                                 ids.merging(["error": .string(lastError),
                                              "deadline_s": .double(runner.reportDeadlineSeconds)]) { a, _ in a })
                    return .leaseLost
                }
                logger.error("transcode-done unreachable while the lease lived; outputs left in place",
                             ids.merging(["error": .string(lastError)]) { a, _ in a })
                return .leaseLost
            }
        }
        var outputs: [String: JSONValue] = [
            "bucket": .string(outputStore.bucket), "glb_path": .string(glbPath), "manifest_path": .string(manifestPath),
            "thumbnails": CompletionClient.thumbnailsJSON(report.thumbnails),
            "manifest_schema_version": .int(Int64(report.manifestSchemaVersion)),
        ]
        let hero = report.thumbnails.first { $0.kind == "hero" } ?? report.thumbnails.first { $0.kind == "card" }
        outputs["thumbnail_path"] = hero.map { .string($0.path) } ?? .null
        outputs["quality_grade"] = report.qualityGrade.map { .string($0) } ?? .null
        completionSent = true
        switch database("finalize ready", { (s) throws(DatabaseError) in
            try s.finalize(versionId: job.versionId, leaseId: job.leaseId, status: "ready", outputs: .object(outputs))
        }) {
        case .success(let r) where r.ok:
            collectSuperseded(runner: runner, job: job)
            return .ready(outputPrefix: job.outputPrefix)
        case .success(let r):
            // LEASE_LOST is only answered when the version does not point at these outputs.
            logger.warn("finalize refused", ids.merging(["error": .string(r.error ?? "unknown")]) { a, _ in a })
            deleteOutputs(force: true)
            return .leaseLost
        case .failure(let e):
            logger.error("finalize failed; outputs left in place", ids.merging(["error": .string(e.description)]) { a, _ in a })
            return .leaseLost
        }
    }

    /// A failed attempt: delete its outputs, then retry later or fail for good.
    private func handleFailure(_ f: FailureReason) -> JobOutcome {
        beginReporting()
        observer(.failure(f))
        deleteOutputs()
        return f.isRetryable ? retryOrFail(f, failInSQL: false) : finalizeFailed(f, sqlOnly: false)
    }

    /// Puts the version back with backoff, or, with the attempts used up, fails it for good
    /// (`failInSQL`: with `transcode_finalize` even in callback mode, after the backend rejected
    /// this attempt's report).
    private func retryOrFail(_ f: FailureReason, failInSQL: Bool) -> JobOutcome {
        let result = database("retry later", { (s) throws(DatabaseError) in
            try s.retryLater(job, code: f.reason, message: f.message, baseDelaySeconds: config.retryBaseSeconds,
                             maxDelaySeconds: config.retryMaxSeconds, maxAttempts: config.maxAttempts)
        })
        switch result {
        case .success(let runAfter?):
            let at: String
            switch database("format time", { (s) throws(DatabaseError) in try s.utcTimestamp(runAfter) }) {
            case .success(let t): at = t
            case .failure: at = runAfter
            }
            progress.queued(retryAt: at)
            return .retried(code: f.reason, runAfter: at)
        case .success(nil):
            // The attempts are used up, or the lease is gone (a rescuer may have given the version
            // to another worker): tell them apart before reporting a final failure. Finalize is
            // fenced by the lease anyway and then answers LEASE_LOST; nothing is deleted here.
            var sentAt = Clock.now()
            let check = database("check lease", { (s) throws(DatabaseError) in
                sentAt = Clock.now()
                return try s.heartbeat(job, leaseSeconds: config.leaseSeconds, phase: nil)
            })
            switch check {
            case .success(.leaseLost):
                logger.warn("lease lost before the failure was reported", ids)
                return .leaseLost
            case .success(.alive):
                heartbeat.renewed(sentAt: sentAt)
            case .failure:
                break
            }
            return finalizeFailed(f, sqlOnly: failInSQL)
        case .failure(let e):
            logger.error("cannot put the job back; the lease will expire", ids.merging(["error": .string(e.description)]) { a, _ in a })
            return .leaseLost
        }
    }

    /// Fails the version for good: `transcode_finalize` (direct mode), or the failure body to
    /// `transcode-done` (callback mode; when the backend rejects it, or `sqlOnly`, in SQL).
    private func finalizeFailed(_ f: FailureReason, sqlOnly: Bool) -> JobOutcome {
        progress.close()
        if let url = config.completionURL, !sqlOnly {
            let client = completionClient(url)
            let body = client.failedBody(job, failure: f, maxAttempts: maxAttempts)
            var answer = client.post(body, job: job, shouldContinue: keepReporting)
            if case .gaveUp = answer, heartbeat.leaseLostSeen || !heartbeat.leaseAlive {
                answer = client.post(body, job: job, once: true, shouldContinue: { false })
            }
            switch answer {
            case .accepted:
                return .failed(reason: f.reason)
            case .leaseLost:
                return .leaseLost
            case .rejected(let status, let excerpt):
                logger.error("transcode-done rejected the failure; recording it in SQL", ids.merging([
                    "status": .int(Int64(status)), "body": .string(excerpt)]) { a, _ in a })
            case .gaveUp(let lastError):
                if heartbeat.leaseLostSeen || !heartbeat.leaseAlive {
                    logger.error("transcode-done unreachable while the lease lived", ids.merging(["error": .string(lastError)]) { a, _ in a })
                    return .leaseLost
                }
                // The report deadline passed, a shutdown was requested, or the request cannot be
                // sent at all: record the failure in SQL (fenced by the lease) instead.
                logger.error("transcode-done not accepted; recording the failure in SQL", ids.merging([
                    "error": .string(lastError), "shutdown": .bool(control.shutdownRequested),
                    "deadline_passed": .bool(reportDeadlinePassed)]) { a, _ in a })
            }
        }
        switch database("finalize failed", { (s) throws(DatabaseError) in
            try s.finalize(versionId: job.versionId, leaseId: job.leaseId, status: "failed", error: f.json)
        }) {
        case .success(let r) where r.ok:
            return .failed(reason: f.reason)
        case .success(let r):
            logger.warn("finalize refused", ids.merging(["error": .string(r.error ?? "unknown")]) { a, _ in a })
            return .leaseLost
        case .failure(let e):
            logger.error("cannot record the failure; the lease will expire", ids.merging(["error": .string(e.description)]) { a, _ in a })
            return .leaseLost
        }
    }

    private func handleStop(_ reason: JobControl.StopReason) -> JobOutcome {
        beginReporting()
        logger.info("job stopping", ids.merging(["stop_reason": .string(reason.rawValue),
                                                 "phase": .string(control.phase)]) { a, _ in a })
        switch reason {
        case .shutdown:
            switch database("release", { (s) throws(DatabaseError) in try s.release(job) }) {
            case .success(true):
                deleteOutputs(force: true)
                return .released
            case .success(false):
                deleteOutputs()
                return .leaseLost
            case .failure(let e):
                logger.error("cannot release the job; the lease will expire", ids.merging(["error": .string(e.description)]) { a, _ in a })
                deleteOutputs()
                return .leaseLost
            }
        case .cancelled:
            let f = FailureReason(reason: FailureReason.cancelled, message: "CANCELLED: cancelled by an operator",
                                  phase: currentStep, isRetryable: false)
            observer(.failure(f))
            deleteOutputs()
            return finalizeFailed(f, sqlOnly: false)
        case .leaseLost:
            deleteOutputs()
            return .leaseLost
        }
    }

    // MARK: - Support

    /// Throws when someone asked the job to stop.
    private func checkStop() throws(Interruption) {
        if let r = control.stopReason { throw .stopped(r) }
    }

    /// Whether a report being retried may go on: the lease lives, no shutdown was requested (even
    /// after another stop reason) and the report deadline has not passed.
    private func keepReporting() -> Bool {
        !heartbeat.leaseLostSeen && heartbeat.leaseAlive && !control.shutdownRequested && !reportDeadlinePassed
    }

    /// The job starts reporting its end: the heartbeat stops turning a lost lease into a stop
    /// request, and the report deadline (`JobRunner.reportDeadlineSeconds`) starts.
    private func beginReporting() {
        heartbeat.enterReporting()
        if reportDeadline == nil {
            reportDeadline = Clock.now() + UInt64(runner.reportDeadlineSeconds * 1e9)
        }
    }

    /// True once reporting began and its deadline passed.
    private var reportDeadlinePassed: Bool {
        guard let reportDeadline else { return false }
        return Clock.now() >= reportDeadline
    }

    /// A new step of the job (not a pipeline phase).
    private func enter(_ step: String) {
        control.phase = step
        logger.info("job phase", ids.merging(["phase": .string(step),
                                              "elapsed_ms": .int(Int64(Clock.ms(started, Clock.now()).rounded()))]) { a, _ in a })
        observer(.phase(step))
    }

    /// A pipeline phase reported by the child.
    private func pipelinePhase(_ phase: String) {
        let step = FailureReason.stepPhase(phase)
        guard ["parsing", "layering", "preview"].contains(step) else { return }
        control.phase = step
        currentStep = step
        heartbeat.setPhase(step)
        progress.step(step, progress: Self.progressValue[phase] ?? 0)
        logger.info("job phase", ids.merging(["phase": .string(phase),
                                              "elapsed_ms": .int(Int64(Clock.ms(started, Clock.now()).rounded()))]) { a, _ in a })
        observer(.phase(phase))
    }

    private func observer(_ event: JobRunner.Event) {
        runner.observer?(event)
    }

    private func completionClient(_ url: String) -> CompletionClient {
        CompletionClient(url: url, authHeaders: config.completionHeaders, workerId: config.workerId, http: runner.http, logger: logger,
                         requestTimeout: min(30, max(2, config.leaseSeconds / 2)))
    }

    /// Deletes this attempt's outputs (best effort). Once a `ready` report was sent, only with
    /// `force` or when called after an answer proving they are not referenced.
    private func deleteOutputs(force: Bool = false) {
        guard !uploaded.isEmpty else { return }
        if completionSent && !force {
            // A report may have been recorded without its answer reaching us: the outputs may be
            // the version's current ones. They sit under this attempt's own prefix, so leaving
            // them harms nothing.
            logger.warn("outputs left in place: the completion state is unknown",
                        ids.merging(["prefix": .string(job.outputPrefix)]) { a, _ in a })
            return
        }
        for key in uploaded.reversed() {
            do { try outputStore.delete(key) } catch {
                logger.warn("cannot delete an output", ids.merging(["key": .string(key), "error": .string(error.description)]) { a, _ in a })
            }
        }
        logger.info("outputs deleted", ids.merging(["count": .int(Int64(uploaded.count)), "prefix": .string(job.outputPrefix)]) { a, _ in a })
        uploaded = []
    }

    /// Opens the job's connection, retrying while the lease lives and nobody asked to stop.
    private func openConnection(_ url: String) -> PGConnection? {
        var delay = 0.25
        while true {
            do {
                return try PGConnection(url: url, applicationName: "transcode-worker job",
                                        statementTimeoutSeconds: max(5, Int(config.leaseSeconds / 2)))
            } catch {
                logger.warn("database connection failed", ids.merging(["error": .string(error.description)]) { a, _ in a })
                guard error.isRetryable, heartbeat.leaseAlive, control.stopReason == nil else { return nil }
            }
            pause(delay)
            delay = min(4, delay * 2)
        }
    }

    /// Runs `body` on the job's store, retrying retryable database errors with backoff while the
    /// lease lives, no shutdown was requested and (once reporting) the report deadline has not
    /// passed.
    private func database<T>(_ what: String, _ body: (QueueStore) throws(DatabaseError) -> T) -> Result<T, DatabaseError> {
        var delay = 0.25
        while true {
            let result = locked(body)
            switch result {
            case .success:
                return result
            case .failure(let error):
                logger.warn("database call failed", ids.merging(["call": .string(what), "error": .string(error.description)]) { a, _ in a })
                guard error.isRetryable, heartbeat.leaseAlive, !heartbeat.leaseLostSeen, !control.shutdownRequested,
                      !reportDeadlinePassed else { return result }
            }
            pause(delay)
            delay = min(4, delay * 2)
        }
    }

    /// One call on the job's store, holding the connection against the progress sender.
    private func locked<T>(_ body: (QueueStore) throws(DatabaseError) -> T) -> Result<T, DatabaseError> {
        storeLock.lock()
        defer { storeLock.unlock() }
        do {
            return .success(try body(store))
        } catch {
            return .failure(error)
        }
    }

    /// Sleeps `s` seconds (at most 60), waking early once a shutdown is requested.
    private func pause(_ s: Double) {
        let until = Clock.now() + UInt64(max(0, min(s, 60)) * 1e9)
        while !control.shutdownRequested {
            let now = Clock.now()
            guard now < until else { return }
            usleep(UInt32(min(0.1, Double(until - now) / 1e9) * 1e6) + 1)
        }
    }

    /// Progress of the whole job when a pipeline phase starts.
    static let progressValue: [String: Double] = [
        "parsing": 0.1, "layering": 0.4, "writing": 0.55, "preview": 0.7, "manifest": 0.85,
    ]

    /// Pipeline phase timings folded onto the contract's steps.
    static func stepTimings(_ phases: [String: Double]) -> [String: Double] {
        var out: [String: Double] = [:]
        for (phase, ms) in phases {
            out[FailureReason.stepPhase(phase), default: 0] += ms
        }
        return out
    }

    static func contentType(_ path: String) -> String {
        let lower = path.lowercased()
        if lower.hasSuffix(".glb") { return "model/gltf-binary" }
        if lower.hasSuffix(".webp") { return "image/webp" }
        if lower.hasSuffix(".json") { return "application/json" }
        if lower.hasSuffix(".html") { return "text/html; charset=utf-8" }
        return "application/octet-stream"
    }

    /// The last segment of a key.
    static func fileName(_ key: String, fallback: String) -> String {
        let name = key.split(separator: "/").last.map(String.init) ?? ""
        return name.isEmpty ? fallback : name
    }

    /// `a/b/` for `a/b/c.usdz`, `""` for `c.usdz`.
    static func directory(of key: String) -> String {
        guard let slash = key.lastIndex(of: "/") else { return "" }
        return String(key[...slash])
    }

    static func seconds(_ v: Double) -> String {
        v == v.rounded() ? String(Int(v)) : String(v)
    }
}
