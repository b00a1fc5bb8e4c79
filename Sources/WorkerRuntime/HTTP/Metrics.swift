import Foundation
import PGQueue

/// The worker's Prometheus registry (text exposition format 0.0.4). Thread-safe: the daemon
/// records from its job threads, the HTTP server renders from its own threads.
public final class Metrics: @unchecked Sendable {
    /// Upper bounds of the phase-duration histogram, seconds.
    public static let phaseBuckets: [Double] = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600]
    /// The content type of `render()`.
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    private struct Histogram {
        var buckets = [Int](repeating: 0, count: Metrics.phaseBuckets.count)
        var count = 0
        var sum = 0.0
    }

    private let lock = NSLock()
    private var jobs: [String: [String: Int]] = [:]
    private var phases: [String: Histogram] = [:]
    private var inFlight = 0
    private var retries = 0
    private var leaseLost = 0
    private var queueDepth: [String: Int] = [:]
    private var oldestAge: Double = 0
    private var demand = 0
    private var collectedObjects = 0, collectedBytes = 0, collectFailures = 0
    private var uploadsRequeued = 0, uploadsExpired = 0
    private var deletions: [String: Int] = [:]
    private var deletionObjects = 0, deletionsPending = 0
    private var deletionOldest: Double = 0
    private var orphanObjects: [String: Int] = [:], orphanBytes: [String: Int] = [:]

    public init() {}

    /// Counts a finished job by outcome (`ready`, `failed`, `retried`, `released`, `lease_lost`)
    /// and reason (a failure code, or `none`).
    public func jobFinished(outcome: String, reason: String) {
        lock.lock()
        defer { lock.unlock() }
        jobs[outcome, default: [:]][reason, default: 0] += 1
    }

    /// Records how long one phase of a job took.
    public func observePhase(_ phase: String, seconds: Double) {
        lock.lock()
        defer { lock.unlock() }
        var h = phases[phase] ?? Histogram()
        for (i, bound) in Self.phaseBuckets.enumerated() where seconds <= bound { h.buckets[i] += 1 }
        h.count += 1
        h.sum += max(0, seconds)
        phases[phase] = h
    }

    /// Sets the number of jobs this worker runs now.
    public func setInFlight(_ n: Int) {
        lock.lock()
        inFlight = n
        lock.unlock()
    }

    /// Counts an attempt put back in the queue with backoff.
    public func retried() {
        lock.lock()
        retries += 1
        lock.unlock()
    }

    /// Counts a job whose lease was lost.
    public func leaseWasLost() {
        lock.lock()
        leaseLost += 1
        lock.unlock()
    }

    /// Counts output objects deleted from storage (superseded or abandoned revisions) and
    /// deletes that failed.
    public func outputsCollected(objects: Int, bytes: Int, failures: Int) {
        lock.lock()
        collectedObjects += objects
        collectedBytes += bytes
        collectFailures += failures
        lock.unlock()
    }

    /// Counts `uploading` versions the upload sweep queued (sources found) and failed with
    /// `UPLOAD_EXPIRED`.
    public func uploadsSwept(requeued: Int, expired: Int) {
        lock.lock()
        uploadsRequeued += requeued
        uploadsExpired += expired
        lock.unlock()
    }

    /// Counts what a deletion sweep pass did and samples the queue of deletions.
    public func deletionsSwept(finished: Int, objects: Int, failures: Int, skipped: Int, pending: Int, oldestSeconds: Double) {
        lock.lock()
        deletions["done", default: 0] += finished
        deletions["failed", default: 0] += failures
        deletions["skipped", default: 0] += skipped
        deletionObjects += objects
        deletionsPending = pending
        deletionOldest = oldestSeconds
        lock.unlock()
    }

    /// Counts the objects the orphan sweep found (`dry-run`) or deleted (`on`), and their bytes.
    public func orphansSwept(mode: String, objects: Int, bytes: Int) {
        lock.lock()
        orphanObjects[mode, default: 0] += objects
        orphanBytes[mode, default: 0] += bytes
        lock.unlock()
    }

    /// Stores a queue sample taken at `now` (a monotonic time).
    public func recordQueue(_ status: QueueStatus, now: Double) {
        lock.lock()
        defer { lock.unlock() }
        queueDepth = ["queued": status.counts["queued"] ?? 0, "transcoding": status.counts["transcoding"] ?? 0,
                      "failed": status.counts["failed"] ?? 0]
        oldestAge = status.oldestQueuedSeconds ?? 0
        demand = status.demand
    }

    /// The exposition text.
    public func render() -> String {
        lock.lock()
        defer { lock.unlock() }
        var out = ""
        func header(_ name: String, _ type: String, _ help: String) {
            out += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
        }
        header("transcode_jobs_total", "counter", "Jobs finished by this worker, by outcome and reason.")
        for outcome in jobs.keys.sorted() {
            for (reason, n) in jobs[outcome]!.sorted(by: { $0.key < $1.key }) {
                out += "transcode_jobs_total{outcome=\"\(Self.escape(outcome))\",reason=\"\(Self.escape(reason))\"} \(n)\n"
            }
        }
        header("transcode_phase_duration_seconds", "histogram", "Time spent in each job phase.")
        for phase in phases.keys.sorted() {
            let h = phases[phase]!
            let p = Self.escape(phase)
            for (i, bound) in Self.phaseBuckets.enumerated() {
                out += "transcode_phase_duration_seconds_bucket{phase=\"\(p)\",le=\"\(Self.number(bound))\"} \(h.buckets[i])\n"
            }
            out += "transcode_phase_duration_seconds_bucket{phase=\"\(p)\",le=\"+Inf\"} \(h.count)\n"
            out += "transcode_phase_duration_seconds_sum{phase=\"\(p)\"} \(Self.number(h.sum))\n"
            out += "transcode_phase_duration_seconds_count{phase=\"\(p)\"} \(h.count)\n"
        }
        header("transcode_queue_depth", "gauge", "Versions in the queue by status (sampled from the database).")
        for (status, n) in queueDepth.sorted(by: { $0.key < $1.key }) {
            out += "transcode_queue_depth{status=\"\(status)\"} \(n)\n"
        }
        header("transcode_queue_oldest_age_seconds", "gauge", "Age of the oldest queued version (0 when none).")
        out += "transcode_queue_oldest_age_seconds \(Self.number(oldestAge))\n"
        header("transcode_queue_demand", "gauge",
               "Versions runnable now plus running (sampled from the database); replicas needed = demand / TRANSCODE_CONCURRENCY.")
        out += "transcode_queue_demand \(demand)\n"
        header("transcode_jobs_in_flight", "gauge", "Jobs this worker runs now.")
        out += "transcode_jobs_in_flight \(inFlight)\n"
        header("transcode_retries_total", "counter", "Attempts put back in the queue with backoff.")
        out += "transcode_retries_total \(retries)\n"
        header("transcode_lease_lost_total", "counter", "Jobs stopped because their lease was lost.")
        out += "transcode_lease_lost_total \(leaseLost)\n"
        header("transcode_gc_objects_deleted_total", "counter", "Output objects of superseded or abandoned revisions deleted from storage.")
        out += "transcode_gc_objects_deleted_total \(collectedObjects)\n"
        header("transcode_gc_bytes_deleted_total", "counter", "Bytes of the output objects deleted from storage.")
        out += "transcode_gc_bytes_deleted_total \(collectedBytes)\n"
        header("transcode_gc_failures_total", "counter", "Output objects whose delete or listing failed (retried by the next sweep).")
        out += "transcode_gc_failures_total \(collectFailures)\n"
        header("transcode_uploads_requeued_total", "counter", "Uploading versions queued by the upload sweep (upload-complete never came).")
        out += "transcode_uploads_requeued_total \(uploadsRequeued)\n"
        header("transcode_uploads_expired_total", "counter", "Uploading versions failed with UPLOAD_EXPIRED (sources missing past the expiry).")
        out += "transcode_uploads_expired_total \(uploadsExpired)\n"
        out += renderDeletions()
        return out
    }

    /// A label value with `\`, `"` and newlines escaped.
    static func escape(_ s: String) -> String {
        s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }

    /// A sample value: integers without a fraction, others in shortest round-trip form.
    static func number(_ d: Double) -> String {
        if d.isFinite, d == d.rounded(), abs(d) < 1e15 { return String(Int64(d)) }
        return "\(d)"
    }

    /// The deletion and orphan sweep samples (the caller holds the lock).
    private func renderDeletions() -> String {
        var out = ""
        func header(_ name: String, _ type: String, _ help: String) {
            out += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
        }
        header("transcode_deletions_total", "counter",
               "Deletions of a deleted room's or version's stored objects: done, failed (retried later), skipped (the row exists again).")
        for result in ["done", "failed", "skipped"] {
            out += "transcode_deletions_total{result=\"\(result)\"} \(deletions[result] ?? 0)\n"
        }
        header("transcode_deletion_objects_deleted_total", "counter", "Stored objects of deleted rooms and versions deleted.")
        out += "transcode_deletion_objects_deleted_total \(deletionObjects)\n"
        header("transcode_deletions_pending", "gauge", "Deletions waiting in transcode_private.deletions (sampled each deletion sweep).")
        out += "transcode_deletions_pending \(deletionsPending)\n"
        header("transcode_deletion_oldest_age_seconds", "gauge", "Age of the oldest waiting deletion (0 when none).")
        out += "transcode_deletion_oldest_age_seconds \(Self.number(deletionOldest))\n"
        header("transcode_orphan_objects_total", "counter",
               "Objects under rooms/ with no row past the grace period: found by a dry run (mode dry-run) or deleted (mode on).")
        for mode in ["dry-run", "on"] {
            out += "transcode_orphan_objects_total{mode=\"\(mode)\"} \(orphanObjects[mode] ?? 0)\n"
        }
        header("transcode_orphan_bytes_total", "counter", "Bytes of those objects.")
        for mode in ["dry-run", "on"] {
            out += "transcode_orphan_bytes_total{mode=\"\(mode)\"} \(orphanBytes[mode] ?? 0)\n"
        }
        return out
    }
}
