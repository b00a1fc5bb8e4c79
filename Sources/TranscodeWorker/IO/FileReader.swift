#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads whole files into memory with a size cap, without intermediate copies.
public enum FileReader {
    /// An IO failure with a stable code (`IO_NOT_FOUND`, `IO_READ_FAILED`, `IO_TOO_LARGE`).
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public var code: String
        public var message: String
        public var description: String { "\(code): \(message)" }
    }

    /// The bytes of the file at `path`. Throws `IO_TOO_LARGE` when it exceeds `maxBytes`.
    public static func read(_ path: String, maxBytes: Int) throws -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let e = errno
            throw Failure(code: e == ENOENT ? "IO_NOT_FOUND" : "IO_READ_FAILED",
                          message: "cannot open \(path): \(String(cString: strerror(e)))")
        }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            throw Failure(code: "IO_READ_FAILED", message: "cannot stat \(path): \(String(cString: strerror(errno)))")
        }
        guard (st.st_mode & S_IFMT) == S_IFREG else {
            throw Failure(code: "IO_READ_FAILED", message: "\(path) is not a regular file")
        }
        let size = Int(st.st_size)
        guard size <= maxBytes else {
            throw Failure(code: "IO_TOO_LARGE", message: "\(path) is \(size) bytes; the limit is \(maxBytes) bytes")
        }
        var failure: Failure?
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { buf, count in
            var done = 0
            while done < size {
                let n = Glibc.read(fd, buf.baseAddress! + done, size - done)
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = Failure(code: "IO_READ_FAILED", message: "read \(path): \(String(cString: strerror(errno)))")
                    break
                }
                if n == 0 { break }
                done += n
            }
            count = done
        }
        if let failure { throw failure }
        guard bytes.count == size else {
            throw Failure(code: "IO_READ_FAILED", message: "\(path) changed size while being read")
        }
        return bytes
    }
}
