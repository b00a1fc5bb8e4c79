import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The server's book of open connections: an absolute deadline per request, and a reserve of
/// connections for the probes when every ordinary connection is taken.
///
/// Each connection gets a deadline when it opens, and a fresh one each time a request on it
/// completes: the next request (its line, headers and body, the handler and the answer) must be
/// done by then. A client that trickles a byte now and then is not idle, so the idle timeout never
/// ends it; at its deadline a thread of the guard shuts its socket down (`shutdown(2)`, both
/// ways), which ends the connection as if the client had gone.
///
/// Connections beyond `generalLimit` (libmicrohttpd accepts `HTTPServer.probeReserve` more) go
/// to the reserve: such a
/// connection is answered only for the probe paths (anything else gets 503 `HTTP_BUSY`), is
/// closed after its answer, and has the short `reserveDeadlineSeconds`. One client address holds
/// at most `reservePerAddress` of them; more are shut down at once. So a client that holds every
/// ordinary connection, idle or trickling, cannot keep `/livez` from answering.
///
/// The socket of a connection is closed by libmicrohttpd only after it reported the connection
/// closed (`closed`), and the guard shuts sockets down under the same lock, so it never touches
/// a descriptor that was reused. Thread-safe.
final class HTTPConnectionGuard: @unchecked Sendable {
    /// One open connection.
    struct Record {
        var fd: Int32
        var address: String
        var deadline: Double
        var reserve: Bool
        var cut = false
    }

    let generalLimit: Int
    let reservePerAddress: Int
    let requestDeadlineSeconds: Double
    let reserveDeadlineSeconds: Double

    private let cond = NSCondition()
    private var records: [OpaquePointer: Record] = [:]
    private var stopping = false
    private var cuts = 0
    private var refusals = 0
    private var reserved = 0

    init(generalLimit: Int, reservePerAddress: Int, requestDeadlineSeconds: Double, reserveDeadlineSeconds: Double) {
        self.generalLimit = generalLimit
        self.reservePerAddress = reservePerAddress
        self.requestDeadlineSeconds = requestDeadlineSeconds
        self.reserveDeadlineSeconds = min(reserveDeadlineSeconds, requestDeadlineSeconds)
    }

    /// Starts the thread that cuts connections at their deadline.
    func start() {
        Thread.detachNewThread { [self] in watch() }
    }

    /// Stops that thread (the connections are libmicrohttpd's to close).
    func stop() {
        cond.lock()
        stopping = true
        cond.broadcast()
        cond.unlock()
    }

    /// Connections open now (the reserve's included).
    var openConnections: Int { cond.withLock { records.count } }
    /// Connections shut down at their deadline so far.
    var deadlineCuts: Int { cond.withLock { cuts } }
    /// Connections refused the reserve (their address held its share already) so far.
    var reserveRefusals: Int { cond.withLock { refusals } }
    /// Connections that went to the reserve so far.
    var reserveConnections: Int { cond.withLock { reserved } }

    /// Records a connection libmicrohttpd accepted; one beyond `generalLimit` goes to the reserve.
    func opened(_ connection: OpaquePointer, fd: Int32, address: String) {
        cond.lock()
        defer { cond.unlock() }
        let now = Self.now()
        let general = records.values.filter { !$0.reserve }.count
        var record = Record(fd: fd, address: address, deadline: now + requestDeadlineSeconds, reserve: false)
        if general >= generalLimit {
            record.reserve = true
            record.deadline = now + reserveDeadlineSeconds
            reserved += 1
            let sameAddress = records.values.filter { $0.reserve && $0.address == address }.count
            if sameAddress >= reservePerAddress {
                shutdown(fd, Int32(SHUT_RDWR))
                record.cut = true
                refusals += 1
            }
        }
        records[connection] = record
        cond.broadcast()
    }

    /// Forgets a connection (libmicrohttpd closes its socket next).
    func closed(_ connection: OpaquePointer) {
        cond.lock()
        records[connection] = nil
        cond.unlock()
    }

    /// A request on `connection` was answered: the next one has a full deadline again.
    func requestCompleted(_ connection: OpaquePointer) {
        cond.lock()
        defer { cond.unlock() }
        guard var record = records[connection], !record.reserve, !record.cut else { return }
        record.deadline = Self.now() + requestDeadlineSeconds
        records[connection] = record
    }

    /// True when `connection` is one of the reserve's.
    func isReserve(_ connection: OpaquePointer) -> Bool {
        cond.withLock { records[connection]?.reserve ?? false }
    }

    /// Shuts down every connection past its deadline, then sleeps until the next deadline (or a
    /// new connection, or `stop`).
    private func watch() {
        cond.lock()
        defer { cond.unlock() }
        while !stopping {
            let now = Self.now()
            var next = now + 3600
            for (key, record) in records where !record.cut {
                if record.deadline <= now {
                    shutdown(record.fd, Int32(SHUT_RDWR))
                    records[key]?.cut = true
                    cuts += 1
                } else {
                    next = min(next, record.deadline)
                }
            }
            _ = cond.wait(until: Date(timeIntervalSinceNow: max(0.01, next - now)))
        }
    }
}

extension HTTPConnectionGuard {
    /// A monotonic clock, seconds.
    static func now() -> Double { ProcessInfo.processInfo.systemUptime }

    /// The dotted IPv4 (or IPv6) text of a client address.
    static func text(of address: UnsafePointer<sockaddr>?) -> String {
        guard let address else { return "?" }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            var a = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
            inet_ntop(AF_INET, &a, &buffer, socklen_t(buffer.count))
        case AF_INET6:
            var a = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
            inet_ntop(AF_INET6, &a, &buffer, socklen_t(buffer.count))
        default:
            return "?"
        }
        return String(cString: buffer)
    }
}
