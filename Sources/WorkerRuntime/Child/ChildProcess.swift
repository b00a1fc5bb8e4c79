import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A child process started by the job launcher (`ChildSandbox.spawn`: fork, confinement,
/// execve), with its standard output and standard error piped to this process, in a process
/// group of its own (so a terminal's Ctrl-C or a signal to the worker's group does not reach it;
/// the worker decides when it dies). Signal dispositions and the signal mask are reset to the
/// defaults in the child. Standard input is `/dev/null`; no other descriptor of the worker
/// reaches the child (all are closed at exec). Once the child has been reaped, whatever is left
/// of its process group is killed. Where the child has a PID namespace of its own (it is its
/// PID 1), whatever it started is gone by then: the kernel kills a namespace's processes when its
/// PID 1 ends. The worker stops a child with SIGKILL only: a namespace's PID 1 takes no other
/// signal from outside it unless it handles it.
///
/// Not thread-safe: one thread starts, supervises and reaps it.
final class ChildProcess {
    /// How the child ended.
    enum Termination: Sendable, Equatable, CustomStringConvertible {
        case exited(Int32)
        case signaled(Int32)

        var description: String {
            switch self {
            case .exited(let s): return "exited with status \(s)"
            case .signaled(let s): return "killed by signal \(s)"
            }
        }
    }

    /// A spawn failure (`CHILD_SPAWN_FAILED`), a worker fault.
    struct SpawnError: Error, Sendable, CustomStringConvertible {
        var message: String
        var description: String { "CHILD_SPAWN_FAILED: \(message)" }
    }

    let pid: pid_t
    /// What the launcher applied to the child.
    let sandbox: ChildSandbox
    private var stdoutFD: Int32
    private var stderrFD: Int32
    private var termination: Termination?

    /// The longest line accepted from the child; a longer one is cut and delivered as is.
    static let maxLineBytes = 1 << 20

    /// Starts `executable` with `arguments` (without argv[0]) and `environment` (`NAME=value`
    /// entries; nothing else is inherited), confined by `sandbox` (limits, no new privileges,
    /// namespaces, ids). Throws `SpawnError` when any of it cannot be applied or exec fails.
    init(executable: String, arguments: [String], environment: [String],
         sandbox: ChildSandbox = .none) throws(SpawnError) {
        // Socket pairs rather than pipes: they are created close-on-exec in one call, so a child
        // another thread starts meanwhile never inherits them (which would hold off end-of-file).
        // Linux's SOCK_STREAM | SOCK_CLOEXEC, spelled out: in whole-module builds the Glibc names can
        // be shadowed by the libmicrohttpd module, which includes <sys/socket.h> too.
        let streamCloexec: Int32 = 1 | 0o2000000
        var out: [Int32] = [-1, -1], err: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, streamCloexec, 0, &out) == 0 else {
            throw SpawnError(message: "socketpair: \(String(cString: strerror(errno)))")
        }
        guard socketpair(AF_UNIX, streamCloexec, 0, &err) == 0 else {
            let e = errno
            close(out[0]); close(out[1])
            throw SpawnError(message: "socketpair: \(String(cString: strerror(e)))")
        }
        let child: pid_t
        Self.registry.lock.lock()
        defer { Self.registry.lock.unlock() }
        do {
            child = try sandbox.spawn(path: executable, arguments: [executable] + arguments, environment: environment,
                                      stdout: out[1], stderr: err[1])
            Self.registry.live.insert(child)
        } catch {
            close(out[0]); close(out[1]); close(err[0]); close(err[1])
            throw SpawnError(message: "cannot start \(executable): \(error.message)")
        }
        close(out[1])
        close(err[1])
        pid = child
        self.sandbox = sandbox
        stdoutFD = out[0]
        stderrFD = err[0]
    }

    deinit {
        if termination == nil {
            kill()
            _ = waitBlocking()
        }
        closePipes()
    }

    /// Kills the child and its process group with SIGKILL (no effect once it was reaped).
    func kill() {
        guard termination == nil else { return }
        _ = Glibc.kill(-pid, SIGKILL)
        _ = Glibc.kill(pid, SIGKILL)
    }

    /// Reads the child's output until it has exited, calling `onLine` for each complete stdout
    /// line and `onStderr` for each stderr line, and `tick` at least every `interval` seconds;
    /// when `tick` returns true the child is killed at once (SIGKILL). Returns how it ended.
    func supervise(interval: Double, onLine: (String) -> Void, onStderr: (String) -> Void,
                   tick: () -> Bool) -> Termination {
        let ms = Int32(max(1, min(interval, 1) * 1000))
        var outLines = LineSplitter(), errLines = LineSplitter()
        while stdoutFD >= 0 || stderrFD >= 0 {
            var fds = [pollfd(fd: stdoutFD, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: stderrFD, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&fds, 2, ms)
            if ready > 0 {
                if fds[0].revents != 0 {
                    let (lines, open) = readAvailable(stdoutFD, into: &outLines)
                    lines.forEach(onLine)
                    if !open { close(stdoutFD); stdoutFD = -1 }
                }
                if fds[1].revents != 0 {
                    let (lines, open) = readAvailable(stderrFD, into: &errLines)
                    lines.forEach(onStderr)
                    if !open { close(stderrFD); stderrFD = -1 }
                }
            }
            if tick() {
                kill()
                closePipes()
                return waitBlocking()
            }
        }
        // Both streams closed: the child is exiting; reap it without blocking for ever, looking
        // again after 1 ms, then twice as long each time up to 50 ms (it is usually gone at once).
        var pause: UInt32 = 1
        while true {
            if let t = tryWait() { return t }
            if tick() {
                kill()
                return waitBlocking()
            }
            usleep(min(pause, UInt32(min(ms, 50))) * 1000)
            pause = min(pause * 2, 50)
        }
    }

    /// Reads what `fd` has now; returns the complete lines and whether the stream is still open
    /// (at its end, a last unterminated line is returned too).
    private func readAvailable(_ fd: Int32, into splitter: inout LineSplitter) -> ([String], Bool) {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n < 0 && (errno == EINTR || errno == EAGAIN) { return ([], true) }
        if n <= 0 { return (splitter.finish(), false) }
        return (splitter.append(chunk[..<n]), true)
    }

    /// Splits a byte stream into lines (without the `\n`); a line longer than `maxLineBytes` is
    /// cut there.
    private struct LineSplitter {
        var pending: [UInt8] = []

        mutating func append(_ bytes: ArraySlice<UInt8>) -> [String] {
            pending += bytes
            var lines: [String] = []
            var start = 0
            while let nl = pending[start...].firstIndex(of: UInt8(ascii: "\n")) {
                lines.append(String(decoding: pending[start..<nl], as: UTF8.self))
                start = nl + 1
            }
            pending.removeFirst(start)
            if pending.count > ChildProcess.maxLineBytes {
                lines.append(String(decoding: pending, as: UTF8.self))
                pending = []
            }
            return lines
        }

        mutating func finish() -> [String] {
            defer { pending = [] }
            return pending.isEmpty ? [] : [String(decoding: pending, as: UTF8.self)]
        }
    }

    /// Reaps the child if it has exited.
    func tryWait() -> Termination? {
        if let termination { return termination }
        var status: Int32 = 0
        let r = waitpid(pid, &status, WNOHANG)
        guard r == pid else {
            if r < 0 && errno == ECHILD {
                // Reaped elsewhere (a process-wide SIGCHLD handler): the status is unknown.
                termination = .exited(-1)
                killLeftovers()
            }
            return termination
        }
        termination = Self.decode(status)
        killLeftovers()
        return termination
    }

    /// Waits until the child has exited and reaps it.
    func waitBlocking() -> Termination {
        if let termination { return termination }
        var status: Int32 = 0
        while true {
            let r = waitpid(pid, &status, 0)
            if r == pid { break }
            if r < 0 && errno == EINTR { continue }
            termination = .exited(-1)
            return .exited(-1)
        }
        termination = Self.decode(status)
        killLeftovers()
        return termination!
    }

    /// Kills what is left of the child's process group (processes it started that outlived it;
    /// the group id cannot be reused while any member lives, so this reaches no one else), then,
    /// in a worker that adopts orphans, every descendant that left the group (`sweepOrphans`).
    private func killLeftovers() {
        _ = Glibc.kill(-pid, SIGKILL)
        Self.registry.lock.lock()
        Self.registry.live.remove(pid)
        Self.registry.lock.unlock()
        Self.sweepOrphans()
    }

    private func closePipes() {
        if stdoutFD >= 0 { close(stdoutFD); stdoutFD = -1 }
        if stderrFD >= 0 { close(stderrFD); stderrFD = -1 }
    }

    /// `WIFEXITED` / `WEXITSTATUS` / `WTERMSIG` (macros Swift does not import).
    static func decode(_ status: Int32) -> Termination {
        let low = status & 0x7f
        if low == 0 { return .exited((status >> 8) & 0xff) }
        return .signaled(low)
    }
}
