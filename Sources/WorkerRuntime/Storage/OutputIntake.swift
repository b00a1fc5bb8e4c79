import ObjectStorage
import WorkerCore
#if canImport(Glibc)
import Glibc
#endif

/// The daemon's own copy of a job's outputs. Each file the child wrote is read once, from the
/// descriptor the output checks opened, into an unnamed file (`O_TMPFILE`) in the job's work
/// directory: no path names it, the child cannot open or change it, and the daemon hashes,
/// checks and uploads exactly these bytes. A file the child swaps in `out/` after the check is
/// never read again. Bytes are streamed in chunks (never whole in memory) and counted against
/// a disk budget.
///
/// Owns its descriptors: `close()` (or deinit) releases every held file, and with them the disk.
final class OutputIntake {
    /// The most bytes one chunk of a copy holds in memory.
    static let chunkBytes = 1 << 20

    /// The folder the unnamed files are made in (the job's work directory, which only the daemon
    /// writes).
    let directory: String
    /// The most bytes all held files may take, together.
    let budget: Int
    /// Bytes held so far.
    private(set) var used = 0
    private var held: [String: ObjectSource] = [:]

    /// An intake holding at most `budget` bytes in unnamed files below `directory`.
    init(directory: String, budget: Int) {
        self.directory = directory
        self.budget = budget
    }

    deinit { close() }

    /// Releases every held file.
    func close() {
        for source in held.values { _ = Glibc.close(source.fd) }
        held = [:]
    }

    /// The held bytes of `path` (nil: not taken in).
    func source(_ path: String) -> ObjectSource? { held[path] }

    /// Why taking a file in failed: a violation of the rules (permanent) or the system (errno).
    enum Failure: Error, Equatable {
        case violation(String)
        case system(Int32)
    }

    /// Copies `size` bytes of `fd` (read from its current position to its end, which must come
    /// at exactly `size`) into a new unnamed file, hashing as it goes, and keeps it as `path`.
    /// Throws `.violation` when the file is longer or shorter than `size` or the budget would be
    /// exceeded, `.system` when a file cannot be made, read or written.
    func take(_ path: String, from fd: Int32, size: Int) throws(Failure) {
        guard used + size <= budget else {
            throw .violation("the outputs exceed the job's disk budget of \(budget) bytes")
        }
        let copy = try makeUnnamedFile()
        let digest = Digest.SHA256Stream()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.chunkBytes, alignment: 16)
        defer { buffer.deallocate() }
        var total = 0
        while true {
            let n = Glibc.read(fd, buffer.baseAddress, buffer.count)
            if n < 0 {
                if errno == EINTR { continue }
                let e = errno
                _ = Glibc.close(copy)
                throw .system(e)
            }
            if n == 0 { break }
            total += n
            guard total <= size else {
                _ = Glibc.close(copy)
                throw .violation("\(path) grew while being read")
            }
            let chunk = UnsafeRawBufferPointer(rebasing: buffer[0..<n])
            digest.update(chunk)
            let e = ObjectSource.writeAll(copy, chunk)
            if e != 0 {
                _ = Glibc.close(copy)
                throw e == EFBIG || e == ENOSPC ? .violation("\(path) does not fit on the worker's disk") : .system(e)
            }
        }
        guard total == size else {
            _ = Glibc.close(copy)
            throw .violation("\(path) changed size while being read")
        }
        if let old = held[path] { _ = Glibc.close(old.fd); used -= old.bytes }
        held[path] = ObjectSource(fd: copy, bytes: size, sha256: Digest.hex(digest.finish()))
        used += size
    }

    /// `count` bytes at `offset` of the held `path` (nil: not held, or past its end).
    func read(_ path: String, offset: Int, count: Int) -> [UInt8]? {
        guard let source = held[path], offset >= 0, count >= 0, offset <= source.bytes - count else { return nil }
        var out = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let n = out.withUnsafeMutableBytes { pread(source.fd, $0.baseAddress! + done, count - done, off_t(offset + done)) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return nil }
            done += n
        }
        return out
    }

    /// Every held byte of `path`, when it is at most `maxBytes` long (nil otherwise).
    func bytes(_ path: String, maxBytes: Int) -> [UInt8]? {
        guard let source = held[path], source.bytes <= maxBytes else { return nil }
        return read(path, offset: 0, count: source.bytes)
    }

    /// `O_TMPFILE` (`__O_TMPFILE | O_DIRECTORY`; the C macro does not reach Swift): the same value
    /// on x86-64 and arm64 Linux.
    static let unnamedFileFlag: Int32 = 0o20000000 | O_DIRECTORY

    /// An unnamed file below `directory`, open for reading and writing; where the file system has
    /// no `O_TMPFILE`, a named one removed at once.
    private func makeUnnamedFile() throws(Failure) -> Int32 {
        let fd = open(directory, Self.unnamedFileFlag | O_RDWR | O_EXCL | O_CLOEXEC, 0o600)
        if fd >= 0 { return fd }
        guard errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL else { throw .system(errno) }
        for _ in 0..<8 {
            let name = directory + "/.intake-" + String(UInt64.random(in: 0 ... .max), radix: 16)
            let named = open(name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            if named >= 0 {
                unlink(name)
                return named
            }
            if errno != EEXIST { break }
        }
        throw .system(errno)
    }
}
