import Foundation
import WorkerCore

/// Times the phases of one job from its runner's phase events: each phase lasts until the next
/// one begins, or until `end()`, and its duration goes to `Metrics`.
final class PhaseTimer: @unchecked Sendable {
    private let metrics: Metrics
    private let lock = NSLock()
    private var current: (phase: String, since: Double)?

    init(metrics: Metrics) {
        self.metrics = metrics
    }

    /// A phase began (the previous one, if any, ends now).
    func begin(_ phase: String) {
        let now = Clock.seconds()
        lock.lock()
        let previous = current
        current = (phase, now)
        lock.unlock()
        if let previous { metrics.observePhase(previous.phase, seconds: now - previous.since) }
    }

    /// The job ended: the running phase ends now.
    func end() {
        let now = Clock.seconds()
        lock.lock()
        let previous = current
        current = nil
        lock.unlock()
        if let previous { metrics.observePhase(previous.phase, seconds: now - previous.since) }
    }
}
