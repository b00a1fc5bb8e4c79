import Foundation
import PGQueue
import WorkerCore

#if canImport(Glibc)
import Glibc
#endif

/// The listener thread and how `run` stops it.
extension WorkerDaemon {
    /// How long `run` waits for the listener thread to end before it returns.
    static let listenerStopSeconds = 5.0

    /// Starts the listener thread, which clears `listenerRunning` when it ends.
    func startListener(url: String) {
        cond.lock()
        listenerRunning = true
        listenerStop = Self.stopPipe()
        cond.unlock()
        let listener = Thread { [self] in
            listenForQueued(url: url)
            cond.lock()
            listenerRunning = false
            cond.broadcast()
            cond.unlock()
        }
        listener.name = "listener"
        listener.start()
    }

    /// Waits until the listener thread has ended, at most `seconds`; whether it has.
    func waitForListener(seconds: Double) -> Bool {
        let until = Date(timeIntervalSinceNow: seconds)
        cond.lock()
        defer { cond.unlock() }
        while listenerRunning {
            if !cond.wait(until: until) { return !listenerRunning }
        }
        return true
    }

    /// Whether the listener thread is running (for tests).
    var isListening: Bool {
        cond.lock()
        defer { cond.unlock() }
        return listenerRunning
    }

    /// The listener thread: LISTEN on its own session; every notification (and every reconnect,
    /// when notifications may have been missed) wakes the dispatcher.
    func listenForQueued(url: String) {
        var conn: PGConnection?
        var backoff = 0.5
        while true {
            cond.lock()
            let keepGoing = listenerShouldRun
            cond.unlock()
            guard keepGoing else { break }
            do {
                if conn == nil {
                    let c = try PGConnection(url: url, applicationName: "transcode-worker-listener", statementTimeoutSeconds: 0)
                    try c.listen(SchemaCatalog.queuedChannel)
                    conn = c
                    wake()
                }
                let got = try conn!.waitForNotifications(timeout: 0.5, wakeFD: listenerStop[0])
                if !got.isEmpty { wake() }
                backoff = 0.5
            } catch {
                logger.warn("listener connection lost; reconnecting", ["error": .string("\(error)"), "retry_in_s": .double(backoff)])
                conn?.close()
                conn = nil
                Thread.sleep(forTimeInterval: backoff)
                backoff = min(backoff * 2, 30)
            }
        }
        conn?.close()
    }

    /// A pipe for `listenerStop`, both ends close-on-exec and the read end non-blocking; [-1, -1]
    /// when none can be made (the listener then stops within its half-second wait).
    static func stopPipe() -> [Int32] {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return [-1, -1] }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        _ = fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK)
        return fds
    }
}
