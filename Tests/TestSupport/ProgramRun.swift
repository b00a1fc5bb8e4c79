import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// One run of a built program: how it ended and everything it printed.
///
/// Programs are started with `posix_spawn` and read through `poll` and `read`, every call retried
/// when a signal interrupts it, and the child is reaped by its own process id. Foundation's
/// `Process` and `FileHandle` are not used for this: their reads end the test process when a call
/// is interrupted, and many tests run programs at once.
public struct ProgramRun: Equatable, Sendable {
    public var status: Int32
    /// True when the program exited (false: a signal ended it, and `status` is the signal).
    public var exited: Bool
    public var stdout: String
    public var stderr: String

    /// Why a program could not be run: the call that failed and its errno text.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Runs `executable` (a path, not searched for) with `arguments` in `directory` (default: the
    /// package root) and `environment` (nil: this process's), standard input from /dev/null,
    /// and waits for it. Standard output and standard error are captured, read together so that
    /// neither pipe fills; with `mergeStandardError` both go to `stdout` in the order written.
    /// Throws `Failure` when the program cannot be started or read.
    public static func run(
        _ executable: String, _ arguments: [String], in directory: URL = TestPaths.packageRoot,
        environment: [String: String]? = nil, mergeStandardError: Bool = false
    ) throws -> ProgramRun {
        var out: [Int32] = [-1, -1], err: [Int32] = [-1, -1]
        defer { for fd in out + err where fd >= 0 { close(fd) } }
        guard GNU.pipe2(&out, O_CLOEXEC) == 0, mergeStandardError || GNU.pipe2(&err, O_CLOEXEC) == 0 else { throw failure("pipe2") }
        let null = open("/dev/null", O_RDONLY | O_CLOEXEC)
        guard null >= 0 else { throw failure("open /dev/null") }
        defer { close(null) }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, null, 0)
        posix_spawn_file_actions_adddup2(&actions, out[1], 1)
        posix_spawn_file_actions_adddup2(&actions, mergeStandardError ? out[1] : err[1], 2)
        // Nothing else this process has open reaches the child.
        guard GNU.addClosefrom(&actions, 3) == 0, GNU.addChdir(&actions, directory.path) == 0 else {
            throw Failure(description: "posix_spawn_file_actions for \(executable) failed")
        }

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        let envp = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer { for p in envp ?? [] { free(p) } }
        var pid: pid_t = 0
        let spawned = envp.map { posix_spawn(&pid, executable, &actions, nil, argv, $0) }
            ?? posix_spawn(&pid, executable, &actions, nil, argv, environ)
        guard spawned == 0 else { throw Failure(description: "posix_spawn \(executable): \(String(cString: strerror(spawned)))") }
        // The write ends belong to the child now; reading sees the end once it has closed them.
        close(out[1])
        out[1] = -1
        if !mergeStandardError {
            close(err[1])
            err[1] = -1
        }
        let captured = drain(mergeStandardError ? [out[0]] : [out[0], err[0]])
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { throw failure("waitpid \(pid)") }
        }
        guard let captured else { throw Failure(description: "reading the output of \(executable) failed") }
        let exited = status & 0x7F == 0
        return ProgramRun(
            status: exited ? (status >> 8) & 0xFF : status & 0x7F, exited: exited,
            stdout: String(decoding: captured[0], as: UTF8.self),
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

    /// glibc's GNU extensions (2.34 and later), which the Glibc module does not declare.
    private enum GNU {
        typealias Actions = UnsafeMutablePointer<posix_spawn_file_actions_t>
        static let pipe2: @convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32 = load("pipe2")
        static let addClosefrom: @convention(c) (Actions, Int32) -> Int32 = load("posix_spawn_file_actions_addclosefrom_np")
        static let addChdir: @convention(c) (Actions, UnsafePointer<CChar>) -> Int32 = load("posix_spawn_file_actions_addchdir_np")

        private static func load<F>(_ name: String) -> F {
            guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else {
                fatalError("\(name) is missing: glibc 2.34 or later is needed")
            }
            return unsafeBitCast(symbol, to: F.self)
        }
    }

    private static func failure(_ call: String) -> Failure {
        Failure(description: "\(call): \(String(cString: strerror(errno)))")
    }
}
