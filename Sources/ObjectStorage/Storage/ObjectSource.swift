#if canImport(Glibc)
import Glibc
#endif

/// The bytes of an object to write, held in a file its holder alone can reach (an unnamed
/// temporary file, for instance) rather than in memory: `put(_:source:…)` streams them.
///
/// The holder owns `fd` (open for reading, positioned anywhere: stores read with `pread`) and
/// keeps it open and unchanged while a `put` runs. `bytes` is its length and `sha256` the
/// lowercase hexadecimal SHA-256 of those bytes, both computed by the holder as it took them in;
/// a store may send the hash on (S3 signs it, and refuses a body that does not match it).
public struct ObjectSource: Sendable, Equatable {
    public var fd: Int32
    public var bytes: Int
    public var sha256: String

    public init(fd: Int32, bytes: Int, sha256: String) {
        self.fd = fd
        self.bytes = bytes
        self.sha256 = sha256
    }

    /// A path that opens the same file (`/proc/self/fd/N`), for readers that take a path.
    public var path: String { "/proc/self/fd/\(fd)" }

    /// Calls `body` with each part of the bytes in order (at most `chunk` bytes each, read with
    /// `pread` from offset 0); stops at the first non-zero answer and returns it. Returns
    /// `EIO` when the file is shorter than `bytes`, or the errno of a failed read.
    public func forEachChunk(chunk: Int = 1 << 20, _ body: (UnsafeRawBufferPointer) -> Int32) -> Int32 {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, chunk), alignment: 16)
        defer { buffer.deallocate() }
        var offset = 0
        while offset < bytes {
            let want = min(buffer.count, bytes - offset)
            let n = pread(fd, buffer.baseAddress, want, off_t(offset))
            if n < 0 {
                if errno == EINTR { continue }
                return errno
            }
            if n == 0 { return EIO }
            let answer = body(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
            if answer != 0 { return answer }
            offset += n
        }
        return 0
    }

    /// Writes everything in `raw` to `fd`, again after short writes and interruptions; 0 or errno.
    public static func writeAll(_ fd: Int32, _ raw: UnsafeRawBufferPointer) -> Int32 {
        var written = 0
        while written < raw.count {
            let n = write(fd, raw.baseAddress! + written, raw.count - written)
            if n < 0 {
                if errno == EINTR { continue }
                return errno
            }
            written += n
        }
        return 0
    }
}
