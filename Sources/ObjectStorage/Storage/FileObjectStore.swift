#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An `ObjectStore` in a local directory: the key `a/b/c.glb` is the file `ROOT/a/b/c.glb`.
///
/// Writes go to a temporary file in the target's directory (named `.tmp-put-…`, never listed),
/// which is flushed, renamed over the target, and followed by a flush of the directory, so a
/// reader or a crash sees the old object or the whole new one. Directories are created as needed
/// and left in place when their last object is deleted. A key cannot be both an object and a
/// prefix of other keys (`a` and `a/b`); the second write fails with `STORAGE_INVALID_KEY`.
/// `contentType` is not stored. Safe to use from many threads and processes at once.
public struct FileObjectStore: ObjectStore {
    /// The absolute root directory, without a trailing `/` (except the root `/` itself).
    public let root: String

    /// Segments starting with this are temporary files of unfinished writes; keys may not use it.
    static let tempPrefix = ".tmp-put-"

    /// Opens the store at `root`, an absolute directory path, creating it (and its parents) when
    /// missing and `create` is true. Throws `StorageError` `STORAGE_URL_INVALID` when `root` is
    /// relative or is not a directory, `STORAGE_UNAVAILABLE` (retryable) when it cannot be created
    /// or examined.
    public init(root: String, create: Bool = true) throws(StorageError) {
        guard root.hasPrefix("/") else {
            throw StorageError(code: .urlInvalid, message: "the storage root must be an absolute path: \(root)")
        }
        guard !root.utf8.contains(0) else {
            throw StorageError(code: .urlInvalid, message: "the storage root contains a NUL byte")
        }
        var normalized = root
        while normalized.count > 1 && normalized.hasSuffix("/") { normalized.removeLast() }
        self.root = normalized
        if create {
            var current = ""
            for part in normalized.split(separator: "/") {
                current += "/" + part
                if mkdir(current, 0o755) != 0 && errno != EEXIST {
                    throw StorageError.system(errno, "cannot create the storage root \(current)", key: nil, writing: false)
                }
            }
        }
        var st = stat()
        guard stat(normalized, &st) == 0 else {
            let e = errno
            if e == ENOENT {
                throw StorageError(code: .urlInvalid, message: "the storage root \(normalized) does not exist")
            }
            throw StorageError.system(e, "cannot examine the storage root \(normalized)", key: nil, writing: false)
        }
        guard (st.st_mode & S_IFMT) == S_IFDIR else {
            throw StorageError(code: .urlInvalid, message: "the storage root \(normalized) is not a directory")
        }
    }

    /// The root directory's last component (`/` for the root itself).
    public var bucket: String { root == "/" ? "/" : String(root.split(separator: "/").last ?? "/") }

    /// Always `""`: keys are paths below the root.
    public var keyPrefix: String { "" }

    /// `file://` and the percent-encoded root, e.g. `file:///var/lib/transcode/objects`.
    public var location: String { "file://" + StorageURL.percentEncodePath(root) }

    /// Reads the file of `key` (at most `maxBytes` bytes, checked with fstat before reading).
    /// Throws `STORAGE_NOT_FOUND` (also for a key that is only a prefix), `STORAGE_TOO_LARGE`,
    /// `STORAGE_UNAVAILABLE` (retryable; also when the file changes size while being read),
    /// `STORAGE_INVALID_KEY`.
    public func get(_ key: String, maxBytes: Int) throws(StorageError) -> [UInt8] {
        try validate(key)
        let path = self.path(key)
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let e = errno
            if e == ENOENT || e == ENOTDIR { throw notFound(key) }
            throw StorageError.system(e, "cannot open \(key)", key: key, writing: false)
        }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            throw StorageError.system(errno, "cannot examine \(key)", key: key, writing: false)
        }
        // A directory is a prefix of other keys, not an object.
        guard (st.st_mode & S_IFMT) == S_IFREG else { throw notFound(key) }
        let size = Int(st.st_size)
        guard size <= max(0, maxBytes) else {
            throw StorageError(code: .tooLarge,
                               message: "\(key) is \(size) bytes; the limit is \(max(0, maxBytes)) bytes", key: key)
        }
        var readError: Int32 = 0
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            var done = 0
            while done < size {
                let n = read(fd, buffer.baseAddress! + done, size - done)
                if n < 0 {
                    if errno == EINTR { continue }
                    readError = errno
                    break
                }
                if n == 0 { break }
                done += n
            }
            count = done
        }
        if readError != 0 { throw StorageError.system(readError, "cannot read \(key)", key: key, writing: false) }
        // Objects are replaced by rename, never rewritten in place, so a size change means someone
        // wrote into the file directly; report it rather than return a torn object.
        var extra: UInt8 = 0
        var probe: Int
        repeat { probe = read(fd, &extra, 1) } while probe < 0 && errno == EINTR
        guard bytes.count == size, probe == 0 else {
            throw StorageError(code: .unavailable, message: "\(key) changed size while being read", key: key)
        }
        return bytes
    }

    /// Writes `bytes` as the file of `key` atomically (temporary file, fsync, rename, fsync of the
    /// directory); `contentType` and `cacheControl` are ignored. Throws `STORAGE_WRITE_FAILED`
    /// (retryable), `STORAGE_NO_SPACE`, `STORAGE_INVALID_KEY` (also when `key` clashes with a
    /// prefix).
    public func put(_ key: String, bytes: [UInt8], contentType: String, cacheControl: String?) throws(StorageError) {
        try writeAtomically(key) { fd in
            bytes.withUnsafeBytes { raw in ObjectSource.writeAll(fd, raw) }
        }
    }

    /// Writes the file of `key` from `source`, chunk by chunk, as `put(_:bytes:…)` does.
    public func put(_ key: String, source: ObjectSource, contentType: String, cacheControl: String?) throws(StorageError) {
        try writeAtomically(key) { fd in source.forEachChunk { ObjectSource.writeAll(fd, $0) } }
    }

    /// Makes the file of `key` from what `fill` writes to a temporary file beside it (fsync,
    /// rename, fsync of the directory); `fill` returns 0 or an errno. Throws as `put`.
    func writeAtomically(_ key: String, fill: (Int32) -> Int32) throws(StorageError) {
        try validate(key)
        let target = path(key)
        let directory = String(target[..<target.lastIndex(of: "/")!])
        try makeParentDirectories(of: key)

        var temp = ""
        var fd: Int32 = -1
        for _ in 0..<8 {
            temp = directory + "/" + Self.tempPrefix + "\(getpid())-" + String(UInt64.random(in: 0 ... .max), radix: 16)
            fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            if fd >= 0 || errno != EEXIST { break }
        }
        guard fd >= 0 else {
            let e = errno
            if e == ENOTDIR { throw prefixClash(key) }
            throw StorageError.system(e, "cannot create a temporary file for \(key)", key: key, writing: true)
        }

        var failure = fill(fd)
        if failure == 0 && fsync(fd) != 0 { failure = errno }
        if close(fd) != 0 && failure == 0 && errno != EINTR { failure = errno }
        if failure != 0 {
            unlink(temp)
            throw StorageError.system(failure, "cannot write \(key)", key: key, writing: true)
        }
        guard rename(temp, target) == 0 else {
            let e = errno
            unlink(temp)
            if e == EISDIR || e == ENOTDIR || e == ENOTEMPTY || e == EEXIST { throw prefixClash(key) }
            throw StorageError.system(e, "cannot move the new \(key) into place", key: key, writing: true)
        }
        if let e = syncDirectory(directory) {
            throw StorageError.system(e, "cannot flush the directory of \(key)", key: key, writing: true)
        }
    }

    /// Hard-links the file of `source` to a temporary name beside `destination` and renames it into
    /// place (readers see the old object or the new one); where a link cannot be made (another
    /// file system), copies the bytes. The file store keeps no content type. Throws
    /// `STORAGE_NOT_FOUND`, `STORAGE_WRITE_FAILED` (retryable), `STORAGE_INVALID_KEY`.
    public func copy(_ source: String, to destination: String, contentType: String, cacheControl: String?) throws(StorageError) {
        guard let directory = try linkIntoPlace(source, to: destination) else {
            return try copyThroughMemory(source, to: destination, contentType: contentType, cacheControl: cacheControl)
        }
        if let e = syncDirectory(directory) {
            throw StorageError.system(e, "cannot flush the directory of \(destination)", key: destination, writing: true)
        }
    }

    /// Removes the file of `key`; a missing key (or one that is only a prefix) is not an error.
    /// Empty directories stay. Throws `STORAGE_WRITE_FAILED` (retryable), `STORAGE_INVALID_KEY`.
    public func delete(_ key: String) throws(StorageError) {
        // Best effort: the object is gone for every reader already.
        if let directory = try unlinkObject(key) { _ = syncDirectory(directory) }
    }

    /// Walks the directory of `prefix` and returns the keys starting with it, sorted by UTF-8
    /// bytes; temporary files of unfinished writes are skipped. Throws `STORAGE_UNAVAILABLE`
    /// (retryable), `STORAGE_INVALID_KEY`.
    public func list(prefix: String) throws(StorageError) -> [String] {
        try ObjectKey.validatePrefix(prefix)
        let directoryPart = ObjectKey.directoryPart(of: prefix)
        let start = directoryPart.isEmpty ? root : path(String(directoryPart.dropLast()))
        let partial = prefix.lastIndex(of: "/").map { String(prefix[prefix.index(after: $0)...]) } ?? prefix
        var keys: [String] = []
        try walk(start, keyPrefix: directoryPart, namePrefix: partial, into: &keys)
        return ObjectKey.sorted(keys)
    }

    /// Every file below `prefix` with its size and modification time (`stat`, following a link
    /// to a file as `list` does). A file removed between the walk and its `stat` is left out.
    public func listObjects(prefix: String) throws(StorageError) -> [StoredObject] {
        try list(prefix: prefix).compactMap { key in
            var st = stat()
            guard stat(path(key), &st) == 0 else { return nil }
            return StoredObject(key: key, bytes: Int(st.st_size), modified: Double(st.st_mtim.tv_sec) + Double(st.st_mtim.tv_nsec) / 1e9)
        }
    }

    /// The size of the file of `key` in bytes, or nil when there is none. Throws
    /// `STORAGE_UNAVAILABLE` (retryable), `STORAGE_INVALID_KEY`.
    public func size(_ key: String) throws(StorageError) -> Int? {
        try validate(key)
        var st = stat()
        guard stat(path(key), &st) == 0 else {
            let e = errno
            if e == ENOENT || e == ENOTDIR { return nil }
            throw StorageError.system(e, "cannot examine \(key)", key: key, writing: false)
        }
        return (st.st_mode & S_IFMT) == S_IFREG ? Int(st.st_size) : nil
    }

    // MARK: - Internals

    func path(_ key: String) -> String {
        root == "/" ? "/" + key : root + "/" + key
    }

    func validate(_ key: String) throws(StorageError) {
        try ObjectKey.validate(key)
        for segment in key.split(separator: "/") where segment.hasPrefix(Self.tempPrefix) {
            throw StorageError(code: .invalidKey,
                               message: "invalid object key: segments starting with \(Self.tempPrefix) are reserved", key: key)
        }
    }

    private func notFound(_ key: String) -> StorageError {
        StorageError(code: .notFound, message: "no object \(key) in \(location)", key: key)
    }

    func prefixClash(_ key: String) -> StorageError {
        StorageError(code: .invalidKey,
                     message: "\(key) clashes with an existing key: a key cannot be both an object and a prefix of other keys here",
                     key: key)
    }

    /// Creates the directories between the root and the key's file, flushing the parent of each
    /// directory it creates so the new entries survive a crash.
    func makeParentDirectories(of key: String) throws(StorageError) {
        let segments = key.split(separator: "/").dropLast()
        // Most writes go into a directory that exists already: one stat instead of a walk.
        var info = stat()
        if !segments.isEmpty, stat(path(segments.joined(separator: "/")), &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
            return
        }
        var current = root == "/" ? "" : root
        for segment in segments {
            let parent = current.isEmpty ? "/" : current
            current += "/" + segment
            if mkdir(current, 0o755) == 0 {
                if let e = syncDirectory(parent) {
                    throw StorageError.system(e, "cannot flush a new directory for \(key)", key: key, writing: true)
                }
                continue
            }
            let e = errno
            if e == EEXIST { continue }
            if e == ENOTDIR { throw prefixClash(key) }
            throw StorageError.system(e, "cannot create a directory for \(key)", key: key, writing: true)
        }
    }

    /// fsync of a directory; returns the errno on failure (file systems that cannot sync
    /// directories, EINVAL, count as success).
    func syncDirectory(_ directory: String) -> Int32? {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return errno }
        defer { close(fd) }
        if fsync(fd) != 0 && errno != EINVAL { return errno }
        return nil
    }

    /// Collects the objects under `directory` whose key is `keyPrefix + name…`; on the first level
    /// only names starting with `namePrefix` (compared as bytes) are considered. Symbolic links to
    /// files are listed; links to directories are not followed (no loops).
    private func walk(_ directory: String, keyPrefix: String, namePrefix: String, into keys: inout [String]) throws(StorageError) {
        guard let dir = opendir(directory) else {
            let e = errno
            if e == ENOENT || e == ENOTDIR { return }
            throw StorageError.system(e, "cannot list \(keyPrefix.isEmpty ? "the store root" : keyPrefix)", key: nil, writing: false)
        }
        defer { closedir(dir) }
        var subdirectories: [String] = []
        while true {
            errno = 0
            guard let entry = readdir(dir) else {
                if errno != 0 {
                    throw StorageError.system(errno, "cannot list \(keyPrefix.isEmpty ? "the store root" : keyPrefix)", key: nil, writing: false)
                }
                break
            }
            let name: String? = withUnsafePointer(to: &entry.pointee.d_name) { tuple in
                tuple.withMemoryRebound(to: CChar.self, capacity: MemoryLayout.size(ofValue: tuple.pointee)) {
                    String(validatingCString: $0)
                }
            }
            // Names that are not UTF-8 or contain a backslash cannot be keys; temporary files of
            // unfinished writes are not objects.
            guard let name, name != ".", name != "..", !name.hasPrefix(Self.tempPrefix),
                  !name.utf8.contains(UInt8(ascii: "\\")), name.utf8.starts(with: namePrefix.utf8) else { continue }
            let key = keyPrefix + name
            guard key.utf8.count <= ObjectKey.maxBytes else { continue }
            var type = Int32(entry.pointee.d_type)
            if type == Int32(DT_UNKNOWN) || type == Int32(DT_LNK) {
                // lstat decides real directories; a link counts only when it points to a file.
                let full = directory + "/" + name
                var st = stat()
                guard lstat(full, &st) == 0 else { continue }
                if (st.st_mode & S_IFMT) == S_IFLNK {
                    guard stat(full, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { continue }
                }
                let mode = st.st_mode & S_IFMT
                type = mode == S_IFDIR ? Int32(DT_DIR) : mode == S_IFREG ? Int32(DT_REG) : Int32(DT_UNKNOWN)
            }
            if type == Int32(DT_REG) {
                keys.append(key)
            } else if type == Int32(DT_DIR) {
                subdirectories.append(name)
            }
        }
        for name in subdirectories {
            try walk(directory + "/" + name, keyPrefix: keyPrefix + name + "/", namePrefix: "", into: &keys)
        }
    }
}
