import CSandbox
import Foundation
import JSONCore
#if canImport(Glibc)
import Glibc
#endif

/// How a job's child process is confined (applied by the launcher between fork and exec, so it
/// holds for any program): resource limits (RLIMIT_NPROC among them), `PR_SET_NO_NEW_PRIVS`, the
/// parent-death signal, a Landlock ruleset (only the executable, its libraries, the fonts and
/// the job's own folders), a seccomp filter (`Sources/CSandbox/seccomp.c`), and — where the kernel allows
/// unprivileged user namespaces — a new user namespace and a new network namespace (no network
/// at all, only a loopback that is down; no capability over the worker, so it can neither
/// ptrace the worker nor read its `/proc/<pid>/environ`). As root the child can also run as
/// another uid/gid (`TRANSCODE_CHILD_UID` / `TRANSCODE_CHILD_GID`).
///
/// The worker itself is marked non-dumpable at start (`markNonDumpable`), so no other process of
/// its uid can read its environment (database URL, storage keys, service key, API token).
public struct ChildSandbox: Sendable, Equatable {
    /// `TRANSCODE_CHILD_SANDBOX`: which layers must hold.
    public enum Mode: String, Sendable {
        /// Every layer the kernel allows; a warning at start for each one missing.
        case auto
        /// The default: the worker refuses to start without Landlock and the seccomp filter, and
        /// runs (with one warning) when only the namespaces are missing.
        case require
        /// No namespaces (the other layers still apply where the kernel has them).
        case off
    }

    /// The open-descriptor limit of a job's child (RLIMIT_NOFILE).
    static let openFilesLimit = 256

    /// Address-space limit, bytes (nil: inherited).
    var memoryBytes: Int?
    /// CPU-time limit, seconds (SIGXCPU, SIGKILL 5 s later; nil: inherited).
    var cpuSeconds: Int?
    /// Largest file the child may write, bytes (RLIMIT_FSIZE; nil: inherited). Writing past it
    /// raises SIGXFSZ.
    var fileBytes: Int?
    /// RLIMIT_NOFILE (nil: inherited).
    var openFiles: Int?
    /// RLIMIT_CORE 0 (no core files).
    var noCoreFiles = true
    /// PR_SET_NO_NEW_PRIVS (setuid binaries and file capabilities gain nothing).
    var noNewPrivileges = true
    /// A new user and network namespace.
    var namespaces = false
    /// Landlock's rules (nil: no ruleset).
    var fileAccess: FileAccess?
    /// The seccomp filter.
    var syscallFilter = false
    /// RLIMIT_NPROC (nil: inherited).
    var processes: Int?
    /// SIGKILL when the thread that started the child ends (PR_SET_PDEATHSIG).
    var diesWithParent = false
    /// The uid and gid the child runs as (root only; nil: the worker's).
    var ids: (uid: uid_t, gid: gid_t)?
    /// The child's CPU niceness, 0–19, set right after fork (0, or less than the worker's own:
    /// the worker's).
    var niceness = 0

    public static func == (a: ChildSandbox, b: ChildSandbox) -> Bool {
        a.memoryBytes == b.memoryBytes && a.cpuSeconds == b.cpuSeconds && a.fileBytes == b.fileBytes
            && a.openFiles == b.openFiles && a.noCoreFiles == b.noCoreFiles && a.noNewPrivileges == b.noNewPrivileges
            && a.namespaces == b.namespaces && a.ids?.uid == b.ids?.uid && a.ids?.gid == b.ids?.gid
            && a.niceness == b.niceness && a.fileAccess == b.fileAccess && a.syscallFilter == b.syscallFilter
            && a.processes == b.processes && a.diesWithParent == b.diesWithParent
    }

    /// Nothing applied beyond what `ChildProcess` always does (process group, signals, stdio).
    static let none = ChildSandbox(noCoreFiles: false, noNewPrivileges: false)

    /// The sandbox of a job child under `config`: its limits, and namespaces when the mode is not
    /// `off` and the kernel allows them (probed once per process and id pair).
    static func forJobs(_ config: WorkerConfig) -> ChildSandbox {
        var s = ChildSandbox()
        s.memoryBytes = config.childMemoryMB > 0 ? config.childMemoryMB << 20 : nil
        s.cpuSeconds = config.childCPUSeconds > 0 ? config.childCPUSeconds : nil
        s.fileBytes = config.childFileMB << 20
        s.openFiles = openFilesLimit
        s.ids = childIDs(config)
        s.namespaces = config.childSandbox != .off && namespaceProblem(ids: s.ids) == nil
        s.diesWithParent = true
        if layers.landlockProblem == nil {
            s.fileAccess = FileAccess(read: systemReadPaths(), write: [])
        }
        s.syscallFilter = layers.seccompProblem == nil
        return s
    }

    /// The configured child ids when both are set and the worker runs as root.
    static func childIDs(_ config: WorkerConfig) -> (uid: uid_t, gid: gid_t)? {
        guard let u = config.childUID, let g = config.childGID, geteuid() == 0 else { return nil }
        return (uid_t(u), gid_t(g))
    }

    /// What is applied, for logs (`child sandbox` at start).
    var json: JSONValue {
        var o: [String: JSONValue] = [
            "namespaces": .string(namespaces ? "user+net" : "none"),
            "landlock_abi": .int(Int64(fileAccess == nil ? 0 : Self.layers.landlockABI)),
            "seccomp": .bool(syscallFilter),
            "parent_death_signal": .bool(diesWithParent),
            "rlimit_nproc": processes.map { .int(Int64($0)) } ?? .string(namespaces ? "\(Self.processBudget)" : "threads of the uid + \(Self.processBudget)"),
            "no_new_privs": .bool(noNewPrivileges),
            "rlimit_nofile": openFiles.map { .int(Int64($0)) } ?? .null,
            "rlimit_fsize_mb": fileBytes.map { .int(Int64($0 >> 20)) } ?? .null,
            "rlimit_as_mb": memoryBytes.map { .int(Int64($0 >> 20)) } ?? .null,
            "rlimit_cpu_seconds": cpuSeconds.map { .int(Int64($0)) } ?? .null,
            "core_files": .bool(!noCoreFiles),
        ]
        if let ids { o["uid"] = .int(Int64(ids.uid)); o["gid"] = .int(Int64(ids.gid)) }
        return .object(o)
    }

    // MARK: The worker side

    /// Lowers the calling thread's CPU priority to niceness `niceness` (clamped to 0–19; a
    /// thread niced more already keeps its own). On Linux each thread has its own niceness, and
    /// threads it starts later inherit it. A priority once lowered cannot be
    /// raised again without privileges: call it on a thread that ends with its work. Returns nil
    /// or the `strerror` text.
    @discardableResult
    static func lowerThreadPriority(_ niceness: Int) -> String? {
        let e = sandbox_set_thread_niceness(Int32(min(max(niceness, 0), 19)))
        return e == 0 ? nil : String(cString: strerror(e))
    }

    /// The calling thread's CPU niceness.
    static var threadNiceness: Int { Int(sandbox_get_thread_niceness()) }

    /// Marks this process non-dumpable (`PR_SET_DUMPABLE` 0): processes of the same uid can no
    /// longer read `/proc/<pid>/environ`, `mem` or `maps`, nor ptrace it. Returns nil or the
    /// `strerror` text.
    @discardableResult
    static func markNonDumpable() -> String? {
        let e = sandbox_set_nondumpable()
        return e == 0 ? nil : String(cString: strerror(e))
    }

    /// True when this process is dumpable.
    static var isDumpable: Bool { sandbox_get_dumpable() == 1 }

    /// Why namespaces cannot be used for a child running as `ids` (nil: they can). Tried once per
    /// process and id pair in a throwaway child that applies the whole setup and exits.
    static func namespaceProblem(ids: (uid: uid_t, gid: gid_t)?) -> String? {
        let key = ids.map { "\($0.uid):\($0.gid)" } ?? "-"
        probeLock.lock()
        defer { probeLock.unlock() }
        if let known = probes[key] { return known.problem }
        var s = ChildSandbox.none
        s.namespaces = true
        s.ids = ids
        let problem = probe(s)
        probes[key] = Probe(problem: problem)
        return problem
    }

    private struct Probe { var problem: String? }
    nonisolated(unsafe) private static var probes: [String: Probe] = [:]
    private static let probeLock = NSLock()

    // MARK: Launching

    /// A launch failure: the step that failed and its errno (`CHILD_SPAWN_FAILED`).
    struct LaunchError: Error, Sendable {
        var stage: String
        var errno: Int32
        var message: String { "\(stage): \(String(cString: strerror(errno)))" }
    }

    /// Forks, applies this sandbox, and executes `path` (nil: a probe that exits with 0 once
    /// everything is applied) with `arguments` (argv[0] included) and `environment` (`NAME=value`;
    /// nothing else is inherited). `stdout`/`stderr` become the child's descriptors 1 and 2 (-1:
    /// `/dev/null`); standard input is `/dev/null`; other descriptors close at exec. The child
    /// gets a process group of its own, default signal dispositions and an empty mask. Returns the
    /// child's pid once it has executed `path`; throws `LaunchError` (the child was reaped).
    func spawn(path: String?, arguments: [String], environment: [String], stdout: Int32, stderr: Int32)
        throws(LaunchError) -> pid_t {
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup($0) } + [nil]
        let cPath = path.map { strdup($0) } ?? nil
        // The program itself is always readable and executable (a descriptor path such as
        // /proc/self/fd/N names the file the worker opened, even once removed from disk).
        let readPaths = Self.cStrings((fileAccess?.read ?? []) + (path.map { [$0] } ?? []))
        let writePaths = Self.cStrings(fileAccess?.write ?? [])
        defer {
            for p in argv + envp { free(p) }
            free(cPath)
            Self.freeCStrings(readPaths)
            Self.freeCStrings(writePaths)
        }
        var failure = sandbox_failure()
        let pid: pid_t = argv.withUnsafeBufferPointer { a in
            envp.withUnsafeBufferPointer { e in
                var o = sandbox_options()
                o.landlock = fileAccess == nil ? 0 : 1
                o.read_paths = UnsafePointer(readPaths)
                o.write_paths = UnsafePointer(writePaths)
                o.seccomp = syscallFilter ? 1 : 0
                o.seccomp_allow_unix = 0
                o.rlimit_nproc = processes.map(Int64.init) ?? Int64(SANDBOX_KEEP_LIMIT)
                o.parent_death_signal = diesWithParent ? SIGKILL : 0
                o.path = UnsafePointer(cPath)
                o.argv = a.baseAddress
                o.envp = e.baseAddress
                o.stdout_fd = stdout
                o.stderr_fd = stderr
                let keep = Int64(SANDBOX_KEEP_LIMIT)
                o.rlimit_as_bytes = memoryBytes.map(Int64.init) ?? keep
                o.rlimit_cpu_seconds = cpuSeconds.map(Int64.init) ?? keep
                o.rlimit_fsize_bytes = fileBytes.map(Int64.init) ?? keep
                o.rlimit_nofile = openFiles.map(Int64.init) ?? keep
                o.rlimit_core_bytes = noCoreFiles ? 0 : keep
                o.no_new_privs = noNewPrivileges ? 1 : 0
                o.niceness = Int32(clamping: min(max(niceness, 0), 19))
                o.namespaces = namespaces ? 1 : 0
                if let ids {
                    o.change_ids = 1
                    o.uid = ids.uid
                    o.gid = ids.gid
                }
                return sandbox_spawn(&o, &failure)
            }
        }
        guard pid > 0 else { throw LaunchError(stage: Self.stageName(failure.stage), errno: failure.error) }
        return pid
    }

    /// A NULL-terminated C array of copies of `strings` (free with `freeCStrings`).
    static func cStrings(_ strings: [String]) -> UnsafeMutablePointer<UnsafePointer<CChar>?> {
        let list = UnsafeMutablePointer<UnsafePointer<CChar>?>.allocate(capacity: strings.count + 1)
        for (i, s) in strings.enumerated() { list[i] = UnsafePointer(strdup(s)) }
        list[strings.count] = nil
        return list
    }

    static func freeCStrings(_ list: UnsafeMutablePointer<UnsafePointer<CChar>?>) {
        var i = 0
        while let p = list[i] { free(UnsafeMutablePointer(mutating: p)); i += 1 }
        list.deallocate()
    }

    static func stageName(_ stage: Int32) -> String {
        switch UInt32(stage) {
        case SANDBOX_STAGE_FORK.rawValue: return "fork"
        case SANDBOX_STAGE_SIGNALS.rawValue: return "signal mask"
        case SANDBOX_STAGE_PGROUP.rawValue: return "setpgid"
        case SANDBOX_STAGE_FDS.rawValue: return "standard descriptors"
        case SANDBOX_STAGE_RLIMIT.rawValue: return "setrlimit"
        case SANDBOX_STAGE_IDS.rawValue: return "setgroups/setgid/setuid"
        case SANDBOX_STAGE_UNSHARE.rawValue: return "unshare(CLONE_NEWUSER|CLONE_NEWNET)"
        case SANDBOX_STAGE_SETGROUPS.rawValue: return "/proc/self/setgroups"
        case SANDBOX_STAGE_UID_MAP.rawValue: return "/proc/self/uid_map"
        case SANDBOX_STAGE_GID_MAP.rawValue: return "/proc/self/gid_map"
        case SANDBOX_STAGE_NO_NEW_PRIVS.rawValue: return "PR_SET_NO_NEW_PRIVS"
        case SANDBOX_STAGE_NICE.rawValue: return "setpriority"
        case SANDBOX_STAGE_EXEC.rawValue: return "execve"
        case SANDBOX_STAGE_PIPE.rawValue: return "pipe"
        case SANDBOX_STAGE_LANDLOCK.rawValue: return "landlock"
        case SANDBOX_STAGE_SECCOMP.rawValue: return "seccomp"
        case SANDBOX_STAGE_PARENT_DEATH.rawValue: return "PR_SET_PDEATHSIG"
        default: return "launch"
        }
    }
}
