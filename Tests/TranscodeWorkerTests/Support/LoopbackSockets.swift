import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A non-blocking socket of `type` bound to 127.0.0.1 on a port the kernel picks: its descriptor
/// and port.
func loopbackSocket(_ type: Int32) throws -> (fd: Int32, port: UInt16) {
    let s = socket(AF_INET, type | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    try #require(s >= 0)
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_addr.s_addr = inet_addr("127.0.0.1")
    addr.sin_port = 0
    let bound = withUnsafePointer(to: &addr) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(s, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    try #require(bound == 0)
    var len = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &addr) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(s, $0, &len) }
    }
    return (s, UInt16(bigEndian: addr.sin_port))
}

/// A TCP listener on 127.0.0.1 (an ephemeral port) that counts the connections waiting.
final class LoopbackListener {
    let fd: Int32
    let port: UInt16

    init() throws {
        (fd, port) = try loopbackSocket(Int32(SOCK_STREAM.rawValue))
        try #require(listen(fd, 8) == 0)
    }

    /// Accepts (and closes) every connection waiting now; returns how many there were.
    func acceptPending() -> Int {
        var n = 0
        while true {
            let c = accept(fd, nil, nil)
            if c < 0 { return n }
            Glibc.close(c)
            n += 1
        }
    }

    func close() { Glibc.close(fd) }
}

/// A UDP socket on 127.0.0.1 (an ephemeral port) that counts the datagrams waiting.
final class LoopbackDatagramReceiver {
    let fd: Int32
    let port: UInt16

    init() throws {
        (fd, port) = try loopbackSocket(Int32(SOCK_DGRAM.rawValue))
    }

    /// Reads every datagram waiting now; returns how many there were.
    func receivePending() -> Int {
        var n = 0
        var byte: UInt8 = 0
        while recv(fd, &byte, 1, 0) >= 0 { n += 1 }
        return n
    }

    func close() { Glibc.close(fd) }
}
