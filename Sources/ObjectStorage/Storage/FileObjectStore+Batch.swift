#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Copies and deletes of many objects at once: each directory is flushed once for the whole set
/// instead of once per object, with the same guarantee as one at a time (once the call returns,
/// every copy made and every delete done survives a crash).
extension FileObjectStore {
    /// Links every copy into place as `copy` does, then flushes each destination directory once.
    /// A copy across file systems goes through memory (`put`, flushed on its own). Returns the
    /// failed copies by destination key.
    public func copy(all copies: [ObjectCopy], cacheControl: String?) -> [String: StorageError] {
        var failed: [String: StorageError] = [:]
        var linked: [String: [String]] = [:]
        for c in copies {
            do {
                if let directory = try linkIntoPlace(c.source, to: c.destination) {
                    linked[directory, default: []].append(c.destination)
                } else {
                    try copyThroughMemory(c.source, to: c.destination, contentType: c.contentType, cacheControl: cacheControl)
                }
            } catch {
                failed[c.destination] = error
            }
        }
        for (directory, keys) in linked {
            guard let e = syncDirectory(directory) else { continue }
            for key in keys { failed[key] = StorageError.system(e, "cannot flush the directory of \(key)", key: key, writing: true) }
        }
        return failed
    }

    /// Removes every key's file as `delete` does, then flushes each directory once. Returns the
    /// keys that could not be deleted.
    public func delete(all keys: [String]) -> [String: StorageError] {
        var failed: [String: StorageError] = [:]
        var directories: Set<String> = []
        for key in keys {
            do {
                if let directory = try unlinkObject(key) { directories.insert(directory) }
            } catch {
                failed[key] = error
            }
        }
        // Best effort, as for one delete: the objects are gone for every reader already.
        for directory in directories { _ = syncDirectory(directory) }
        return failed
    }

    /// Removes the file of `key` and returns its directory, still to be flushed; nil when there
    /// was no such object (missing, or only a prefix of other keys). Throws
    /// `STORAGE_WRITE_FAILED` (retryable), `STORAGE_INVALID_KEY`.
    func unlinkObject(_ key: String) throws(StorageError) -> String? {
        try validate(key)
        let target = path(key)
        if unlink(target) == 0 { return String(target[..<target.lastIndex(of: "/")!]) }
        let e = errno
        if e == ENOENT || e == ENOTDIR || e == EISDIR { return nil }
        throw StorageError.system(e, "cannot delete \(key)", key: key, writing: true)
    }

    /// A copy across file systems: the bytes through memory, written (and flushed) by `put`.
    func copyThroughMemory(_ source: String, to destination: String, contentType: String,
                           cacheControl: String?) throws(StorageError) {
        let bytes = try get(source, maxBytes: Self.maxCopyBytes)
        try put(destination, bytes: bytes, contentType: contentType, cacheControl: cacheControl)
    }

    /// Hard-links the file of `source` to a temporary name beside `destination` and renames it
    /// into place; returns the destination's directory, still to be flushed, or nil when no link
    /// can be made (another file system: the caller copies the bytes). Throws
    /// `STORAGE_NOT_FOUND`, `STORAGE_WRITE_FAILED` (retryable), `STORAGE_INVALID_KEY`.
    func linkIntoPlace(_ source: String, to destination: String) throws(StorageError) -> String? {
        try validate(source)
        try validate(destination)
        var info = stat()
        guard stat(path(source), &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            throw StorageError(code: .notFound, message: "\(source): no such object to copy", key: source)
        }
        try makeParentDirectories(of: destination)
        let target = path(destination)
        let directory = String(target[..<target.lastIndex(of: "/")!])
        let temp = directory + "/" + Self.tempPrefix + "\(getpid())-" + String(UInt64.random(in: 0 ... .max), radix: 16)
        guard link(path(source), temp) == 0 else { return nil }
        guard rename(temp, target) == 0 else {
            let e = errno
            unlink(temp)
            if e == EISDIR || e == ENOTDIR || e == ENOTEMPTY || e == EEXIST { throw prefixClash(destination) }
            throw StorageError.system(e, "cannot move the copy of \(source) into place", key: destination, writing: true)
        }
        return directory
    }
}
