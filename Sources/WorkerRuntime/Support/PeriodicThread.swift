import Foundation

/// A thread that runs one body at a fixed interval until asked to stop: the sweeps of `run`. The
/// body is never interrupted; `stop()` makes the wait end at once and no further run start, and a
/// long body can poll `shouldStop` between its steps.
final class PeriodicThread: @unchecked Sendable {
    private let cond = NSCondition()
    private var stopping = false

    /// True once `stop()` was called.
    var shouldStop: Bool {
        cond.lock()
        defer { cond.unlock() }
        return stopping
    }

    /// Starts the thread `name`: `body` runs every `interval` seconds, the first time at once
    /// when `runAtStart` is true, else after the first interval; `finally` runs on the thread when
    /// it ends.
    func start(name: String, interval: Double, runAtStart: Bool, body: @escaping @Sendable () -> Void,
               finally: @escaping @Sendable () -> Void = {}) {
        let t = Thread { [self] in
            defer { finally() }
            if runAtStart && !shouldStop { body() }
            while waitInterval(interval) { body() }
        }
        t.name = name
        t.start()
    }

    /// Ends the wait at once; no run starts after it.
    func stop() {
        cond.lock()
        stopping = true
        cond.broadcast()
        cond.unlock()
    }

    /// Waits `seconds` unless stopped; true when the next run may start.
    private func waitInterval(_ seconds: Double) -> Bool {
        cond.lock()
        defer { cond.unlock() }
        let until = Date().addingTimeInterval(seconds)
        while !stopping && Date() < until { _ = cond.wait(until: until) }
        return !stopping
    }
}
