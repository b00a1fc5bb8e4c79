import Foundation
import JSONCore
import ObjectStorage
import PGQueue
#if canImport(Glibc)
import Glibc
import WorkerCore
#endif

/// The helpers every step of an attempt uses: stop checks, phases and progress, the job's database
/// connection, timings and names.
extension JobAttempt {
    /// Throws when someone asked the job to stop.
    func checkStop() throws(Interruption) {
        if let r = control.stopReason { throw .stopped(r) }
    }

    /// Whether a report being retried may go on: the lease lives, no shutdown was requested (even
    /// after another stop reason) and the report deadline has not passed.
    func keepReporting() -> Bool {
        !heartbeat.leaseLostSeen && heartbeat.leaseAlive && !control.shutdownRequested && !reportDeadlinePassed
    }

    /// The job starts reporting its end: the heartbeat stops turning a lost lease into a stop
    /// request, and the report deadline (`JobRunner.reportDeadlineSeconds`) starts.
    func beginReporting() {
        heartbeat.enterReporting()
        if reportDeadline == nil {
            reportDeadline = Clock.now() + UInt64(runner.reportDeadlineSeconds * 1e9)
        }
    }

    /// True once reporting began and its deadline passed.
    var reportDeadlinePassed: Bool {
        guard let reportDeadline else { return false }
        return Clock.now() >= reportDeadline
    }

    /// A new step of the job (not a pipeline phase).
    func enter(_ step: JobStep) {
        control.phase = step.rawValue
        logger.info("job phase", logFields(["phase": .string(step.rawValue),
                                              "elapsed_ms": .int(Int64(Clock.ms(started, Clock.now()).rounded()))]))
        observer(.phase(step.rawValue))
    }

    /// A pipeline phase reported by the child.
    func pipelinePhase(_ phase: JobPhase) {
        let step = JobStep(phase)
        guard [.parsing, .layering, .preview].contains(step) else { return }
        control.phase = step.rawValue
        currentStep = step
        heartbeat.setPhase(step.rawValue)
        progress.step(step.rawValue, progress: phase.progressAtStart)
        logger.info("job phase", logFields(["phase": .string(phase.rawValue),
                                              "elapsed_ms": .int(Int64(Clock.ms(started, Clock.now()).rounded()))]))
        observer(.phase(phase.rawValue))
    }

    func observer(_ event: JobRunner.Event) {
        observe?(event)
    }

    func completionClient(_ url: String) -> CompletionClient {
        CompletionClient(url: url, authHeaders: config.completionHeaders, workerId: config.workerId, http: runner.http, logger: logger,
                         requestTimeout: min(30, max(2, config.leaseSeconds / 2)))
    }

    /// Runs `body` on the job's store, retrying retryable database errors with backoff while the
    /// lease lives, no shutdown was requested and (once reporting) the report deadline has not
    /// passed.
    func database<T>(_ what: String, _ body: (QueueStore) throws(DatabaseError) -> T) -> Result<T, DatabaseError> {
        var delay = 0.25
        while true {
            let result = locked(body)
            switch result {
            case .success:
                return result
            case .failure(let error):
                logger.warn("database call failed", logFields(["call": .string(what), "error": .string(error.description)]))
                guard error.isRetryable, heartbeat.leaseAlive, !heartbeat.leaseLostSeen, !control.shutdownRequested,
                      !reportDeadlinePassed else { return result }
            }
            pause(delay)
            delay = min(4, delay * 2)
        }
    }

    /// One call on the job's store, holding the connection against the progress sender.
    func locked<T>(_ body: (QueueStore) throws(DatabaseError) -> T) -> Result<T, DatabaseError> {
        storeLock.lock()
        defer { storeLock.unlock() }
        do {
            return .success(try body(store))
        } catch {
            return .failure(error)
        }
    }

    /// Sleeps `s` seconds (at most 60), waking early once a shutdown is requested.
    func pause(_ s: Double) {
        Self.pause(s, control: control)
    }

    /// Waits `s` seconds (at most 60), or less when a shutdown is requested on `control`.
    static func pause(_ s: Double, control: JobControl) {
        let until = Clock.now() + UInt64(max(0, min(s, 60)) * 1e9)
        while !control.shutdownRequested {
            let now = Clock.now()
            guard now < until else { return }
            usleep(UInt32(min(0.1, Double(until - now) / 1e9) * 1e6) + 1)
        }
    }

    /// Pipeline phase timings folded onto the contract's steps.
    static func stepTimings(_ phases: [JobPhase: Double]) -> [String: Double] {
        var out: [String: Double] = [:]
        for (phase, ms) in phases {
            out[JobStep(phase).rawValue, default: 0] += ms
        }
        return out
    }

    static func contentType(_ path: String) -> String {
        let lower = path.lowercased()
        if lower.hasSuffix(".glb") { return "model/gltf-binary" }
        if lower.hasSuffix(".webp") { return "image/webp" }
        if lower.hasSuffix(".json") { return "application/json" }
        if lower.hasSuffix(".svg") { return "image/svg+xml" }
        if lower.hasSuffix(".pdf") { return "application/pdf" }
        if lower.hasSuffix(".dxf") { return "image/vnd.dxf" }
        // The report is a page a compromised child could have written: stored as plain text, so
        // that an output bucket served to the public never renders it (the console shows it sandboxed).
        if lower.hasSuffix(".html") { return "text/plain; charset=utf-8" }
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
