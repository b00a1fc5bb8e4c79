import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One request as the loopback server received it.
public struct RecordedRequest: Sendable {
    public var method: String
    /// The request target as sent, query included (`/functions/v1/transcode-done?x=1`).
    public var path: String
    /// Header fields by lower-cased name; repeated fields are joined with `, `.
    public var headers: [String: String]
    /// Every header line in order, names lower-cased (to check that a field is sent once).
    public var headerFields: [(name: String, value: String)]
    public var body: [UInt8]

    /// How many times the header `name` (any case) was sent.
    public func count(of name: String) -> Int {
        let lower = name.lowercased()
        return headerFields.filter { $0.name == lower }.count
    }
}

/// A small HTTP/1.1 server on 127.0.0.1 and an ephemeral port, for tests of HTTP callers.
///
/// Every connection carries one request (`Connection: close`) and gets its own thread, so slow
/// handlers do not hold up other requests. Request bodies need a `Content-Length` (up to 64 MiB);
/// `Expect: 100-continue` is answered. The handler's response gets `Content-Length` and
/// `Connection: close` unless it sets them; a handler header `Transfer-Encoding: chunked` sends the
/// body in chunks instead. Every request is recorded before the handler runs.
///
/// Call `stop()` when done (the accept thread keeps the server alive until then). It returns
/// promptly even while handlers are still running: it closes the listener and shuts down open
/// connections; a handler that finishes later writes into a closed connection harmlessly.
public final class LoopbackHTTPServer: @unchecked Sendable {
    public typealias Response = (status: Int, headers: [(String, String)], body: [UInt8])
    public typealias Handler = @Sendable (RecordedRequest) -> Response

    public struct SetupError: Error, CustomStringConvertible {
        public var description: String
    }

    /// The port the server listens on.
    public let port: UInt16
    /// `http://127.0.0.1:PORT`.
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    private let handler: Handler
    private let listener: Int32
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let acceptorDone = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var recorded: [RecordedRequest] = []
    private var connections: Set<Int32> = []
    private var stopped = false

    private static let maxHeaderBytes = 64 * 1024
    private static let maxBodyBytes = 64 * 1024 * 1024

    /// Starts listening; `handler` runs on a connection thread for every request.
    public init(handler: @escaping Handler) throws {
        self.handler = handler
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SetupError(description: "socket: \(String(cString: strerror(errno)))") }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 128) == 0 else {
            let e = errno
            close(fd)
            throw SetupError(description: "bind/listen: \(String(cString: strerror(e)))")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        var pipeEnds: [Int32] = [-1, -1]
        guard pipe(&pipeEnds) == 0 else {
            close(fd)
            throw SetupError(description: "pipe: \(String(cString: strerror(errno)))")
        }
        _ = fcntl(pipeEnds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(pipeEnds[1], F_SETFD, FD_CLOEXEC)
        listener = fd
        port = UInt16(bigEndian: address.sin_port)
        wakeRead = pipeEnds[0]
        wakeWrite = pipeEnds[1]
        let acceptor = Thread { [self] in acceptLoop() }
        acceptor.name = "loopback-http-accept"
        acceptor.start()
    }

    /// `baseURL + path`.
    public func url(_ path: String) -> String { baseURL + path }

    /// Every request received so far, in arrival order.
    public var requests: [RecordedRequest] { lock.withLock { recorded } }

    /// The number of requests received so far.
    public var requestCount: Int { lock.withLock { recorded.count } }

    /// Stops accepting, shuts down open connections and waits for the accept thread (never for
    /// handlers). Safe to call more than once.
    public func stop() {
        let first: Bool = lock.withLock {
            if stopped { return false }
            stopped = true
            for fd in connections { shutdown(fd, Int32(SHUT_RDWR)) }
            return true
        }
        guard first else { return }
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
        acceptorDone.wait()
        close(listener)
        close(wakeRead)
        close(wakeWrite)
    }

    // MARK: - Accepting

    private func acceptLoop() {
        defer { acceptorDone.signal() }
        while true {
            var fds = [pollfd(fd: listener, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&fds, 2, -1)
            if ready < 0 {
                if errno == EINTR { continue }
                return
            }
            if fds[1].revents != 0 || lock.withLock({ stopped }) { return }
            guard fds[0].revents & Int16(POLLIN) != 0 else { continue }
            let client = accept(listener, nil, nil)
            if client < 0 {
                // Out of descriptors or similar: back off instead of spinning on poll.
                if errno != EINTR && errno != EAGAIN && errno != ECONNABORTED { usleep(10_000) }
                continue
            }
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)
            let accepted: Bool = lock.withLock {
                if stopped { return false }
                connections.insert(client)
                return true
            }
            guard accepted else {
                close(client)
                return
            }
            let worker = Thread { [self] in
                serve(client)
                lock.withLock {
                    connections.remove(client)
                    close(client)
                }
            }
            worker.name = "loopback-http-conn"
            worker.start()
        }
    }

    // MARK: - One connection

    private func serve(_ fd: Int32) {
        setTimeout(fd, SO_RCVTIMEO, seconds: 10)
        setTimeout(fd, SO_SNDTIMEO, seconds: 10)
        var buffer: [UInt8] = []
        var headerEnd: Int?
        while headerEnd == nil {
            guard buffer.count <= Self.maxHeaderBytes, let chunk = receive(fd) else { return }
            buffer += chunk
            headerEnd = Self.find([13, 10, 13, 10], in: buffer)
        }
        let head = String(decoding: buffer[..<headerEnd!], as: UTF8.self)
        var body = Array(buffer[(headerEnd! + 4)...])
        var lines = head.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ", omittingEmptySubsequences: true)
        guard requestLine.count == 3 else { return respond(fd, (400, [], Array("bad request line".utf8)), head: false) }
        var fields: [(name: String, value: String)] = []
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            fields.append((name, value))
            headers[name] = headers[name].map { $0 + ", " + value } ?? value
        }
        if headers["transfer-encoding"] != nil {
            return respond(fd, (501, [], Array("chunked request bodies are not supported".utf8)), head: false)
        }
        let length = Int(headers["content-length"] ?? "0") ?? -1
        guard length >= 0, length <= Self.maxBodyBytes else {
            return respond(fd, (413, [], Array("bad or too large Content-Length".utf8)), head: false)
        }
        if headers["expect"]?.lowercased() == "100-continue", body.count < length {
            sendAll(fd, Array("HTTP/1.1 100 Continue\r\n\r\n".utf8))
        }
        while body.count < length {
            guard let chunk = receive(fd) else { return }
            body += chunk
        }
        if body.count > length { body.removeLast(body.count - length) }
        let request = RecordedRequest(method: String(requestLine[0]), path: String(requestLine[1]),
                                      headers: headers, headerFields: fields, body: body)
        lock.withLock { recorded.append(request) }
        respond(fd, handler(request), head: request.method == "HEAD")
    }

    private func respond(_ fd: Int32, _ response: Response, head: Bool) {
        var headers = response.headers
        let names = Set(headers.map { $0.0.lowercased() })
        let chunked = headers.contains { $0.0.lowercased() == "transfer-encoding" && $0.1.lowercased() == "chunked" }
        if !chunked && !names.contains("content-length") { headers.append(("Content-Length", String(response.body.count))) }
        if !names.contains("connection") { headers.append(("Connection", "close")) }
        var out = "HTTP/1.1 \(response.status) \(Self.reason(response.status))\r\n"
        for (name, value) in headers { out += "\(name): \(value)\r\n" }
        out += "\r\n"
        var bytes = Array(out.utf8)
        if !head {
            if chunked {
                var offset = 0
                while offset < response.body.count {
                    let n = min(4096, response.body.count - offset)
                    bytes += Array((String(n, radix: 16) + "\r\n").utf8) + response.body[offset..<offset + n] + [13, 10]
                    offset += n
                }
                bytes += Array("0\r\n\r\n".utf8)
            } else {
                bytes += response.body
            }
        }
        sendAll(fd, bytes)
        // Half-close, then drain what the client still sends, so closing does not reset the
        // connection before the client has read the response.
        shutdown(fd, Int32(SHUT_WR))
        setTimeout(fd, SO_RCVTIMEO, seconds: 1)
        while receive(fd) != nil {}
    }

    private func receive(_ fd: Int32) -> [UInt8]? {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 { return Array(chunk[..<n]) }
            if n < 0 && errno == EINTR { continue }
            return nil
        }
    }

    private func sendAll(_ fd: Int32, _ bytes: [UInt8]) {
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return }
            sent += n
        }
    }

    private func setTimeout(_ fd: Int32, _ option: Int32, seconds: Int) {
        var value = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, option, &value, socklen_t(MemoryLayout<timeval>.size))
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for i in 0...(haystack.count - needle.count) where haystack[i..<i + needle.count].elementsEqual(needle) {
            return i
        }
        return nil
    }

    private static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 409: "Conflict"
        case 413: "Content Too Large"
        case 422: "Unprocessable Content"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        default: "Status"
        }
    }
}
