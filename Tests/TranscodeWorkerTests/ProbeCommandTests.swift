import Foundation
import Testing
import TestSupport
@testable import TranscodeWorker
@testable import WorkerRuntime
@testable import WorkerCore

@Suite("probe: the container health check")
struct ProbeCommandTests {
    @Test func exitStatusFollowsTheAnswer() throws {
        let server = try LoopbackHTTPServer { r in
            r.path == "/livez" ? (200, [], Array("{\"status\":\"ok\"}".utf8)) : (503, [], Array("{\"status\":\"draining\"}".utf8))
        }
        defer { server.stop() }
        let addr = "127.0.0.1:\(server.port)"
        #expect(try ProbeCommand(["--http-addr", addr]).run() == 0)
        #expect(try ProbeCommand(["readyz", "--http-addr", addr]).run() == ProbeCommand.unhealthy)
        #expect(server.requests.map(\.path) == ["/livez", "/readyz"])
        #expect(server.requests.allSatisfy { $0.method == "GET" })
        // The address comes from TRANSCODE_HTTP_ADDR; a 0.0.0.0 host is asked on loopback.
        let fromEnv = try ProbeCommand([], environment: ["TRANSCODE_HTTP_ADDR": "0.0.0.0:\(server.port)"])
        #expect(fromEnv.host == "127.0.0.1" && fromEnv.port == server.port)
        #expect(fromEnv.run() == 0)
    }

    @Test func nobodyListeningIsUnhealthyAndBadAddressesAreUsageErrors() throws {
        let closed = try LoopbackHTTPServer { _ in (200, [], []) }
        let port = closed.port
        closed.stop()
        #expect(try ProbeCommand(["--http-addr", "127.0.0.1:\(port)", "--timeout", "2"]).run() == ProbeCommand.unhealthy)
        #expect(throws: UsageError.self) { try ProbeCommand([], environment: ["TRANSCODE_HTTP_ADDR": "off"]) }
        #expect(throws: UsageError.self) { try ProbeCommand(["--http-addr", "127.0.0.1:0"]) }
        #expect(throws: UsageError.self) { try ProbeCommand(["metrics"]) }
        #expect(throws: UsageError.self) { try ProbeCommand(["--timeout", "0"]) }
    }
}
