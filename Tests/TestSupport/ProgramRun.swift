import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// One run of a built program: how it ended and everything it printed.
///
/// Programs are started with `posix_spawn` (`Spawner`) and read through `poll` and `read`, every
/// call retried when a signal interrupts it, and the child is reaped by its own process id.
/// Foundation's `Process` and `FileHandle` are not used: their reads end the test process when a
/// call is interrupted, and many tests run programs at once.
public struct ProgramRun: Equatable, Sendable {
    public var status: Int32
    /// True when the program exited (false: a signal ended it, and `status` is the signal).
    public var exited: Bool
    public var stdout: String
    public var stderr: String

    /// Runs `executable` (a path, not searched for) with `arguments` in `directory` (default: the
    /// package root) and `environment` (nil: this process's), standard input from /dev/null,
    /// and waits for it. Standard output and standard error are captured, read together so that
    /// neither pipe fills; with `mergeStandardError` both go to `stdout` in the order written.
    /// Throws when the program cannot be started or read.
    public static func run(
        _ executable: String, _ arguments: [String], in directory: URL = TestPaths.packageRoot,
        environment: [String: String]? = nil, mergeStandardError: Bool = false
    ) throws -> ProgramRun {
        var fds: [Int32] = []
        defer { for fd in fds { close(fd) } }
        func release(_ which: Set<Int32>) {
            for fd in which { close(fd) }
            fds.removeAll { which.contains($0) }
        }
        let null = try Spawner.open("/dev/null", O_RDONLY)
        fds.append(null)
        let out = try Spawner.pipe()
        fds += [out.read, out.write]
        let err = mergeStandardError ? out : try Spawner.pipe()
        if !mergeStandardError { fds += [err.read, err.write] }
        let pid = try Spawner.spawn(
            executable, arguments, in: directory, environment: environment, stdin: null, stdout: out.write, stderr: err.write)
        // The write ends belong to the child now: reading sees the end once it has closed them.
        release([out.write, err.write])
        let captured = drain(mergeStandardError ? [out.read] : [out.read, err.read])
        // Closed before waiting, so that a child still writing after a failed read ends (SIGPIPE)
        // instead of blocking on a full pipe.
        release(Set(fds))
        guard let ended = try Spawner.wait(pid, block: true) else { throw Spawner.Failure("waitpid \(pid)") }
        guard let captured else { throw Spawner.Failure("reading the output of \(executable)") }
        return ProgramRun(
            status: ended.status, exited: ended.exited, stdout: String(decoding: captured[0], as: UTF8.self),
            stderr: captured.count > 1 ? String(decoding: captured[1], as: UTF8.self) : "")
    }

    /// Everything written to each descriptor until its end, read as it comes; nil when polling or
    /// reading fails for another reason than an interruption.
    private static func drain(_ fds: [Int32]) -> [[UInt8]]? {
        var data = [[UInt8]](repeating: [], count: fds.count)
        var open = fds.map { _ in true }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while open.contains(true) {
            var polled = fds.indices.map { pollfd(fd: open[$0] ? fds[$0] : -1, events: Int16(POLLIN), revents: 0) }
            guard poll(&polled, nfds_t(polled.count), -1) >= 0 || errno == EINTR else { return nil }
            for i in fds.indices where open[i] && polled[i].revents != 0 {
                let n = buffer.withUnsafeMutableBytes { read(fds[i], $0.baseAddress, $0.count) }
                if n > 0 {
                    data[i] += buffer[0..<n]
                } else if n == 0 {
                    open[i] = false
                } else if errno != EINTR && errno != EAGAIN {
                    return nil
                }
            }
        }
        return data
    }
}
