import USDParse

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

        public init(code: String, message: String) {
            self.code = code
            self.message = message
        }
    }

    /// The bytes of the file at `path`. Throws `IO_TOO_LARGE` when it exceeds `maxBytes`.
    public static func read(_ path: String, maxBytes: Int) throws -> [UInt8] {
        let (fd, size) = try openRegularFile(path, maxBytes: maxBytes)
        defer { close(fd) }
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

    /// Maps the file at `path` read-only into memory (no copy; pages are read on first touch) and
    /// returns a view that unmaps it when the last reference goes. Empty files give an empty view.
    /// Throws like `read`.
    public static func map(_ path: String, maxBytes: Int) throws -> ByteView {
        let (fd, size) = try openRegularFile(path, maxBytes: maxBytes)
        defer { close(fd) }
        if size == 0 { return ByteView([]) }
        guard let p = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), p != MAP_FAILED else {
            throw Failure(code: "IO_READ_FAILED", message: "cannot map \(path): \(String(cString: strerror(errno)))")
        }
        let buffer = UnsafeRawBufferPointer(start: p, count: size)
        let storage = ByteStorage(
            adopting: buffer,
            release: { b in _ = munmap(UnsafeMutableRawPointer(mutating: b.baseAddress), b.count) },
            discard: { range in
                // Whole pages inside the range only; the mapping is private and read-only, so
                // dropped pages are simply read from the file again if touched.
                let page = Int(sysconf(Int32(_SC_PAGESIZE)))
                let start = Int(bitPattern: range.baseAddress!)
                let first = (start + page - 1) / page * page
                let end = (start + range.count) / page * page
                if end > first { _ = madvise(UnsafeMutableRawPointer(bitPattern: first), end - first, MADV_DONTNEED) }
            })
        return ByteView(storage: storage)
    }

    /// Opens `path` read-only and checks it is a regular file of at most `maxBytes`; the caller
    /// closes the descriptor. Opened without blocking, so a FIFO is refused at once instead of
    /// waiting for a writer (reads of a regular file are not affected).
    private static func openRegularFile(_ path: String, maxBytes: Int) throws -> (Int32, Int) {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            let e = errno
            throw Failure(code: e == ENOENT ? "IO_NOT_FOUND" : "IO_READ_FAILED",
                          message: "cannot open \(path): \(String(cString: strerror(e)))")
        }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw Failure(code: "IO_READ_FAILED", message: "\(path) is not a readable regular file")
        }
        let size = Int(st.st_size)
        guard size <= maxBytes else {
            close(fd)
            throw Failure(code: "IO_TOO_LARGE", message: "\(path) is \(size) bytes; the limit is \(maxBytes) bytes")
        }
        return (fd, size)
    }
}
