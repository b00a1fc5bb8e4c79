import Foundation
import JSONCore
import ObjectStorage
import PGQueue
#if canImport(Glibc)
import Glibc
import WorkerCore
#endif

/// Step 2 of an attempt: the conversion in the sandboxed `job-exec` child, and what it reports.
extension JobAttempt {
    func transcode(_ ws: JobWorkspace, inputs: Inputs, previous: Previous? = nil) throws(Interruption) -> ChildReport {
        try checkStop()
        // The job, described once for the child: `in/job.json` (`JobInput`).
        var described = JobInput()
        described.versionId = job.versionId
        described.roomId = job.roomId
        described.usd = (inputs.usd.map { [$0] } ?? []) + inputs.moreUSD
        described.roomPlan = (inputs.json.map { [$0] } ?? []) + inputs.moreJSON
        if inputs.redactions > 0 { described.redactedTextures = ws.redactedDirectory }
        described.redactions = inputs.regions
        described.previous = previous?.pack
        described.options = config.job.applyingRow(planUnits: job.planUnits, planLocale: job.planLocale)
        // Beside the sources, never in the replacement tree (where any file is taken for a texture).
        let document = try written(described.document, to: "job.json", in: ws.inputDirectory, ws)
        let args = ["job-exec", "--job", document, "--out", ws.outputDirectory,
                    "--memory-mb", String(config.childMemoryMB), "--cpu-seconds", String(config.childCPUSeconds),
                    "--parent-pid", String(getpid())]

        if let ids = runner.childSandbox.ids {
            do { try ws.handOver(uid: ids.uid, gid: ids.gid) } catch { throw .failed(error) }
        }
        let child: ChildProcess
        do {
            // A re-transcode's child yields the CPU to fresh uploads from its first instruction.
            var sandbox = runner.childSandbox.forWorkspace(ws)
            if job.isReprocess { sandbox.niceness = config.batchNice }
            // Its temporary files go to its own folder, the only one beside out/ it may write.
            let environment = JobRunner.childEnvironment().filter { !$0.hasPrefix("TMPDIR=") } + ["TMPDIR=" + ws.tempDirectory]
            child = try ChildProcess(executable: runner.childExecutable, arguments: args,
                                     environment: environment, sandbox: sandbox)
        } catch {
            throw .failed(.internalFault(error.description, phase: .parsing))
        }
        let deadline = Clock.now() + UInt64(max(0.001, config.attemptTimeoutSeconds) * 1e9)
        let seen = ChildState()
        let termination = child.supervise(
            interval: 0.2,
            onLine: { line in self.childLine(line, seen: seen, ws) },
            onStderr: { line in self.childStderr(line, pid: child.pid, seen: seen, ws) },
            tick: { self.childTick(seen: seen, deadline: deadline, ws) })
        // The last step reached goes out before anything about the end of the job.
        progress.flushNow()
        logSuppressedLines(seen)
        if let stopCause = seen.stopCause { throw .stopped(stopCause) }
        if seen.diskExceeded {
            throw .failed(ChildOutputs.violation(
                "the job held more than \(config.jobDiskMB) MiB (or \(WorkspaceUsage.maxEntries) entries) in its work directory; the child process was killed",
                phase: currentStep))
        }
        if seen.timedOut {
            throw .failed(FailureReason(
                reason: FailureReason.timeout,
                message: "TIMEOUT: the attempt ran longer than \(Self.seconds(config.attemptTimeoutSeconds)) s; the child process was killed",
                phase: currentStep, isRetryable: true))
        }
        switch (seen.final, termination) {
        case (.error(let code, let message, let phase, let retryable, let errorClass)?, _):
            throw .failed(FailureReason.pipeline(code: code, message: ws.scrub(message), phase: phase, retryable: retryable,
                                                 errorClass: errorClass))
        case (.done(let files, let summary)?, .exited(0)):
            timings.merge(Self.stepTimings(summary?.phaseMilliseconds ?? [:])) { _, b in b }
            return try readReport(ws, files: files, summary: summary, previous: previous)
        case (_, .signaled(let signal)):
            throw .failed(.internalFault("CHILD_CRASHED: child process killed by signal \(signal)", phase: currentStep))
        case (_, .exited(let status)):
            throw .failed(.internalFault("CHILD_CRASHED: child process exited with status \(status) without a result",
                                         phase: currentStep))
        }
    }

    /// What supervising the child collected.
    final class ChildState {
        var final: ChildMessage?
        var stopCause: JobControl.StopReason?
        var timedOut = false
        var diskExceeded = false
        /// Monotonic nanoseconds of the last disk measurement.
        var measuredAt: UInt64 = 0
        var stderrLines = 0
        var unexpectedLines = 0
    }

    /// The most unexpected standard-output lines, and standard-error lines, logged per job (the
    /// rest are counted: a child cannot flood the worker's log).
    static let loggedChildLines = 40

    func childLine(_ line: String, seen: ChildState, _ ws: JobWorkspace) {
        guard let message = ChildMessage(line: line) else {
            seen.unexpectedLines += 1
            guard seen.unexpectedLines <= Self.loggedChildLines else { return }
            logger.warn("unexpected child output", logFields(["line": .string(String(ws.scrub(line).prefix(300)))]))
            return
        }
        switch message {
        case .phase(let p): pipelinePhase(p)
        case .done, .error: seen.final = message
        }
    }

    func childStderr(_ line: String, pid: pid_t, seen: ChildState, _ ws: JobWorkspace) {
        seen.stderrLines += 1
        guard seen.stderrLines <= Self.loggedChildLines, !line.isEmpty else { return }
        logger.warn("child stderr", logFields(["pid": .int(Int64(pid)),
                                                 "line": .string(String(ws.scrub(line).prefix(500)))]))
    }

    /// Called at least every 200 ms while the child runs; true kills it. Measures what the child
    /// holds on disk about once a second.
    func childTick(seen: ChildState, deadline: UInt64, _ ws: JobWorkspace) -> Bool {
        progress.flush()
        if let r = control.stopReason { seen.stopCause = r; return true }
        let now = Clock.now()
        if now >= deadline { seen.timedOut = true; return true }
        if now - seen.measuredAt >= 1_000_000_000 {
            seen.measuredAt = now
            let used = WorkspaceUsage.bytes(below: [ws.outputDirectory, ws.tempDirectory])
            if used.map({ $0 > config.jobDiskMB << 20 }) ?? true { seen.diskExceeded = true; return true }
        }
        return false
    }

    /// One line for the child's lines that were counted but not logged.
    func logSuppressedLines(_ seen: ChildState) {
        let unexpected = max(0, seen.unexpectedLines - Self.loggedChildLines)
        let stderr = max(0, seen.stderrLines - Self.loggedChildLines)
        guard unexpected + stderr > 0 else { return }
        logger.warn("child output not logged", logFields([
            "unexpected_lines": .int(Int64(unexpected)), "stderr_lines": .int(Int64(stderr)),
        ]))
    }

    /// Checks the child's files and reads what the report needs from the manifest.
    func readReport(_ ws: JobWorkspace, files: [ChildMessage.File], summary: JobSummary?,
                    previous: Previous? = nil) throws(Interruption) -> ChildReport {
        guard files.contains(where: { $0.path == OutputName.model }), files.contains(where: { $0.path == OutputName.manifest }) else {
            throw .failed(.internalFault("CHILD_PROTOCOL: the child reported no model.glb or layer_manifest.json", phase: .preview))
        }
        let reported = Set(files.map(\.path))
        // Files the child says it took unchanged from the previous revision.
        let reused = Set((summary?.reused ?? []).filter { reported.contains($0) && $0 != OutputName.manifest })
        // Every reported file is checked and taken in before anything is uploaded (names, links,
        // types, sizes, hashes, content), except reused ones with the hash of what the worker
        // downloaded: they are copied from there.
        let copied = Self.copiedFromPrevious(files, reused: reused, previous: previous)
        // What the report needs comes typed in the summary; it also says what the files must be.
        guard let result = summary else {
            throw .failed(.internalFault("CHILD_PROTOCOL: the child's summary lacks the manifest schema version, layers or thumbnails",
                                         phase: .preview))
        }
        guard result.thumbnails.allSatisfy({ reported.contains($0.path) }) else {
            throw .failed(.internalFault("CHILD_PROTOCOL: the summary names a thumbnail the child did not report", phase: .preview))
        }
        var expected = OutputStructure.Expectations(manifestSchemaVersion: result.manifestSchemaVersion,
                                                    versionId: job.versionId, roomId: job.roomId)
        for t in result.thumbnails { expected.imageSizes[t.path] = (t.width, t.height) }
        let limits = ChildOutputs.limits(config)
        let intake: OutputIntake
        do {
            let outputs = try ChildOutputs(ws, maxFileBytes: limits.file, maxTotalBytes: limits.total, phase: .preview)
            defer { outputs.close() }
            intake = try outputs.validate(files, copied: copied, expected: expected, phase: .preview)
        } catch {
            throw .failed(error)
        }
        return ChildReport(files: files, phaseMilliseconds: result.phaseMilliseconds,
                           manifestSchemaVersion: result.manifestSchemaVersion, layerCount: result.layers,
                           thumbnails: result.thumbnails.map { (job.outputPrefix + $0.path, $0.kind, $0.width, $0.height) },
                           qualityGrade: result.qualityGrade, copied: copied, intake: intake)
    }
}

extension JobAttempt {
    /// The reported files that are copied from the previous revision instead of read from `out/`:
    /// those the child reused whose reported size and SHA-256 are those of the bytes the worker
    /// downloaded itself.
    static func copiedFromPrevious(_ files: [ChildMessage.File], reused: Set<String>, previous: Previous?) -> Set<String> {
        guard let previous else { return [] }
        return Set(files.filter { f in
            reused.contains(f.path) && previous.sha256[f.path] == f.sha256 && previous.bytes[f.path] == f.bytes
        }.map(\.path))
    }
}
