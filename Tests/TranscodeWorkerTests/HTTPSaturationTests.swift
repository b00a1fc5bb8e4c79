import Foundation
import Testing
import TestSupport
@testable import TranscodeWorker
@testable import ObjectStorage
@testable import PGQueue
@testable import WorkerHTTP
@testable import WorkerRuntime

#if canImport(Glibc)
import Glibc
@testable import WorkerCore
#endif

@Suite("HTTP server under saturation: request deadline, probe reserve, shared metrics sample", .serialized)
struct HTTPSaturationTests {
    static let logger = JSONLogger(workerId: "http-saturation-test", minimum: .error, fd: TestOutput.logFD)

    /// Waits (at most 10 s) until the server has `n` connections open.
    static func waitForOpen(_ server: HTTPServer, _ n: Int) -> Bool {
        for _ in 0..<200 {
            if server.connections.openConnections >= n { return true }
            usleep(50_000)
        }
        return false
    }

    @Test func aTricklingClientIsCutAtTheRequestDeadline() throws {
        let server = try HTTPServer(address: "127.0.0.1:0", requestDeadlineSeconds: 1) { _ in .json(200, .object([:])) }
        defer { server.stop() }
        let client = try #require(LoopbackClient(port: server.port))
        #expect(client.send("GET /livez HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Trickle: "))
        // One byte every 0.1 s: never idle for the 10 s idle timeout, so only the deadline ends it.
        let start = Clock.seconds()
        var sent = 0
        while sent < 300, client.send("a"), !client.isClosed {
            sent += 1
            usleep(100_000)
        }
        let elapsed = Clock.seconds() - start
        #expect(client.isClosed || !client.send("a"), "still open after \(sent) bytes in \(elapsed) s")
        #expect(sent < 300, "the connection outlived 300 trickled bytes")
        #expect(server.connections.deadlineCuts == 1)
        // Requests that finish in time are served as before, on new connections and on kept ones.
        let fresh = try #require(LoopbackClient(port: server.port))
        #expect(fresh.get("/livez")?.status == 200)
        #expect(fresh.get("/livez")?.status == 200)
    }

    @Test func keptAliveConnectionsGetAFreshDeadlinePerRequest() throws {
        let server = try HTTPServer(address: "127.0.0.1:0", requestDeadlineSeconds: 1) { _ in .json(200, .object([:])) }
        defer { server.stop() }
        let client = try #require(LoopbackClient(port: server.port))
        // Six requests 0.4 s apart: 2.4 s in all on one connection, each well within its deadline.
        for _ in 0..<6 {
            #expect(client.get("/livez")?.status == 200)
            usleep(400_000)
        }
        #expect(server.connections.deadlineCuts == 0)
    }

    @Test func probesAnswerWhileEveryConnectionIsHeld() throws {
        let release = DispatchSemaphore(value: 0)
        let server = try HTTPServer(address: "127.0.0.1:0", perIPConnectionLimit: 16, requestDeadlineSeconds: 600,
                                    probePaths: WorkerAPI.probePaths) { request in
            if request.path == "/v1/slow" { release.wait() }
            return .json(200, .object(["path": .string(request.path)]))
        }
        defer {
            for _ in 0..<64 { release.signal() }
            server.stop()
        }
        // 64 connections from four addresses (16 each, the per-address limit): half trickle a
        // request that never ends, half wait in a handler that never returns.
        var held: [LoopbackClient] = []
        for a in 1...4 {
            for i in 0..<16 {
                let c = try #require(LoopbackClient(port: server.port, from: "127.0.0.\(a)"))
                #expect(c.send(i % 2 == 0 ? "GET /v1/versions HTTP/1.1\r\nHost: x\r\n" : "GET /v1/slow HTTP/1.1\r\nHost: x\r\n\r\n"))
                held.append(c)
            }
        }
        #expect(Self.waitForOpen(server, 64))
        // Probes from other addresses are answered, one after another, on the reserve.
        for i in 0..<10 {
            let probe = try #require(LoopbackClient(port: server.port, from: "127.0.1.\(i + 1)"))
            #expect(probe.get(i % 2 == 0 ? "/livez" : "/readyz")?.status == 200)
        }
        #expect(server.connections.reserveConnections >= 10)
        // Anything else there is refused with 503 HTTP_BUSY, not served.
        let other = try #require(LoopbackClient(port: server.port, from: "127.0.2.1"))
        let busy = other.get("/v1/versions/x")
        #expect(busy?.status == 503)
        #expect(busy?.body.contains("HTTP_BUSY") == true)
        // The held connections are still open.
        #expect(held.filter(\.isClosed).isEmpty)
    }

    @Test func oneAddressGetsTwoReserveConnectionsAtMost() throws {
        let server = try HTTPServer(address: "127.0.0.1:0", perIPConnectionLimit: 16, requestDeadlineSeconds: 600,
                                    probePaths: ["/livez"]) { _ in .json(200, .object([:])) }
        defer { server.stop() }
        var held = try (1...4).flatMap { a in
            try (0..<16).map { _ in try #require(LoopbackClient(port: server.port, from: "127.0.0.\(a)")) }
        }
        for c in held { _ = c.send("GET /livez HTTP/1.1\r\n") }
        #expect(Self.waitForOpen(server, 64))
        // Three half-sent requests from one address: the third is shut down at once.
        var hogs: [LoopbackClient] = []
        for _ in 0..<3 {
            let h = try #require(LoopbackClient(port: server.port, from: "127.0.3.1"))
            _ = h.send("GET /livez HTTP/1.1\r\n")
            hogs.append(h)
            for _ in 0..<200 where server.connections.reserveConnections < hogs.count { usleep(10_000) }
        }
        #expect(server.connections.reserveConnections == 3)
        #expect(server.connections.reserveRefusals == 1)
        usleep(100_000)
        // Within their 2 s the first two are still open; the third is gone.
        #expect(hogs.map(\.isClosed) == [false, false, true])
        // Another address still gets its probe answered.
        #expect(LoopbackClient(port: server.port, from: "127.0.3.2")?.get("/livez")?.status == 200)
        held.removeAll()
    }

    @Test func concurrentScrapesShareOneQueueSample() throws {
        let samples = ManualClock()
        let api = WorkerAPI(databaseURL: nil, apiToken: nil, metrics: Metrics(), logger: Self.logger, readinessCheck: { true },
                            metricsIntervalSeconds: 60,
                            queueSample: {
                                _ = samples.countCheck()
                                usleep(200_000)
                                return QueueStatus(counts: ["queued": 7], waiting: 7, reprocessWaiting: 0, inFlight: 0,
                                                   expiredLeases: 0, oldestQueuedSeconds: 3, leases: [], recentFailures: [],
                                                   failureWindowHours: 24, demand: 7)
                            }, isDraining: { false })
        let server = try HTTPServer(address: "127.0.0.1:0", handler: api.handle)
        defer { server.stop(); api.close() }
        let scrapes = DispatchGroup()
        let bodies = StatusList()
        for _ in 0..<16 {
            scrapes.enter()
            Thread.detachNewThread {
                let r = try? HTTPClient().send(HTTPRequest(method: "GET", url: server.url("/metrics"), timeout: 10))
                bodies.append(r.map { String(decoding: $0.body, as: UTF8.self).contains("transcode_queue_depth{status=\"queued\"} 7") ? 1 : 0 } ?? -1)
                scrapes.leave()
            }
        }
        #expect(scrapes.wait(timeout: .now() + 30) == .success)
        #expect(bodies.values == Array(repeating: 1, count: 16), "every scrape shows the sample")
        #expect(samples.checkCount == 1, "16 concurrent scrapes, \(samples.checkCount) samples")
        #expect(api.queueSamplesStarted == 1)
        for _ in 0..<20 { #expect(try HTTPClient().send(HTTPRequest(method: "GET", url: server.url("/metrics"))).status == 200) }
        #expect(samples.checkCount == 1, "later scrapes within the interval reuse it")
    }

    @Test func theQueueSampleIsRefreshedOncePerInterval() {
        let clock = ManualClock()
        let refresh = SharedRefresh<Int>(intervalSeconds: 5, waitSeconds: 2, now: { clock.now }) { clock.countCheck() }
        for _ in 0..<200 { #expect(refresh.value() == 1) }
        clock.advance(4.9)
        for _ in 0..<200 { _ = refresh.value() }
        #expect(clock.checkCount == 1)
        clock.advance(0.2)
        for _ in 0..<200 { #expect(refresh.value() == 2) }
        #expect(refresh.computationsStarted == 2)
    }

    @Test func aMetricsTokenIsAskedForWhenSet() throws {
        let token = "metrics-token-for-tests-0123456789abcdef"
        let api = WorkerAPI(databaseURL: nil, apiToken: nil, metrics: Metrics(), logger: Self.logger, readinessCheck: { true },
                            metricsToken: token, queueSample: { nil }, isDraining: { false })
        let server = try HTTPServer(address: "127.0.0.1:0", handler: api.handle)
        defer { server.stop(); api.close() }
        func scrape(_ auth: String?) throws -> Int {
            try HTTPClient().send(HTTPRequest(method: "GET", url: server.url("/metrics"),
                                              headers: auth.map { [("Authorization", $0)] } ?? [])).status
        }
        #expect(try scrape(nil) == 401)
        #expect(try scrape("Bearer " + token.dropLast()) == 401)
        #expect(try scrape("Bearer " + token + "x") == 401)
        #expect(try scrape("Basic " + token) == 401)
        #expect(try scrape("Bearer " + token) == 200)
        // The probes never ask for it.
        #expect(try HTTPClient().send(HTTPRequest(method: "GET", url: server.url("/livez"))).status == 200)
    }

    @Test func theNewSettingsAreParsedAndChecked() throws {
        let config = WorkerConfig(environment: ["TRANSCODE_HTTP_REQUEST_DEADLINE_SECONDS": "12",
                                                "TRANSCODE_METRICS_INTERVAL_SECONDS": "15"])
        try config.validate()
        #expect(config.http.requestDeadlineSeconds == 12 && config.http.metricsIntervalSeconds == 15)
        #expect(WorkerConfig(environment: [:]).http == HTTPSettings())
        for bad in ["0", "0.5", "3601", "soon"] {
            #expect(throws: UsageError.self) { try WorkerConfig(environment: ["TRANSCODE_HTTP_REQUEST_DEADLINE_SECONDS": bad]).validate() }
            #expect(throws: UsageError.self) { try WorkerConfig(environment: ["TRANSCODE_METRICS_INTERVAL_SECONDS": bad]).validate() }
        }
        #expect(throws: UsageError.self) { try WorkerConfig(environment: ["TRANSCODE_METRICS_TOKEN": "short"]).validate() }
        #expect(throws: UsageError.self) { _ = try RunCommand(["--database-url", "postgresql://h/db", "--metrics-token", "x"]) }
        let strong = String(repeating: "k", count: 40)
        #expect(WorkerConfig(environment: ["TRANSCODE_METRICS_TOKEN": strong]).http.metricsToken == strong)
        #expect(WorkerConfig.unknownVariables(["TRANSCODE_METRICS_TOKEN": strong, "TRANSCODE_METRICS_TOKEN_FILE": "/x"]).isEmpty)
    }
}

@Suite("/metrics on a database: its own connection", .enabled(if: postgresConfigured), .serialized)
struct MetricsConnectionTests {
    @Test func metricsAnswerWhileTheAPIConnectionIsHeld() throws {
        let db = try TestDatabase()
        defer { db.drop() }
        let api = WorkerAPI(databaseURL: db.url, apiToken: nil, metrics: Metrics(), logger: HTTPSaturationTests.logger,
                            readinessCheck: { true }, isDraining: { false })
        let server = try HTTPServer(address: "127.0.0.1:0", handler: api.handle)
        let entered = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        defer { release.signal(); server.stop(); api.close() }
        // An API request holds the API's database session (as a slow /v1 call would).
        Thread.detachNewThread {
            _ = try? api.withDatabase { (_) throws(DatabaseError) in entered.signal(); release.wait() }
        }
        #expect(entered.wait(timeout: .now() + 30) == .success)
        let r = try HTTPClient().send(HTTPRequest(method: "GET", url: server.url("/metrics"), timeout: 20))
        #expect(r.status == 200)
        #expect(String(decoding: r.body, as: UTF8.self).contains("transcode_queue_depth{status=\"queued\"} 0"))
        #expect(api.queueSamplesStarted == 1)
        // The sample ran on a session of its own, named for it.
        let c = try db.connect()
        defer { c.close() }
        let rows = try c.query("SELECT count(*) FROM pg_stat_activity WHERE application_name = 'transcode-worker-metrics'")
        #expect(rows.first?["count"] == "1")
    }
}
