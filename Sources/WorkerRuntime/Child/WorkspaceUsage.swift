#if canImport(Glibc)
import Glibc
#endif

/// What a job's child holds on disk in the folders it may write, measured while it runs, so one
/// job cannot fill the worker's disk (`TRANSCODE_JOB_DISK_MB`). Links are not followed; a tree
/// with more than `maxEntries` entries or deeper than `maxDepth` counts as over any budget (the
/// walk itself stays bounded).
enum WorkspaceUsage {
    /// The most directory entries one measurement visits.
    static let maxEntries = 100_000
    /// The deepest folder one measurement descends into.
    static let maxDepth = 64

    /// Bytes allocated (`st_blocks` × 512, so sparse files count what they really take) to
    /// everything below `directories`; nil when the walk met more than `maxEntries` entries or
    /// `maxDepth` levels. A folder that cannot be opened counts as empty.
    static func bytes(below directories: [String]) -> Int? {
        var total = 0
        var entries = 0
        var pending: [(fd: Int32, depth: Int)] = directories.compactMap { path in
            let fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            return fd >= 0 ? (fd, 0) : nil
        }
        defer { for p in pending { close(p.fd) } }
        while let (fd, depth) = pending.popLast() {
            guard let dir = fdopendir(fd) else { close(fd); continue }
            defer { closedir(dir) }
            while let entry = readdir(dir) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
                }
                if name == "." || name == ".." { continue }
                entries += 1
                guard entries <= maxEntries else { return nil }
                var info = stat()
                guard fstatat(fd, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { continue }
                total += Int(info.st_blocks) * 512
                if info.st_mode & S_IFMT == S_IFDIR {
                    guard depth + 1 <= maxDepth else { return nil }
                    let child = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                    if child >= 0 { pending.append((child, depth + 1)) }
                }
            }
        }
        return total
    }
}
