import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Starts programs for the tests with `posix_spawn`: the given descriptors as standard input,
/// output and error, nothing else this process has open, in a given directory and environment.
/// `ProgramRun` and `BackgroundProgram` start their programs here.
enum Spawner {
    /// A call that failed and its errno text.
    struct Failure: Error, CustomStringConvertible {
        var description: String

        init(_ call: String, errno code: Int32 = errno) {
            description = "\(call): \(String(cString: strerror(code)))"
        }
    }

    /// Starts `executable` (a path, not searched for) with `arguments` in `directory` and
    /// `environment` (nil: this process's), `stdin`, `stdout` and `stderr` as descriptors 0, 1
    /// and 2; returns its process id. The caller keeps its descriptors and reaps the child.
    static func spawn(
        _ executable: String, _ arguments: [String], in directory: URL, environment: [String: String]?,
        stdin: Int32, stdout: Int32, stderr: Int32
    ) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdin, 0)
        posix_spawn_file_actions_adddup2(&actions, stdout, 1)
        posix_spawn_file_actions_adddup2(&actions, stderr, 2)
        guard GNU.addClosefrom(&actions, 3) == 0, GNU.addChdir(&actions, directory.path) == 0 else {
            throw Failure("posix_spawn_file_actions for \(executable)")
        }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        let envp = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer { for p in envp ?? [] { free(p) } }
        var pid: pid_t = 0
        let result = envp.map { posix_spawn(&pid, executable, &actions, nil, argv, $0) }
            ?? posix_spawn(&pid, executable, &actions, nil, argv, environ)
        guard result == 0 else { throw Failure("posix_spawn \(executable)", errno: result) }
        return pid
    }

    /// A pipe whose two ends close on exec.
    static func pipe() throws -> (read: Int32, write: Int32) {
        var fds: [Int32] = [-1, -1]
        guard GNU.pipe2(&fds, O_CLOEXEC) == 0 else { throw Failure("pipe2") }
        return (fds[0], fds[1])
    }

    /// `path` opened close-on-exec with `flags` (and mode 0644 when it is created).
    static func open(_ path: String, _ flags: Int32) throws -> Int32 {
        let fd = Glibc.open(path, flags | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw Failure("open \(path)") }
        return fd
    }

    /// Waits for `pid` (retrying when interrupted) or, with `block` false, only looks; nil while
    /// it runs. The result is its exit status, or the signal that ended it with `exited` false.
    static func wait(_ pid: pid_t, block: Bool) throws -> (status: Int32, exited: Bool)? {
        var status: Int32 = 0
        while true {
            let r = waitpid(pid, &status, block ? 0 : WNOHANG)
            if r == pid { break }
            if r == 0 { return nil }
            guard errno == EINTR else { throw Failure("waitpid \(pid)") }
        }
        let exited = status & 0x7F == 0
        return (exited ? (status >> 8) & 0xFF : status & 0x7F, exited)
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
}
