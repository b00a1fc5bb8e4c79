#if canImport(Glibc)
import Glibc
import SourceFiles
#endif

/// Writes a set of output files into a directory so that each file appears whole or not at all:
/// every file is written to a temporary name in the same directory, flushed to disk (unless the
/// directory is scratch space), then renamed into place, in the given order (the manifest last).
public enum OutputDirectory {
    /// True for a relative path of plain components (no empty, `.` or `..` component).
    static func isPlainRelativePath(_ path: String) -> Bool {
        !path.isEmpty && !path.hasPrefix("/")
            && path.split(separator: "/", omittingEmptySubsequences: false).allSatisfy { !$0.isEmpty && $0 != "." && $0 != ".." }
    }

    /// Writes `files` (relative paths with `/` separators, no `..`) under `directory`, creating
    /// directories as needed. With `durable` (the default, for `convert --out`) each file is
    /// flushed to disk before it is renamed into place; the job child writes into its attempt's
    /// scratch directory, which the worker reads at once and deletes, and passes false. Throws
    /// `FileReader.Failure` with code `IO_WRITE_FAILED`.
    public static func write(_ files: [(path: String, bytes: [UInt8])], into directory: String, durable: Bool = true) throws {
        try makeDirectories(directory)
        var made: Set<String> = [directory]
        for (path, bytes) in files {
            guard !path.hasPrefix("/"), !path.split(separator: "/").contains("..") else {
                throw failure("refusing to write outside the output directory: \(path)")
            }
            let target = directory + "/" + path
            if let slash = target.lastIndex(of: "/") {
                let parent = String(target[..<slash])
                if made.insert(parent).inserted { try makeDirectories(parent) }
            }
            let temp = target + ".partial-\(getpid())"
            let fd = open(temp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw failure("cannot create \(temp): \(String(cString: strerror(errno)))") }
            var written = 0
            var error: Int32 = 0
            bytes.withUnsafeBytes { raw in
                while written < raw.count {
                    let n = Glibc.write(fd, raw.baseAddress! + written, raw.count - written)
                    if n < 0 {
                        if errno == EINTR { continue }
                        error = errno
                        break
                    }
                    written += n
                }
            }
            if error == 0, durable, fsync(fd) != 0 { error = errno }
            close(fd)
            if error != 0 {
                unlink(temp)
                throw failure("cannot write \(target): \(String(cString: strerror(error)))")
            }
            guard rename(temp, target) == 0 else {
                let e = errno
                unlink(temp)
                throw failure("cannot move \(temp) to \(target): \(String(cString: strerror(e)))")
            }
        }
    }

    /// `mkdir -p`.
    static func makeDirectories(_ path: String) throws {
        var current = path.hasPrefix("/") ? "" : "."
        for part in path.split(separator: "/") {
            current += "/" + part
            if mkdir(current, 0o755) != 0 && errno != EEXIST {
                throw failure("cannot create directory \(current): \(String(cString: strerror(errno)))")
            }
        }
    }

    private static func failure(_ message: String) -> FileReader.Failure {
        FileReader.Failure(code: .writeFailed, message: message)
    }
}
