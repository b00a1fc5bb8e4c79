import Foundation
import WorkerCore

/// A value computed at most once per `intervalSeconds`, whatever the number of callers: never on
/// a caller's thread, never twice at once. Behind `/readyz` (the database check) and `/metrics`
/// (the queue gauges).
///
/// A caller gets the last value while it is younger than `intervalSeconds`. Otherwise it starts a
/// computation (unless one is running, which it joins) on a thread of its own and waits for it at
/// most `waitSeconds`; a computation that has not finished by then gives that caller nil. So
/// concurrent callers share one computation, and one that hangs holds a caller for at most
/// `waitSeconds`. Thread-safe.
final class SharedRefresh<Value: Sendable>: @unchecked Sendable {
    let compute: @Sendable () -> Value
    let intervalSeconds: Double
    let waitSeconds: Double
    let now: @Sendable () -> Double

    private let cond = NSCondition()
    private var last: (value: Value, at: Double)?
    private var running = false
    private var started = 0

    /// - Parameters:
    ///   - compute: called on a background thread, one call at a time.
    ///   - now: the clock, seconds (monotonic; tests pass their own).
    init(intervalSeconds: Double, waitSeconds: Double, now: @escaping @Sendable () -> Double = Clock.seconds,
         compute: @escaping @Sendable () -> Value) {
        self.compute = compute
        self.intervalSeconds = intervalSeconds
        self.waitSeconds = waitSeconds
        self.now = now
    }

    /// How many computations were started so far.
    var computationsStarted: Int {
        cond.lock()
        defer { cond.unlock() }
        return started
    }

    /// The last value when fresh, else the value of a computation that finishes within
    /// `waitSeconds`, else nil.
    func value() -> Value? {
        cond.lock()
        defer { cond.unlock() }
        if let last, now() - last.at < intervalSeconds { return last.value }
        if !running {
            running = true
            started += 1
            Thread.detachNewThread { [self] in
                let value = compute()
                cond.lock()
                last = (value, now())
                running = false
                cond.broadcast()
                cond.unlock()
            }
        }
        let deadline = Date(timeIntervalSinceNow: waitSeconds)
        while running {
            if !cond.wait(until: deadline) { break }
        }
        guard !running, let last else { return nil }
        return last.value
    }
}
