import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A program started in the background (through `Spawner`, like `ProgramRun`): standard input
/// from /dev/null, standard output and standard error into files or /dev/null. It is reaped by
/// its own process id once `isRunning` or `waitUntilExit` sees it end, and signals are sent only
/// before that, so they never reach a process that took over its id.
public final class BackgroundProgram: @unchecked Sendable {
    public let processIdentifier: pid_t
    private let lock = NSLock()
    private var ending: (status: Int32, exited: Bool)?

    /// Starts `executable` with `arguments` in `directory` and `environment` (nil: this
    /// process's); `standardOutput` and `standardError` are files to write (created, or emptied),
    /// nil for /dev/null. Throws when the files cannot be opened or the program cannot start.
    public init(
        _ executable: String, _ arguments: [String], in directory: URL = TestPaths.packageRoot,
        environment: [String: String]? = nil, standardOutput: String? = nil, standardError: String? = nil
    ) throws {
        var fds: [Int32] = []
        defer { for fd in fds { close(fd) } }
        let null = try Spawner.open("/dev/null", O_RDWR)
        fds.append(null)
        func sink(_ path: String?) throws -> Int32 {
            guard let path else { return null }
            let fd = try Spawner.open(path, O_WRONLY | O_CREAT | O_TRUNC)
            fds.append(fd)
            return fd
        }
        let out = try sink(standardOutput), err = try sink(standardError)
        processIdentifier = try Spawner.spawn(
            executable, arguments, in: directory, environment: environment, stdin: null, stdout: out, stderr: err)
    }

    deinit {
        if isRunning {
            kill(processIdentifier, SIGKILL)
            waitUntilExit()
        }
    }

    /// Whether the program is still running (reaping it when it has ended).
    public var isRunning: Bool {
        lock.lock()
        defer { lock.unlock() }
        if ending == nil, let ended = try? Spawner.wait(processIdentifier, block: false) { ending = ended }
        return ending == nil
    }

    /// Waits until the program has ended and is reaped.
    public func waitUntilExit() {
        lock.lock()
        defer { lock.unlock() }
        if ending == nil { ending = (try? Spawner.wait(processIdentifier, block: true)) ?? (-1, false) }
    }

    /// Sends `signal` unless the program has already been reaped.
    public func signal(_ signal: Int32) {
        lock.lock()
        defer { lock.unlock() }
        if ending == nil { kill(processIdentifier, signal) }
    }

    /// The exit status, or the signal that ended it; only once it has ended.
    public var terminationStatus: Int32 {
        waitUntilExit()
        return ending!.status
    }

    /// True when the program exited (false: a signal ended it).
    public var exited: Bool {
        waitUntilExit()
        return ending!.exited
    }
}
