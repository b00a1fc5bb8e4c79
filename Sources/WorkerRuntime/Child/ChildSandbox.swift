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
/// ptrace the worker nor read its `/proc/<pid>/environ`), a PID namespace whose PID 1 is the
/// child (whatever it starts ends with it) and a mount namespace whose root holds only the paths
/// its Landlock rules name (`MountPlan`). As root the child can also run as another uid/gid
/// (`TRANSCODE_CHILD_UID` / `TRANSCODE_CHILD_GID`).
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
    /// CPU-time limit, seconds (SIGXCPU, SIGKILL 5 s later; a PID namespace's PID 1 gets only the
    /// SIGKILL; nil: inherited).
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
    /// With `namespaces`: a PID namespace whose PID 1 is the child. Signals it has no handler for
    /// reach it only as SIGKILL or SIGSTOP from the worker, and not at all from inside (SIGXFSZ
    /// among them: a write past the file-size limit fails with EFBIG instead).
    var pidNamespace = false
    /// With `namespaces`: a mount namespace whose root holds only the paths of `fileAccess`.
    var mountNamespace = false
    /// The paths the child may use: Landlock's rules (when `landlock`) and what its mount
    /// namespace holds (nil: no ruleset, an empty root).
    var fileAccess: FileAccess?
    /// Landlock applies `fileAccess`.
    var landlock = true
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
            && a.processes == b.processes && a.diesWithParent == b.diesWithParent && a.landlock == b.landlock
            && a.pidNamespace == b.pidNamespace && a.mountNamespace == b.mountNamespace
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
        if config.childSandbox != .off {
            let held = namespaceLayers(ids: s.ids)
            s.namespaces = held.problem == nil
            s.pidNamespace = s.namespaces && held.pidProblem == nil
            s.mountNamespace = s.namespaces && held.mountProblem == nil
        }
        s.diesWithParent = true
        s.fileAccess = FileAccess(read: systemReadPaths(), write: [])
        s.landlock = layers.landlockProblem == nil
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
            "namespaces": .string(namespaceNames),
            "landlock_abi": .int(Int64(fileAccess == nil || !landlock ? 0 : Self.layers.landlockABI)),
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
        let read = (fileAccess?.read ?? []) + (path.map { [$0] } ?? []), write = fileAccess?.write ?? []
        let readPaths = Self.cStrings(read)
        let writePaths = Self.cStrings(write)
        let plan = namespaces && mountNamespace ? MountPlan(read: read, write: write, newProc: pidNamespace) : nil
        let mounts = (plan?.steps ?? []).map(Self.cMount)
        let base = strdup(plan?.base ?? "/")
        defer {
            for p in argv + envp { free(p) }
            free(cPath)
            free(base)
            Self.freeCStrings(readPaths)
            Self.freeCStrings(writePaths)
            for m in mounts { Self.freeMount(m) }
        }
        var failure = sandbox_failure()
        let pid: pid_t = argv.withUnsafeBufferPointer { a in
            envp.withUnsafeBufferPointer { e in mounts.withUnsafeBufferPointer { m in
                var o = sandbox_options()
                o.landlock = fileAccess == nil || !landlock ? 0 : 1
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
                o.pid_namespace = namespaces && pidNamespace ? 1 : 0
                if plan != nil {
                    o.mounts = m.baseAddress
                    o.mount_count = m.count
                    o.mount_base = UnsafePointer(base)
                }
                if let ids {
                    o.change_ids = 1
                    o.uid = ids.uid
                    o.gid = ids.gid
                }
                return sandbox_spawn(&o, &failure)
            } }
        }
        guard pid > 0 else {
            var stage = Self.stageName(failure.stage)
            if let steps = plan?.steps, steps.indices.contains(Int(failure.detail)) { stage += " (\(steps[Int(failure.detail)]))" }
            throw LaunchError(stage: stage, errno: failure.error)
        }
        return pid
    }

    /// A step of a mount plan as the C structure (its strings copied: free with `freeMount`).
    static func cMount(_ step: MountPlan.Step) -> sandbox_mount {
        var m = sandbox_mount()
        m.target = UnsafePointer(strdup(step.target))
        m.flags = step.flags
        switch step.kind {
        case .directory: m.kind = Int32(SANDBOX_MOUNT_DIR.rawValue)
        case .file: m.kind = Int32(SANDBOX_MOUNT_FILE.rawValue)
        case .link(let text): m.kind = Int32(SANDBOX_MOUNT_LINK.rawValue); m.source = UnsafePointer(strdup(text))
        case .bind(let source): m.kind = Int32(SANDBOX_MOUNT_BIND.rawValue); m.source = UnsafePointer(strdup(source))
        case .proc: m.kind = Int32(SANDBOX_MOUNT_PROC.rawValue)
        }
        return m
    }

    static func freeMount(_ m: sandbox_mount) {
        Glibc.free(UnsafeMutablePointer(mutating: m.target))
        Glibc.free(UnsafeMutablePointer(mutating: m.source))
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
        case SANDBOX_STAGE_UNSHARE.rawValue: return "unshare (namespaces)"
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
        case SANDBOX_STAGE_PID_NAMESPACE.rawValue: return "PID namespace"
        case SANDBOX_STAGE_MOUNT.rawValue: return "mount namespace"
        default: return "launch"
        }
    }
}
