import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A raw TCP client on loopback from a chosen source address (`127.0.0.x`: every address of
/// 127/8 is this machine's, and libmicrohttpd counts each as a client of its own).
final class LoopbackClient {
    let fd: Int32

    /// Connects to 127.0.0.1:`port` from `source`; nil when refused.
    init?(port: Int, from source: String = "127.0.0.1") {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        func address(_ host: String, _ port: Int) -> sockaddr_in {
            var sin = sockaddr_in()
            sin.sin_family = sa_family_t(AF_INET)
            sin.sin_port = UInt16(port).bigEndian
            inet_pton(AF_INET, host, &sin.sin_addr)
            return sin
        }
        var local = address(source, 0), remote = address("127.0.0.1", port)
        let size = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafePointer(to: &local) { l in
            l.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, size) }
        } == 0 && withUnsafePointer(to: &remote) { r in
            r.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, size) }
        } == 0
        var tv = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        if !ok { Glibc.close(fd); return nil }
    }

    deinit { Glibc.close(fd) }

    /// Sends `text`; false when the connection is gone.
    func send(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count
    }

    /// True when the server has closed the connection (end of file or reset), without waiting.
    var isClosed: Bool {
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&pfd, 1, 0) > 0 else { return false }
        var byte: UInt8 = 0
        return recv(fd, &byte, 1, Int32(MSG_PEEK) | Int32(MSG_DONTWAIT)) <= 0
    }

    /// Sends `GET path` and returns the status code and body, or nil when the connection was
    /// closed (or nothing came within 10 s) instead.
    func get(_ path: String, headers: String = "") -> (status: Int, body: String)? {
        guard send("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(headers)\r\n") else { return nil }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { return nil }
            received += buffer[0..<n]
            let text = String(decoding: received, as: UTF8.self)
            guard let end = text.range(of: "\r\n\r\n") else { continue }
            let head = text[..<end.lowerBound].lowercased()
            let length = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
            let body = String(text[end.upperBound...])
            guard body.utf8.count >= length, let status = Int(text.split(separator: " ").dropFirst().first ?? "") else { continue }
            return (status, body)
        }
    }
}
