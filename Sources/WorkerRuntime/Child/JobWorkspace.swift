import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A private temporary directory for one job attempt (mode 0700, under `$TMPDIR` or `/tmp`):
///
/// ```
/// ROOT/in/usd/<source file name>     the downloaded USD source
/// ROOT/in/json/<source file name>    the downloaded RoomPlan JSON
/// ROOT/redacted/<texture path>       face-blurred replacement textures
/// ROOT/out/                          what the child process writes
/// ROOT/tmp/                          the child's own temporary folder (its TMPDIR)
/// ```
///
/// The owner calls `remove()` when the attempt ends (also after a failure). The directory is
/// named `transcode-job-<start id>-<pid>-XXXXXX`, where the start id is random and drawn once
/// per process start, and the process holds an exclusive `flock` on
/// `transcode-owner-<start id>.lock` next to it for as long as it lives. So directories left
/// behind by a worker that was killed are recognised even when every start has the same pid
/// (PID 1 in a container), and two workers sharing `$TMPDIR` never take each other's live
/// directories for stale ones (`removeStale`).
final class JobWorkspace {
    static let namePrefix = "transcode-job-"
    static let ownerPrefix = "transcode-owner-"

    /// The absolute root directory.
    let root: String
    /// The root directory, opened when it was made (close-on-exec): outputs are read relative
    /// to it, so renaming or replacing the path meanwhile cannot redirect the worker.
    private(set) var rootFD: Int32

    var inputDirectory: String { root + "/in" }
    var redactedDirectory: String { root + "/redacted" }
    var outputDirectory: String { root + "/out" }
    var tempDirectory: String { root + "/tmp" }

    /// Creates a new directory. Throws `FailureReason` `INTERNAL` (retryable) when it cannot
    /// (also when the owner lock of this process cannot be taken).
    init() throws(FailureReason) {
        let base = Self.baseDirectory
        guard Self.ownerLock(in: base) != nil else {
            throw FailureReason.internalFault("WORKSPACE_FAILED: cannot take the work directory lock in \(base)",
                                              phase: .downloading)
        }
        var template = Array((base + "/" + Self.namePrefix + "\(Self.startId)-\(getpid())-XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        guard made != nil else {
            throw FailureReason.internalFault("WORKSPACE_FAILED: cannot create a work directory: \(String(cString: strerror(errno)))",
                                              phase: .downloading)
        }
        root = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        rootFD = open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard rootFD >= 0 else {
            let e = errno
            rmdir(root)
            throw FailureReason.internalFault("WORKSPACE_FAILED: cannot open a work directory: \(String(cString: strerror(e)))",
                                              phase: .downloading)
        }
        for dir in [inputDirectory, inputDirectory + "/usd", inputDirectory + "/json", redactedDirectory, outputDirectory, tempDirectory] {
            guard mkdir(dir, 0o700) == 0 || errno == EEXIST else {
                let e = errno
                remove()
                throw FailureReason.internalFault("WORKSPACE_FAILED: cannot create a work directory: \(String(cString: strerror(e)))",
                                                  phase: .downloading)
            }
        }
    }

    deinit {
        if rootFD >= 0 { close(rootFD) }
    }

    /// Writes `bytes` at `relative` below `directory`, creating parent directories. Throws
    /// `FailureReason` `INTERNAL` (retryable) on an IO failure, `SOURCE_NOT_FOUND` for a path
    /// that would leave the directory.
    func write(_ bytes: [UInt8], to relative: String, in directory: String) throws(FailureReason) -> String {
        let parts = relative.split(separator: "/", omittingEmptySubsequences: false)
        guard !relative.isEmpty, !relative.hasPrefix("/"), !parts.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }),
              !relative.utf8.contains(0) else {
            throw FailureReason(reason: FailureReason.sourceNotFound, message: "INVALID_PATH: unusable file path '\(relative)'",
                                phase: .downloading, isRetryable: false)
        }
        var current = directory
        for part in parts.dropLast() {
            current += "/" + part
            guard mkdir(current, 0o700) == 0 || errno == EEXIST else {
                throw FailureReason.internalFault("WORKSPACE_FAILED: cannot create a work directory: \(String(cString: strerror(errno)))",
                                                  phase: .downloading)
            }
        }
        let path = directory + "/" + relative
        // Scratch space, read by the child and deleted after the attempt: not flushed to disk.
        guard Self.writeFile(path, bytes) else {
            throw FailureReason.internalFault("WORKSPACE_FAILED: cannot write a work file", phase: .downloading)
        }
        return path
    }

    /// Writes `path` (created or truncated; never through a symbolic link) to hold `bytes`.
    /// False on any failure, with nothing left behind.
    static func writeFile(_ path: String, _ bytes: [UInt8]) -> Bool {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return false }
        var written = 0
        let ok = bytes.withUnsafeBytes { raw -> Bool in
            while written < raw.count {
                let n = Glibc.write(fd, raw.baseAddress! + written, raw.count - written)
                if n < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                written += n
            }
            return true
        }
        guard close(fd) == 0 || errno == EINTR, ok else {
            unlink(path)
            return false
        }
        return true
    }

    /// Removes `text`'s mentions of the work directory, so messages never carry local paths.
    func scrub(_ text: String) -> String {
        text.replacingOccurrences(of: root + "/", with: "").replacingOccurrences(of: root, with: "")
    }

    /// `$TMPDIR` (without a trailing `/`) or `/tmp`.
    static var baseDirectory: String {
        var base = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        while base.count > 1 && base.hasSuffix("/") { base.removeLast() }
        return base
    }

    // MARK: Ownership and stale directories

    /// This process start's id: 16 random hexadecimal digits, drawn once.
    static let startId: String = {
        var g = SystemRandomNumberGenerator()
        return String(format: "%016llx", g.next() as UInt64)
    }()

    /// The descriptor holding this process's owner lock in `base` (taken on first use and held
    /// until the process ends); nil when it cannot be taken.
    static func ownerLock(in base: String) -> Int32? {
        lockState.lock()
        defer { lockState.unlock() }
        if let fd = ownerLocks[base] { return fd }
        let path = base + "/" + ownerPrefix + startId + ".lock"
        let fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return nil }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            return nil
        }
        ownerLocks[base] = fd
        return fd
    }

    nonisolated(unsafe) private static var ownerLocks: [String: Int32] = [:]
    private static let lockState = NSLock()

    /// Removes the stale directories of `$TMPDIR` once per process (later calls do nothing).
    static func removeStaleOnce() {
        _ = staleRemoved
    }

    private static let staleRemoved: Int = {
        _ = ownerLock(in: baseDirectory)
        return removeStale()
    }()

    /// Removes the `transcode-job-*` directories in `base` that belong to no live process start,
    /// and the owner lock files of starts that are over. A directory `transcode-job-<start
    /// id>-<pid>-…` is stale when its start id is not `ownStartId` and the lock file of that
    /// start is missing or not locked (its process ended: the kernel released the lock). A
    /// directory of the older form `transcode-job-<pid>-…` is stale when that pid does not exist
    /// or is this process (a previous start with the same pid). Returns how many directories
    /// were removed.
    @discardableResult
    static func removeStale(in base: String = baseDirectory, ownStartId: String = startId) -> Int {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: base) else { return 0 }
        var removed = 0
        var ended: [String: Int32] = [:]   // start id -> descriptor holding its lock now
        defer { for (_, fd) in ended { close(fd) } }
        var live: Set<String> = [ownStartId]

        /// True when the start `id` is over; its lock is then held here until the sweep ends.
        func isOver(_ id: String) -> Bool {
            if live.contains(id) { return false }
            if ended[id] != nil { return true }
            let fd = open(base + "/" + ownerPrefix + id + ".lock", O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
            if fd < 0 {
                // No lock file: its owner never made one (it creates it before any directory)
                // or it was removed with the start's directories.
                guard errno == ENOENT else { live.insert(id); return false }
                ended[id] = -1
                return true
            }
            guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
                close(fd)
                live.insert(id)
                return false
            }
            ended[id] = fd
            return true
        }

        for name in names where name.hasPrefix(namePrefix) {
            let parts = name.dropFirst(namePrefix.count).split(separator: "-", maxSplits: 2)
            guard parts.count >= 2 else { continue }
            let stale: Bool
            if let id = startIdField(parts[0]) {
                stale = isOver(id)
            } else if let pid = pid_t(parts[0]), pid > 0 {
                stale = pid == getpid() || (kill(pid, 0) != 0 && errno == ESRCH)
            } else {
                continue
            }
            guard stale else { continue }
            var info = stat()
            guard lstat(base + "/" + name, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else { continue }
            if (try? FileManager.default.removeItem(atPath: base + "/" + name)) != nil { removed += 1 }
        }
        // Lock files of starts that are over, whether or not they left directories.
        for name in names where name.hasPrefix(ownerPrefix) && name.hasSuffix(".lock") {
            let id = String(name.dropFirst(ownerPrefix.count).dropLast(".lock".count))
            guard startIdField(Substring(id)) != nil, isOver(id), let fd = ended[id], fd >= 0 else { continue }
            unlink(base + "/" + name)
        }
        return removed
    }

    /// `field` when it is a start id (16 lowercase hexadecimal digits), else nil.
    static func startIdField(_ field: Substring) -> String? {
        guard field.utf8.count == 16, field.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else {
            return nil
        }
        return String(field)
    }

    /// Gives the whole directory to `uid`:`gid` (the child's ids when it runs as another user):
    /// the child reads its inputs and writes `out/`; the worker, as root, still reads and
    /// removes everything. Symbolic links are not followed. Throws `FailureReason` `INTERNAL`.
    func handOver(uid: uid_t, gid: gid_t) throws(FailureReason) {
        var paths = [root]
        if let e = FileManager.default.enumerator(atPath: root) {
            while let rel = e.nextObject() as? String { paths.append(root + "/" + rel) }
        }
        for p in paths where lchown(p, uid, gid) != 0 {
            throw FailureReason.internalFault("WORKSPACE_FAILED: cannot hand the work directory over: \(String(cString: strerror(errno)))",
                                              phase: .parsing)
        }
    }

    /// Deletes the directory and everything in it (idempotent, best effort).
    func remove() {
        try? FileManager.default.removeItem(atPath: root)
    }
}
