import Dispatch
import Foundation
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

@testable import ObjectStorage

@Suite struct HTTPClientTests {
    /// The error code `send` throws, or nil when it returns a response.
    private func failure(_ client: HTTPClient, _ request: HTTPRequest) -> HTTPClientError? {
        do {
            _ = try client.send(request)
            return nil
        } catch {
            return error
        }
    }

    @Test func postBodyAndHeadersArriveIntact() throws {
        let server = try LoopbackHTTPServer { _ in (201, [("X-Reply", "yes"), ("Content-Type", "application/json")], Array(#"{"ok":true}"#.utf8)) }
        defer { server.stop() }
        // Every byte value, and more than one TCP segment.
        let body = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 8) }
        let request = HTTPRequest(
            method: "POST", url: server.url("/functions/v1/transcode-done?attempt=2"),
            headers: [("Content-Type", "application/json"), ("Authorization", "Bearer s3cr3t"),
                      ("Idempotency-Key", "9b0c:c379fd13"), ("X-Worker-Id", "tw-7f3c2a"),
                      ("Content-Length", "999")],  // ignored: the client sets it from the body
            body: body, timeout: 10)
        let response = try HTTPClient().send(request)
        #expect(response.status == 201)
        #expect(response.isSuccess)
        #expect(response.headers["x-reply"] == "yes")
        #expect(response.headers["content-type"] == "application/json")
        #expect(response.body == Array(#"{"ok":true}"#.utf8))

        let seen = try #require(server.requests.first)
        #expect(server.requestCount == 1)
        #expect(seen.method == "POST")
        #expect(seen.path == "/functions/v1/transcode-done?attempt=2")
        #expect(seen.body == body)
        #expect(seen.headers["authorization"] == "Bearer s3cr3t")
        #expect(seen.headers["idempotency-key"] == "9b0c:c379fd13")
        #expect(seen.headers["x-worker-id"] == "tw-7f3c2a")
        #expect(seen.headers["content-type"] == "application/json")
        #expect(seen.headers["content-length"] == String(body.count))
        #expect(seen.count(of: "Content-Length") == 1)
        #expect(seen.count(of: "Content-Type") == 1)
        #expect(seen.headers["cookie"] == nil)
        #expect(seen.headers["user-agent"] == "transcode-worker")
    }

    @Test func bodyWithoutContentTypeIsOctetStream() throws {
        let server = try LoopbackHTTPServer { _ in (200, [], []) }
        defer { server.stop() }
        _ = try HTTPClient().send(HTTPRequest(method: "PUT", url: server.url("/object/a.glb"), body: [1, 2, 3], timeout: 10))
        _ = try HTTPClient().send(HTTPRequest(method: "POST", url: server.url("/empty"), timeout: 10))
        _ = try HTTPClient().send(HTTPRequest(method: "GET", url: server.url("/get"), timeout: 10))
        let requests = server.requests.sorted { $0.path < $1.path }
        #expect(requests.map(\.path) == ["/empty", "/get", "/object/a.glb"])
        let (empty, get, put) = (requests[0], requests[1], requests[2])
        #expect(put.headers["content-type"] == "application/octet-stream")
        #expect(put.count(of: "Content-Type") == 1)
        #expect(put.headers["content-length"] == "3")
        #expect(put.body == [1, 2, 3])
        #expect(empty.headers["content-length"] == "0")
        #expect(empty.body.isEmpty)
        #expect(get.method == "GET")
        #expect(get.headers["content-length"] == nil)
        #expect(get.headers["content-type"] == nil)
    }

    @Test(arguments: [200, 202, 204, 400, 401, 404, 409, 422, 429, 500, 502, 503])
    func statusCodesArePassedThrough(status: Int) throws {
        let body = status == 204 ? [] : Array("status \(status)".utf8)
        let server = try LoopbackHTTPServer { _ in (status, [], body) }
        defer { server.stop() }
        let response = try HTTPClient().send(HTTPRequest(method: "POST", url: server.url("/x"), body: Array("{}".utf8), timeout: 10))
        #expect(response.status == status)
        #expect(response.body == body)
        #expect(response.isSuccess == (200..<300).contains(status))
    }

    @Test func fiveHundredThenLeaseLostConflict() throws {
        let server = try LoopbackHTTPServer { request in
            request.headers["x-try"] == "1"
                ? (503, [("Retry-After", "1")], Array("busy".utf8))
                : (409, [("Content-Type", "application/json")], Array(#"{"ok":false,"error":"LEASE_LOST"}"#.utf8))
        }
        defer { server.stop() }
        let client = HTTPClient()
        let first = try client.send(HTTPRequest(method: "POST", url: server.url("/done"), headers: [("X-Try", "1")], body: [1], timeout: 10))
        let second = try client.send(HTTPRequest(method: "POST", url: server.url("/done"), headers: [("X-Try", "2")], body: [1], timeout: 10))
        #expect(first.status == 503)
        #expect(first.headers["retry-after"] == "1")
        #expect(second.status == 409)
        #expect(String(decoding: second.body, as: UTF8.self) == #"{"ok":false,"error":"LEASE_LOST"}"#)
        #expect(server.requestCount == 2)
    }

    @Test func redirectsAreNotFollowed() throws {
        let server = try LoopbackHTTPServer { request in
            request.path == "/start" ? (302, [("Location", "/elsewhere")], Array("moved".utf8)) : (200, [], Array("followed".utf8))
        }
        defer { server.stop() }
        let response = try HTTPClient().send(HTTPRequest(method: "GET", url: server.url("/start"), timeout: 10))
        #expect(response.status == 302)
        #expect(response.headers["location"] == "/elsewhere")
        #expect(server.requests.map(\.path) == ["/start"])
    }

    @Test func slowServerTimesOut() throws {
        // The handler answers only once the test lets it, so the client can only have given up by
        // its own timeout; no wall-clock bound is needed to tell.
        let release = DispatchSemaphore(value: 0)
        let answered = NSLock(), state = AnsweredFlag()
        let server = try LoopbackHTTPServer { _ in
            _ = release.wait(timeout: .now() + 300)
            answered.withLock { state.value = true }
            return (200, [], Array("late".utf8))
        }
        let error = failure(HTTPClient(), HTTPRequest(method: "POST", url: server.url("/slow"), body: [1], timeout: 0.5))
        #expect(error?.code == .timeout)
        #expect(error?.isRetryable == true)
        #expect(answered.withLock { !state.value }, "the client returned before the server answered")
        // The handler is still waiting: stopping must not wait for it.
        server.stop()
        #expect(answered.withLock { !state.value }, "stop() waited for the handler")
        release.signal()
    }

    @Test func refusedConnectionIsConnectFailed() throws {
        // A bound socket that does not listen: connecting to its port is refused, and the port
        // cannot be taken by anything else while the test holds it.
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        try #require(bound)
        let port = UInt16(bigEndian: address.sin_port)
        let error = failure(HTTPClient(), HTTPRequest(method: "GET", url: "http://127.0.0.1:\(port)/", timeout: 5))
        #expect(error?.code == .connectFailed)
        #expect(error?.isRetryable == true)
    }

    @Test func responseBodyIsCapped() throws {
        let limit = HTTPClient.defaultMaxResponseBytes
        let server = try LoopbackHTTPServer { request in
            switch request.path {
            case "/exact": (200, [], [UInt8](repeating: 7, count: limit))
            case "/over": (200, [], [UInt8](repeating: 7, count: limit + 1))
            // No Content-Length: the cap has to catch the body while it streams in.
            case "/chunked": (200, [("Transfer-Encoding", "chunked")], [UInt8](repeating: 7, count: 3 * limit))
            default: (200, [], Array("0123456789A".utf8))
            }
        }
        defer { server.stop() }
        let client = HTTPClient()
        #expect(try client.send(HTTPRequest(method: "GET", url: server.url("/exact"), timeout: 10)).body.count == limit)
        let over = failure(client, HTTPRequest(method: "GET", url: server.url("/over"), timeout: 10))
        #expect(over?.code == .responseTooLarge)
        #expect(over?.isRetryable == false)
        #expect(failure(client, HTTPRequest(method: "GET", url: server.url("/chunked"), timeout: 10))?.code == .responseTooLarge)
        let small = HTTPClient(maxResponseBytes: 10)
        #expect(failure(small, HTTPRequest(method: "GET", url: server.url("/eleven"), timeout: 10))?.code == .responseTooLarge)
        #expect(try HTTPClient(maxResponseBytes: 11).send(HTTPRequest(method: "GET", url: server.url("/eleven"), timeout: 10)).body.count == 11)
    }

    @Test func invalidRequestsAreRejectedBeforeSending() {
        let client = HTTPClient()
        for url in ["ftp://127.0.0.1/x", "not a url", "http:///no-host", "/relative", ""] {
            let error = failure(client, HTTPRequest(method: "GET", url: url, timeout: 1))
            #expect(error?.code == .invalidURL, "\(url)")
            #expect(error?.isRetryable == false)
        }
        let injected = failure(client, HTTPRequest(method: "GET", url: "http://127.0.0.1:9/", headers: [("X-A", "b\r\nX-Evil: 1")], timeout: 1))
        #expect(injected?.code == .invalidRequest)
        #expect(failure(client, HTTPRequest(method: "G ET", url: "http://127.0.0.1:9/", timeout: 1))?.code == .invalidRequest)
        #expect(failure(client, HTTPRequest(method: "GET", url: "http://127.0.0.1:9/", timeout: 0))?.code == .invalidRequest)
    }

    @Test func errorMessagesLeaveOutQueriesAndCredentials() throws {
        let server = try LoopbackHTTPServer { _ in
            Thread.sleep(forTimeInterval: 2)
            return (200, [], [])
        }
        let error = failure(HTTPClient(), HTTPRequest(method: "GET", url: server.url("/p?token=s3cr3t"),
                                                      headers: [("Authorization", "Bearer s3cr3t")], timeout: 0.3))
        server.stop()
        let message = try #require(error?.message)
        #expect(message.contains("/p"))
        #expect(!message.contains("s3cr3t"))
    }

    @Test func manyThreadsShareOneClient() throws {
        let server = try LoopbackHTTPServer { request in
            Thread.sleep(forTimeInterval: 0.02)
            return (200, [], request.body.reversed())
        }
        defer { server.stop() }
        let client = HTTPClient()
        let count = 48
        let results = ResultBox(count: count)
        DispatchQueue.concurrentPerform(iterations: count) { i in
            let body = Array("request \(i)".utf8)
            // A generous timeout: the test is about sharing one client, not speed, and a loaded
            // machine may hold a thread off for a while.
            let response = try? client.send(HTTPRequest(method: "POST", url: server.url("/n/\(i)"), body: body, timeout: 300))
            results.set(i, response?.status == 200 && response?.body == body.reversed())
        }
        #expect(results.all { $0 })
        #expect(server.requestCount == count)
        #expect(Set(server.requests.map(\.path)).count == count)
    }
}

/// Per-iteration results written from many threads.
private final class ResultBox: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Bool]
    init(count: Int) { values = Array(repeating: false, count: count) }
    func set(_ index: Int, _ value: Bool) { lock.withLock { values[index] = value } }
    func all(_ predicate: (Bool) -> Bool) -> Bool { lock.withLock { values.allSatisfy(predicate) } }
}

/// A flag shared with a server handler (guarded by the caller's lock).
private final class AnsweredFlag: @unchecked Sendable {
    var value = false
}
