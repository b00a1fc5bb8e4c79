import CSandbox
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Nothing a job child starts outlives its job. The worker is a child subreaper
/// (`PR_SET_CHILD_SUBREAPER`, `adoptOrphans`): whatever a child forks and leaves behind, in a
/// session of its own (`setsid`) or not, becomes the worker's child when its parent ends. When a
/// job child has been reaped, every child of the worker that is not a live job child is killed
/// and reaped, round after round until none is left (`sweepOrphans`). So only a process whose
/// every child is a job child may adopt orphans: the `transcode-worker` executable does it at
/// start (`ChildSandbox.adoptOrphans`), never a process that embeds the commands (the tests).
extension ChildProcess {
    /// The launcher's children that are alive and not yet reaped: never swept. Spawning holds the
    /// lock, so a sweep never sees a child between its fork and its registration.
    final class Registry: @unchecked Sendable {
        let lock = NSLock()
        var live: Set<pid_t> = []
        /// Set once `adoptOrphans` succeeded: sweeping is on.
        var adopting = false
    }

    static let registry = Registry()

    /// Makes this process a child subreaper and turns sweeping on. Returns nil or the `strerror` text.
    @discardableResult
    static func adoptOrphans() -> String? {
        let e = sandbox_set_subreaper()
        guard e == 0 else { return String(cString: strerror(e)) }
        registry.lock.lock()
        registry.adopting = true
        registry.lock.unlock()
        return nil
    }

    /// True when this process adopts orphans and sweeps them.
    static var adoptsOrphans: Bool {
        registry.lock.lock()
        defer { registry.lock.unlock() }
        return registry.adopting
    }

    /// Kills and reaps every child of this process that is not a live job child; returns how
    /// many there were. Does nothing unless `adoptOrphans` succeeded.
    @discardableResult
    static func sweepOrphans() -> Int {
        var total = 0
        for _ in 0..<64 {
            registry.lock.lock()
            guard registry.adopting else { registry.lock.unlock(); return 0 }
            let orphans = childrenOfThisProcess().subtracting(registry.live)
            for pid in orphans { _ = Glibc.kill(pid, SIGKILL) }
            registry.lock.unlock()
            if orphans.isEmpty { break }
            for pid in orphans {
                var status: Int32 = 0
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            }
            total += orphans.count
        }
        return total
    }

    /// The pids whose parent is this process (`/proc/<pid>/stat`, field 4).
    static func childrenOfThisProcess() -> Set<pid_t> {
        let me = getpid()
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        var out: Set<pid_t> = []
        for name in names where name.first?.isNumber == true {
            guard let text = try? String(contentsOfFile: "/proc/\(name)/stat", encoding: .utf8),
                  let close = text.lastIndex(of: ")") else { continue }
            let fields = text[text.index(after: close)...].split(separator: " ")
            if fields.count > 1, pid_t(fields[1]) == me, let pid = pid_t(name) { out.insert(pid) }
        }
        return out
    }
}
