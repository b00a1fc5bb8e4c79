#if canImport(Glibc)
import Glibc
#endif

/// Which executable a job's child process runs.
///
/// `transcode-job` beside the running executable when it is there: it links the pipeline alone,
/// without the daemon's libraries (libpq, libcurl, libmicrohttpd and what they pull in), so it
/// starts with less to load. It is opened once per process and run through that descriptor
/// (`/proc/self/fd/N`), so a file replaced or removed on disk later does not change what jobs run.
/// Else that path all the same: `transcode-worker` links no parser and has no pipeline of its own
/// to run, so each job then fails to start its child (`CHILD_SPAWN_FAILED`) and the log names the
/// file that is missing. `TRANSCODE_WORKER_BINARY`, when set and not empty, overrides both (tests
/// run inside a test bundle and point it at a built binary).
public enum ChildExecutable {
    /// The name of the job executable looked for beside the running one.
    static let jobExecutableName = "transcode-job"

    /// The path to pass to `execve`: the override, else the job executable's descriptor path, else
    /// where the job executable should be (`/proc/self/exe` when even that is unknown).
    static func resolve(environment: [String: String]) -> String {
        if let v = environment[JobRunner.binaryVariable], !v.isEmpty { return v }
        return besideSelf ?? besideRunningExecutable(jobExecutableName) ?? "/proc/self/exe"
    }

    /// `/proc/self/fd/N` of `transcode-job` beside the running executable, opened on first use
    /// and kept open; nil when there is none (or it is not a regular executable file).
    static let besideSelf: String? = {
        guard let path = target(of: "/proc/self/exe"), let candidate = beside(path, jobExecutableName),
              candidate != path else { return nil }
        return open(executable: candidate)
    }()

    /// The path of the file `name` in the running executable's folder (`/proc/self/exe`), or nil
    /// when that cannot be read.
    public static func besideRunningExecutable(_ name: String) -> String? {
        target(of: "/proc/self/exe").flatMap { beside($0, name) }
    }

    /// `name` in the folder of the file at `path`, or nil for a path without a folder.
    static func beside(_ path: String, _ name: String) -> String? {
        guard let slash = path.lastIndex(of: "/") else { return nil }
        return String(path[..<slash]) + "/" + name
    }

    /// Opens `path` (close-on-exec) if it is a regular file this process may execute; the
    /// descriptor's path, or nil.
    static func open(executable path: String) -> String? {
        guard access(path, X_OK) == 0 else { return nil }
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            return nil
        }
        return "/proc/self/fd/\(fd)"
    }

    /// The file `path` names, for logs: a descriptor path resolved to the file it was opened as.
    static func describe(_ path: String) -> String {
        guard path.hasPrefix("/proc/self/") else { return path }
        return target(of: path) ?? path
    }

    /// What the symbolic link at `path` points to, or nil.
    static func target(of path: String) -> String? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = buffer.withUnsafeMutableBytes { readlink(path, $0.baseAddress!.assumingMemoryBound(to: CChar.self), $0.count - 1) }
        return n > 0 ? String(decoding: buffer[0..<n], as: UTF8.self) : nil
    }
}
