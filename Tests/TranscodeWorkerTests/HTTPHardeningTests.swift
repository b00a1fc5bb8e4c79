import Foundation
import Testing
import TestSupport
@testable import TranscodeWorker
@testable import ObjectStorage
@testable import WorkerHTTP
@testable import WorkerRuntime

#if canImport(Glibc)
import Glibc
@testable import WorkerCore
#endif

/// A clock and a counter that tests move by hand.
final class ManualClock: @unchecked Sendable {
    private let lock = NSLock()
    private var t = 1000.0
    private var checks = 0
    var now: Double { lock.withLock { t } }
    func advance(_ seconds: Double) { lock.withLock { t += seconds } }
    /// Counts one check and returns the new count.
    func countCheck() -> Int { lock.withLock { checks += 1; return checks } }
    var checkCount: Int { lock.withLock { checks } }
}

@Suite("HTTP server hardening: per-IP limit, cached readiness, independent liveness", .serialized)
struct HTTPHardeningTests {
    static let logger = JSONLogger(workerId: "http-hardening-test", minimum: .error, fd: TestOutput.logFD)

    static func get(_ server: HTTPServer, _ path: String) throws -> HTTPResponse {
        try HTTPClient().send(HTTPRequest(method: "GET", url: server.url(path), timeout: 10))
    }

    @Test func connectionsBeyondThePerIPLimitAreRefused() throws {
        let limit = 4
        let server = try HTTPServer(address: "127.0.0.1:0", perIPConnectionLimit: limit) { _ in .json(200, .object([:])) }
        defer { server.stop() }
        // `limit` keep-alive connections, each answered once and held open.
        var held = try (0..<limit).map { _ in try #require(LoopbackClient(port: server.port)) }
        for c in held { #expect(c.get("/livez")?.status == 200) }
        // More from the same address: closed without an answer.
        var refused = 0
        for _ in 0..<3 {
            if let c = LoopbackClient(port: server.port), c.get("/livez") == nil { refused += 1 }
        }
        #expect(refused == 3)
        // The held connections still work.
        #expect(held[0].get("/livez")?.status == 200)
        // Once one is closed, a new connection is served again.
        held.removeLast()
        var servedAgain = false
        for _ in 0..<50 where !servedAgain {
            if let c = LoopbackClient(port: server.port), c.get("/livez")?.status == 200 { servedAgain = true } else { usleep(100_000) }
        }
        #expect(servedAgain)
        withExtendedLifetime(held) {}
    }

    @Test func theConfiguredPerIPLimitReachesTheServer() throws {
        var config = WorkerConfig(environment: ["TRANSCODE_HTTP_PER_IP_CONNECTIONS": "2"])
        try config.validate()
        #expect(config.httpPerIPConnections == 2)
        #expect(WorkerConfig(environment: [:]).httpPerIPConnections == HTTPServer.defaultPerIPConnectionLimit)
        try config.set("http-per-ip-connections", "1")
        let server = try HTTPServer(address: "127.0.0.1:0", perIPConnectionLimit: config.httpPerIPConnections) { _ in
            .json(200, .object([:]))
        }
        defer { server.stop() }
        let first = try #require(LoopbackClient(port: server.port))
        #expect(first.get("/livez")?.status == 200)
        #expect(LoopbackClient(port: server.port)?.get("/livez") == nil)
    }

    @Test func readinessChecksAreCachedForASecond() {
        let clock = ManualClock()
        let probe = ReadinessProbe(now: { clock.now }) { _ = clock.countCheck(); return true }
        for _ in 0..<500 { #expect(probe.isReady()) }
        #expect(clock.checkCount == 1)
        clock.advance(0.9)
        for _ in 0..<500 { _ = probe.isReady() }
        #expect(clock.checkCount == 1)
        clock.advance(0.2)
        for _ in 0..<500 { _ = probe.isReady() }
        #expect(clock.checkCount == 2)
        #expect(probe.checksStarted == 2)
    }

    @Test func anOutageIsSeenWithinTheCacheInterval() {
        let clock = ManualClock()
        let up = ManualFlag(true)
        let probe = ReadinessProbe(now: { clock.now }) { _ = clock.countCheck(); return up.value }
        #expect(probe.isReady())
        up.value = false
        clock.advance(0.5)
        #expect(probe.isReady(), "still the cached answer")
        clock.advance(0.6)
        #expect(!probe.isReady(), "the outage is seen once the answer is older than a second")
        up.value = true
        clock.advance(1.1)
        #expect(probe.isReady(), "and the recovery too")
        #expect(clock.checkCount == 3)
    }

    @Test func manyProbesOverHTTPShareOneCheckPerSecond() throws {
        let clock = ManualClock()
        let api = WorkerAPI(databaseURL: nil, apiToken: nil, metrics: Metrics(), logger: Self.logger,
                            readinessCheck: { _ = clock.countCheck(); return true }, readinessClock: { clock.now },
                            isDraining: { false })
        let server = try HTTPServer(address: "127.0.0.1:0", handler: api.handle)
        defer { server.stop(); api.close() }
        var answered = 0
        for _ in 0..<300 where try Self.get(server, "/readyz").status == 200 { answered += 1 }
        #expect(answered == 300)
        #expect(clock.checkCount == 1, "300 probes within one second of the API's clock share one check")
        clock.advance(1.1)
        for _ in 0..<300 where try Self.get(server, "/readyz").status == 200 { answered += 1 }
        #expect(answered == 600)
        #expect(clock.checkCount == 2, "and the next second's probes one more")
    }

    @Test func livezAnswersWhileTheDatabaseIsUnreachable() throws {
        let api = WorkerAPI(databaseURL: "postgresql://postgres@127.0.0.1:1/none", apiToken: nil, metrics: Metrics(),
                            logger: Self.logger, isDraining: { false })
        let server = try HTTPServer(address: "127.0.0.1:0", handler: api.handle)
        defer { server.stop(); api.close() }
        #expect(try Self.get(server, "/readyz").status == 503)
        #expect(try Self.get(server, "/livez").status == 200)
    }

    @Test func livezAnswersWhileTheReadinessCheckAndTheJobThreadsAreBlocked() throws {
        let release = DispatchSemaphore(value: 0)
        let entered = ManualClock()
        // The readiness check hangs (a database that accepts and never answers) and the worker's
        // state is locked (every job slot busy holding it).
        let api = WorkerAPI(databaseURL: nil, apiToken: nil, metrics: Metrics(), logger: Self.logger,
                            readinessCheck: { _ = entered.countCheck(); release.wait(); return true },
                            isDraining: { false })
        let locked = WorkerAPI(databaseURL: nil, apiToken: nil, metrics: Metrics(), logger: Self.logger,
                               readinessCheck: { release.wait(); return true },
                               isDraining: { release.wait(); return false })
        let server = try HTTPServer(address: "127.0.0.1:0", handler: api.handle)
        let lockedServer = try HTTPServer(address: "127.0.0.1:0", handler: locked.handle)
        defer {
            for _ in 0..<64 { release.signal() }
            server.stop(); lockedServer.stop(); api.close(); locked.close()
        }
        // Several probes wait for the hung check at once.
        let probes = DispatchGroup(), lockedProbes = DispatchGroup()
        let statuses = StatusList()
        // Threads of their own, so that every probe is in flight at once.
        for _ in 0..<6 {
            probes.enter()
            Thread.detachNewThread {
                statuses.append((try? Self.get(server, "/readyz").status) ?? -1)
                probes.leave()
            }
        }
        for _ in 0..<2 {
            lockedProbes.enter()
            Thread.detachNewThread {
                _ = try? Self.get(lockedServer, "/readyz")
                lockedProbes.leave()
            }
        }
        usleep(200_000)
        #expect(try Self.get(server, "/livez").status == 200)
        #expect(try Self.get(lockedServer, "/livez").status == 200)
        #expect(entered.checkCount == 1, "one check at a time, however many probes wait")
        // The waiting probes give up after the wait bound, while the check still hangs: not ready.
        #expect(probes.wait(timeout: .now() + 30) == .success)
        #expect(statuses.values == Array(repeating: 503, count: 6))
        #expect(entered.checkCount == 1)
        #expect(try Self.get(server, "/livez").status == 200)
        for _ in 0..<8 { release.signal() }
        #expect(lockedProbes.wait(timeout: .now() + 30) == .success)
    }
}

/// A thread-safe Boolean.
final class ManualFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var v: Bool
    init(_ v: Bool) { self.v = v }
    var value: Bool {
        get { lock.withLock { v } }
        set { lock.withLock { v = newValue } }
    }
}

/// A thread-safe list of status codes.
final class StatusList: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [Int] = []
    func append(_ s: Int) { lock.withLock { list.append(s) } }
    var values: [Int] { lock.withLock { list } }
}
