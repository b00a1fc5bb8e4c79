#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Directories that deleted objects left behind: a deleted room should leave no folder named by
/// its id.
extension FileObjectStore {
    /// Removes every directory at or below `prefix` (a key prefix ending in `/`, such as
    /// `rooms/<room>/`) that is empty once the empty directories below it are gone, deepest first,
    /// and returns how many. Files are never removed (`rmdir` refuses a directory that holds
    /// anything), so an object written meanwhile stays; a `put` whose directory goes between its
    /// creation and the write fails with `STORAGE_WRITE_FAILED` (retryable). Links to directories
    /// are not followed. A malformed prefix removes nothing.
    @discardableResult
    public func removeEmptyDirectories(under prefix: String) -> Int {
        guard prefix.hasSuffix("/"), prefix.utf8.count > 1, (try? ObjectKey.validatePrefix(prefix)) != nil else { return 0 }
        return prune(path(String(prefix.dropLast())))
    }

    /// `rmdir` of `directory` after its subdirectories; how many went.
    private func prune(_ directory: String) -> Int {
        guard let dir = opendir(directory) else { return 0 }
        var subdirectories: [String] = []
        while let entry = readdir(dir) {
            let name: String? = withUnsafePointer(to: &entry.pointee.d_name) { tuple in
                tuple.withMemoryRebound(to: CChar.self, capacity: MemoryLayout.size(ofValue: tuple.pointee)) {
                    String(validatingCString: $0)
                }
            }
            guard let name, name != ".", name != ".." else { continue }
            var isDirectory = Int32(entry.pointee.d_type) == Int32(DT_DIR)
            if Int32(entry.pointee.d_type) == Int32(DT_UNKNOWN) {
                var st = stat()
                isDirectory = lstat(directory + "/" + name, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
            }
            if isDirectory { subdirectories.append(name) }
        }
        closedir(dir)
        var removed = 0
        for name in subdirectories { removed += prune(directory + "/" + name) }
        if rmdir(directory) == 0 { removed += 1 }
        return removed
    }
}
