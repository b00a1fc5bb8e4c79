import Foundation
import TestSupport
import Testing
@testable import WorkerRuntime
@testable import PGQueue

/// How `WorkerDaemon.run` ends: its listener thread has ended before it returns, so no thread is
/// inside libpq or libcrypto when the process exits and their exit handlers run.
@Suite("Daemon shutdown on real Postgres", .enabled(if: postgresConfigured), .serialized)
struct DaemonShutdownTests {
    @Test("run returns only after its listener thread has ended, idle or stopped")
    func listenerEndsBeforeRunReturns() throws {
        let f = try JobFixture()
        var config = f.config
        config.pollSeconds = 0.2
        for _ in 0..<3 {
            let idle = WorkerDaemon(config: config, storage: f.files,
                                    logger: JSONLogger(workerId: "tw-shutdown", minimum: .error, fd: TestOutput.logFD),
                                    exitWhenIdle: true)
            #expect(idle.run() == 0)
            #expect(!idle.isListening)
        }
        let stopped = WorkerDaemon(config: config, storage: f.files,
                                   logger: JSONLogger(workerId: "tw-shutdown", minimum: .error, fd: TestOutput.logFD))
        let exited = DispatchSemaphore(value: 0)
        let ran = Thread { _ = stopped.run(); exited.signal() }
        ran.start()
        // Stopped once its listener is in its wait (or, on a slow machine, whenever it is).
        let end = Date().addingTimeInterval(10)
        while Date() < end, !stopped.isListening { Thread.sleep(forTimeInterval: 0.01) }
        Thread.sleep(forTimeInterval: 0.2)
        stopped.stopNow()
        #expect(exited.wait(timeout: .now() + 30) == .success)
        #expect(!stopped.isListening)
    }

    @Test("a wait for notifications ends when its wake descriptor becomes readable")
    func wakeDescriptorEndsTheWait() throws {
        let db = try TestDatabase()
        defer { db.drop() }
        let c = try db.connect()
        defer { c.close() }
        try c.listen("daemon_shutdown_test")
        let fds = WorkerDaemon.stopPipe()
        #expect(fds[0] >= 0 && fds[1] >= 0)
        defer { for fd in fds { close(fd) } }
        var byte: UInt8 = 1
        #expect(write(fds[1], &byte, 1) == 1)
        // With the byte waiting, an hour's timeout returns at once, with nothing.
        #expect(try c.waitForNotifications(timeout: 3600, wakeFD: fds[0]).isEmpty)
    }
}
