import CMicroHTTPD
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A small HTTP/1.1 server on libmicrohttpd (the only file that calls it) for probes, metrics and
/// the worker API. libmicrohttpd accepts on its own thread and serves each connection on a thread
/// of its own; the handler is called on those threads, so it must be thread-safe. A handler that
/// blocks holds only its own connection.
///
/// Limits against clients that hold connections open: at most `connectionLimit` connections in
/// all, at most the per-address limit from one IP address, `connectionTimeoutSeconds` of
/// idleness per connection, and an absolute deadline per request (`requestDeadlineSeconds`,
/// whatever the client's pace). Beyond `connectionLimit`, `probeReserve` more connections are
/// accepted for the probe paths only, so probes answer while every ordinary connection is held
/// (`HTTPConnectionGuard`).
///
/// The server binds the listening socket itself (so port 0 gives an ephemeral port, reported by
/// `port`) and hands it to libmicrohttpd. Request bodies are read up to `maxBodyBytes`; a longer
/// body is drained and answered 413 without calling the handler.
public final class HTTPServer: @unchecked Sendable {
    /// The largest request body passed to the handler.
    public static let maxBodyBytes = 16 * 1024
    /// The environment variable holding the default bind address.
    public static let addressVariable = "TRANSCODE_HTTP_ADDR"
    /// The bind address when none is configured.
    public static let defaultAddress = "0.0.0.0:8080"
    /// Open connections the server holds at once, all clients together; more are refused at
    /// accept (closed without an answer).
    public static let connectionLimit = 64
    /// Open connections one client address may hold (`TRANSCODE_HTTP_PER_IP_CONNECTIONS`
    /// default); more from that address are refused at accept.
    public static let defaultPerIPConnectionLimit = 16
    /// Seconds a connection may stay idle (also while a request is half sent) before it is closed.
    public static let connectionTimeoutSeconds = 10
    /// The default absolute deadline of one request, seconds (`TRANSCODE_HTTP_REQUEST_DEADLINE_SECONDS`):
    /// from the connection's start, or the previous answer on it, to the end of the answer.
    public static let defaultRequestDeadlineSeconds = 30.0
    /// Connections accepted beyond `connectionLimit`, for the probe paths only.
    public static let probeReserve = 8
    /// Reserve connections one client address may hold at once.
    public static let probeReservePerAddress = 2
    /// The deadline of a reserve connection, seconds (at most the request deadline).
    public static let probeReserveDeadlineSeconds = 2.0

    /// The bound IPv4 host.
    public let host: String
    /// The bound port (the actual one when 0 was asked for).
    public let port: Int
    let handler: @Sendable (HTTPServerRequest) -> HTTPServerResponse
    /// The paths a reserve connection is answered for (the probes).
    let probePaths: Set<String>
    /// The open connections, their deadlines and the reserve.
    let connections: HTTPConnectionGuard

    private let lock = NSLock()
    private var daemon: OpaquePointer?
    private var listenFD: Int32

    /// The address from `TRANSCODE_HTTP_ADDR`, or `defaultAddress`.
    public static func configuredAddress(_ env: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let v = env[addressVariable], !v.isEmpty { return v }
        return defaultAddress
    }

    /// Splits `HOST:PORT` (IPv4 host, or `localhost`); nil when malformed.
    public static func parse(address: String) -> (host: String, port: UInt16)? {
        guard let colon = address.lastIndex(of: ":") else { return nil }
        var host = String(address[..<colon])
        if host == "localhost" { host = "127.0.0.1" }
        guard let port = UInt16(address[address.index(after: colon)...]) else { return nil }
        var a = in_addr()
        guard inet_pton(AF_INET, host, &a) == 1 else { return nil }
        return (host, port)
    }

    /// Binds `address` (`HOST:PORT`) and starts serving.
    ///
    /// - Parameters:
    ///   - perIPConnectionLimit: open connections one client address may hold (1 to
    ///   `connectionLimit`); connections beyond it are closed at accept.
    ///   - requestDeadlineSeconds: the absolute deadline of one request (see
    ///     `defaultRequestDeadlineSeconds`); a connection past it is shut down.
    ///   - probePaths: the paths answered on the reserve connections (`/livez`, `/readyz`).
    /// - Throws: `HTTPServerError` `HTTP_BAD_ADDRESS`, `HTTP_BIND_FAILED` or `HTTP_START_FAILED`.
    public init(address: String, perIPConnectionLimit: Int = HTTPServer.defaultPerIPConnectionLimit,
                requestDeadlineSeconds: Double = HTTPServer.defaultRequestDeadlineSeconds,
                probePaths: Set<String> = [],
                handler: @escaping @Sendable (HTTPServerRequest) -> HTTPServerResponse) throws(HTTPServerError) {
        guard let (host, wantedPort) = Self.parse(address: address) else {
            throw HTTPServerError(code: .badAddress, message: "expected HOST:PORT with an IPv4 host, got \(address)")
        }
        self.host = host
        self.handler = handler
        self.probePaths = probePaths
        connections = HTTPConnectionGuard(
            generalLimit: Self.connectionLimit, reservePerAddress: Self.probeReservePerAddress,
            requestDeadlineSeconds: max(0.1, requestDeadlineSeconds), reserveDeadlineSeconds: Self.probeReserveDeadlineSeconds)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw HTTPServerError(code: .bindFailed, message: "socket: \(String(cString: strerror(errno)))") }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var sin = sockaddr_in()
        sin.sin_family = sa_family_t(AF_INET)
        sin.sin_port = wantedPort.bigEndian
        inet_pton(AF_INET, host, &sin.sin_addr)
        let bound = withUnsafePointer(to: &sin) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 64) == 0 else {
            let message = String(cString: strerror(errno))
            close(fd)
            throw HTTPServerError(code: .bindFailed, message: "cannot listen on \(address): \(message)")
        }
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &sin) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        port = Int(UInt16(bigEndian: sin.sin_port))
        listenFD = fd

        // A thread per connection (bounded by the connection limits): a slow handler, e.g. one
        // waiting for the database, never holds up the probes of other connections.
        let flags = MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_THREAD_PER_CONNECTION.rawValue
            | MHD_USE_ITC.rawValue | MHD_USE_AUTO.rawValue
        let context = Unmanaged.passUnretained(self).toOpaque()
        func option(_ o: MHD_OPTION) -> Int32 { Int32(bitPattern: o.rawValue) }
        func pointer<F>(_ f: F) -> OpaquePointer { OpaquePointer(unsafeBitCast(f, to: UnsafeRawPointer.self)) }
        var args: [any CVarArg] = []
        args += [option(.LISTEN_SOCKET), fd]
        args += [option(.CONNECTION_TIMEOUT), UInt32(Self.connectionTimeoutSeconds)]
        args += [option(.CONNECTION_LIMIT), UInt32(Self.connectionLimit + Self.probeReserve)]
        args += [option(.PER_IP_CONNECTION_LIMIT), UInt32(min(max(1, perIPConnectionLimit), Self.connectionLimit))]
        args += [option(.NOTIFY_COMPLETED), pointer(Self.completed), OpaquePointer(context)]
        args += [option(.NOTIFY_CONNECTION), pointer(Self.connectionChanged), OpaquePointer(context)]
        args += [option(.END)]
        connections.start()
        daemon = withVaList(args) { va in
            MHD_start_daemon_va(flags, 0, nil, nil, Self.access, context, va)
        }
        guard daemon != nil else {
            connections.stop()
            close(fd)
            listenFD = -1
            throw HTTPServerError(code: .startFailed, message: "libmicrohttpd did not start on \(address)")
        }
    }

    deinit { stop() }

    /// Stops accepting, finishes the requests in progress, joins the threads and closes the
    /// socket (idempotent).
    public func stop() {
        lock.lock()
        defer { lock.unlock() }
        guard let d = daemon else { return }
        let fd = MHD_quiesce_daemon(d)
        MHD_stop_daemon(d)
        connections.stop()
        daemon = nil
        // After quiescing the socket is ours again; without it libmicrohttpd closed it.
        if fd >= 0 { close(fd) }
        listenFD = -1
    }

    /// The URL of `path` on this server (`http://host:port/path`).
    public func url(_ path: String) -> String {
        "http://\(host == "0.0.0.0" ? "127.0.0.1" : host):\(port)\(path)"
    }

    // MARK: - libmicrohttpd callbacks

    /// Body and state of one request, kept in libmicrohttpd's per-request slot.
    final class RequestState {
        var body: [UInt8] = []
        var tooLarge = false
    }

    /// A request ended: its state is released, and the connection's next request gets a fresh
    /// deadline.
    private static let completed: MHD_RequestCompletedCallback = { cls, connection, reqCls, _ in
        if let cls, let connection {
            Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue().connections.requestCompleted(connection)
        }
        guard let reqCls, let state = reqCls.pointee else { return }
        Unmanaged<RequestState>.fromOpaque(state).release()
        reqCls.pointee = nil
    }

    /// A connection was accepted or is about to be closed (its socket is closed after this).
    private static let connectionChanged: MHD_NotifyConnectionCallback = { cls, connection, _, change in
        guard let cls, let connection else { return }
        let guarded = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue().connections
        if change == .CONNECTION_NOTIFY_STARTED {
            guarded.opened(connection, fd: cmhd_connection_fd(connection),
                           address: HTTPConnectionGuard.text(of: cmhd_client_address(connection)))
        } else {
            guarded.closed(connection)
        }
    }

    private static let access: MHD_AccessHandlerCallback = { cls, connection, url, method, _, uploadData, uploadSize, reqCls in
        guard let cls, let connection, let reqCls, let uploadSize else { return MHD_Result.NO }
        let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
        guard let slot = reqCls.pointee else {
            reqCls.pointee = Unmanaged.passRetained(RequestState()).toOpaque()
            return MHD_Result.YES
        }
        let state = Unmanaged<RequestState>.fromOpaque(slot).takeUnretainedValue()
        if uploadSize.pointee > 0 {
            let n = uploadSize.pointee
            if !state.tooLarge, let uploadData {
                if state.body.count + n > maxBodyBytes {
                    state.tooLarge = true
                    state.body = []
                } else {
                    uploadData.withMemoryRebound(to: UInt8.self, capacity: n) {
                        state.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: n))
                    }
                }
            }
            uploadSize.pointee = 0
            return MHD_Result.YES
        }
        let path = url.map { String(cString: $0) } ?? "/"
        let reserve = server.connections.isReserve(connection)
        var response: HTTPServerResponse
        if state.tooLarge {
            response = .json(413, .object(["error": .string("PAYLOAD_TOO_LARGE")]))
        } else if reserve && !server.probePaths.contains(path) {
            // Every ordinary connection is taken: this one is kept for the probes.
            response = .json(503, .object(["error": .string("HTTP_BUSY")]), headers: [("Retry-After", "1")])
        } else {
            let request = HTTPServerRequest(method: method.map { String(cString: $0) } ?? "GET", path: path,
                                            headers: values(connection, .HEADER_KIND, lowercased: true),
                                            query: values(connection, .GET_ARGUMENT_KIND, lowercased: false),
                                            body: state.body)
            response = server.handler(request)
        }
        if reserve { response.headers.append(("Connection", "close")) }
        return send(response, on: connection)
    }

    /// Collects the request's headers (names lower-cased) or its query arguments (decoded by
    /// libmicrohttpd; names as sent). A repeated name keeps its last value.
    private static func values(_ connection: OpaquePointer, _ kind: MHD_ValueKind, lowercased: Bool) -> [String: String] {
        let box = ValueBox(lowercased: lowercased)
        let context = Unmanaged.passUnretained(box).toOpaque()
        _ = MHD_get_connection_values(connection, kind, { cls, _, key, value in
            guard let cls, let key else { return MHD_Result.YES }
            let box = Unmanaged<ValueBox>.fromOpaque(cls).takeUnretainedValue()
            let name = String(cString: key)
            box.values[box.lowercased ? name.lowercased() : name] = value.map { String(cString: $0) } ?? ""
            return MHD_Result.YES
        }, context)
        return box.values
    }

    final class ValueBox {
        let lowercased: Bool
        var values: [String: String] = [:]
        init(lowercased: Bool) { self.lowercased = lowercased }
    }

    private static func send(_ response: HTTPServerResponse, on connection: OpaquePointer) -> MHD_Result {
        var body = response.body
        let r = body.withUnsafeMutableBytes {
            MHD_create_response_from_buffer($0.count, $0.baseAddress, MHD_ResponseMemoryMode.RESPMEM_MUST_COPY)
        }
        guard let r else { return MHD_Result.NO }
        for (name, value) in response.headers { _ = MHD_add_response_header(r, name, value) }
        let result = MHD_queue_response(connection, UInt32(response.status), r)
        MHD_destroy_response(r)
        return result
    }
}
