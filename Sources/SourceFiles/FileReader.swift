import USDParse

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads whole files into memory with a size cap, without intermediate copies.
public enum FileReader {
    /// An IO failure with a stable code.
    public struct Failure: Error, CustomStringConvertible, Sendable {
        /// The stable codes. Whether one is worth retrying depends on whose file it is (a user's
        /// input or the job's own work file), so the caller decides.
        public enum Code: String, Sendable, CaseIterable, CustomStringConvertible {
            /// The file does not exist.
            case notFound = "IO_NOT_FOUND"
            /// The file could not be opened, read or mapped, or is not a regular file.
            case readFailed = "IO_READ_FAILED"
            /// The file is larger than its limit.
            case tooLarge = "IO_TOO_LARGE"
            /// An output file could not be written.
            case writeFailed = "IO_WRITE_FAILED"

            /// The code itself, as written in messages and logs.
            public var description: String { rawValue }
        }

        public var code: Code
        public var message: String
        public var description: String { "\(code.rawValue): \(message)" }

        public init(code: Code, message: String) {
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
                    failure = Failure(code: .readFailed, message: "read \(path): \(String(cString: strerror(errno)))")
                    break
                }
                if n == 0 { break }
                done += n
            }
            count = done
        }
        if let failure { throw failure }
        guard bytes.count == size else {
            throw Failure(code: .readFailed, message: "\(path) changed size while being read")
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
            throw Failure(code: .readFailed, message: "cannot map \(path): \(String(cString: strerror(errno)))")
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
            throw Failure(code: e == ENOENT ? .notFound : .readFailed,
                          message: "cannot open \(path): \(String(cString: strerror(e)))")
        }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw Failure(code: .readFailed, message: "\(path) is not a readable regular file")
        }
        let size = Int(st.st_size)
        guard size <= maxBytes else {
            close(fd)
            throw Failure(code: .tooLarge, message: "\(path) is \(size) bytes; the limit is \(maxBytes) bytes")
        }
        return (fd, size)
    }
}
