import CSandbox
#if canImport(Glibc)
import Glibc
#endif

/// The root a job child sees in its own mount namespace: a fresh tmpfs holding bind mounts of
/// exactly the paths its Landlock rules name, at the same absolute places, read-only, nosuid and
/// nodev (what it may write: read-write and noexec instead), a `/proc` (a new one of its PID
/// namespace, else the worker's), and `/dev/null`. Symbolic links on the way to a path (`/lib`,
/// `/etc/localtime`) are recreated as links and their targets bound. Worked out here, in the
/// worker, because the child may not allocate or look around; it carries the steps out
/// (`Sources/CSandbox/mounts.c`).
struct MountPlan: Sendable, Equatable {
    struct Step: Sendable, Equatable, CustomStringConvertible {
        enum Kind: Sendable, Equatable {
            case directory, file, link(String), bind(String), proc
        }

        var kind: Kind
        var target: String
        var flags: UInt = 0

        var description: String {
            switch kind {
            case .directory: return "mkdir \(target)"
            case .file: return "create \(target)"
            case .link(let text): return "symlink \(target) -> \(text)"
            case .bind(let source): return "bind \(String(source.dropFirst(SANDBOX_OLD_ROOT.count))) on \(target)"
            case .proc: return "mount proc on \(target)"
            }
        }
    }

    /// Linux's mount flags (`MS_*`, `<sys/mount.h>`) and `statvfs` flags (`ST_*`).
    enum Flag {
        static let readOnly: UInt = 1, noSUID: UInt = 2, noDev: UInt = 4, noExec: UInt = 8
        static let noAtime: UInt = 1024, noDirAtime: UInt = 2048, relatime: UInt = 1 << 21, strictAtime: UInt = 1 << 24
        static let statRelatime: UInt = 4096
    }

    /// An existing directory the tmpfs is first mounted on (it is then made the root).
    var base: String
    var steps: [Step] = []

    /// Paths the tmpfs holds (directories and files made by `steps`).
    private var made: Set<String> = ["/"]
    /// Bind mounts so far: target, and whether it is writable.
    private var bound: [(path: String, writable: Bool)] = []

    static func == (a: MountPlan, b: MountPlan) -> Bool { a.base == b.base && a.steps == b.steps }

    /// The plan for a child that may read `read` and write `write` (missing paths are left out,
    /// as Landlock leaves them; paths under /proc are served by its /proc), with a new /proc of
    /// its PID namespace when `newProc`, else the worker's bound.
    init(read: [String], write: [String], newProc: Bool) {
        base = ["/tmp", "/mnt", "/dev", "/proc"].first { Self.isDirectory($0) } ?? "/proc"
        var links: [String: String] = [:]
        var binds: [String: Bool] = [:]
        for (paths, writable) in [(read, false), (write, true)] {
            for path in paths where !Self.isSpecial(path) {
                guard let real = Self.resolve(path, links: &links), !Self.isSpecial(real) else { continue }
                binds[real] = writable || binds[real] == true
            }
        }
        make(.directory, "/proc")
        if newProc {
            steps.append(Step(kind: .proc, target: "/proc", flags: Flag.noSUID | Flag.noDev | Flag.noExec))
        } else {
            steps.append(Step(kind: .bind(SANDBOX_OLD_ROOT + "/proc"), target: "/proc",
                              flags: Self.flags("/proc", writable: true, device: false)))
        }
        make(.directory, "/dev")
        make(.file, "/dev/null")
        steps.append(Step(kind: .bind(SANDBOX_OLD_ROOT + "/dev/null"), target: "/dev/null",
                          flags: Self.flags("/dev/null", writable: true, device: true)))
        for path in binds.keys.sorted() { bind(path, writable: binds[path]!) }
        for path in links.keys.sorted() where covering(path) == nil && !made.contains(path) {
            makeParents(of: path)
            steps.append(Step(kind: .link(links[path]!), target: path))
            made.insert(path)
        }
    }

    /// Binds `path`, unless a bind with the same rights already holds it.
    private mutating func bind(_ path: String, writable: Bool) {
        if let outer = covering(path), outer.writable == writable { return }
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        let type = info.st_mode & S_IFMT
        if covering(path) == nil {
            makeParents(of: path)
            make(type == S_IFDIR ? .directory : .file, path)
        }
        steps.append(Step(kind: .bind(SANDBOX_OLD_ROOT + path), target: path,
                          flags: Self.flags(path, writable: writable, device: type == S_IFCHR)))
        bound.append((path, writable))
    }

    /// The innermost bind mount holding `path`.
    private func covering(_ path: String) -> (path: String, writable: Bool)? {
        bound.last { path == $0.path || path.hasPrefix($0.path == "/" ? "/" : $0.path + "/") }
    }

    private mutating func make(_ kind: Step.Kind, _ path: String) {
        guard !made.contains(path) else { return }
        steps.append(Step(kind: kind, target: path))
        made.insert(path)
    }

    /// The folders above `path` in the tmpfs (none inside a bind mount: they exist there).
    private mutating func makeParents(of path: String) {
        var prefix = ""
        for component in path.split(separator: "/").dropLast() {
            prefix += "/" + component
            if covering(prefix) != nil { return }
            make(.directory, prefix)
        }
    }

    /// The flags a bind of `path` is remounted with: read-only (or noexec when writable), nosuid,
    /// nodev (not for a device the rules name), and what the source's mount has that a user
    /// namespace may not drop (read-only, noexec, nodev, nosuid, its atime setting).
    static func flags(_ path: String, writable: Bool, device: Bool) -> UInt {
        var flags = Flag.noSUID | (device ? 0 : Flag.noDev) | (writable ? Flag.noExec : Flag.readOnly)
        var fs = statvfs()
        guard statvfs(path, &fs) == 0 else { return flags | Flag.relatime }
        let source = UInt(fs.f_flag)
        flags |= source & (Flag.readOnly | Flag.noSUID | Flag.noDev | Flag.noExec | Flag.noDirAtime)
        if source & Flag.noAtime != 0 {
            flags |= Flag.noAtime
        } else {
            flags |= source & Flag.statRelatime != 0 ? Flag.relatime : Flag.strictAtime
        }
        return flags
    }

    /// /proc and what lies beneath it, and /dev/null: served by the plan itself.
    static func isSpecial(_ path: String) -> Bool {
        path == "/proc" || path.hasPrefix("/proc/") || path == "/dev/null"
    }

    static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }

    /// `path` with every symbolic link on the way resolved (each recorded in `links`), or nil when
    /// a component is missing.
    static func resolve(_ path: String, links: inout [String: String]) -> String? {
        guard path.hasPrefix("/") else { return nil }
        var pending = path.split(separator: "/").map(String.init)
        var current: [String] = []
        var hops = 0
        while !pending.isEmpty {
            let component = pending.removeFirst()
            if component == "." || component.isEmpty { continue }
            if component == ".." {
                if !current.isEmpty { current.removeLast() }
                continue
            }
            let candidate = "/" + (current + [component]).joined(separator: "/")
            var info = stat()
            guard lstat(candidate, &info) == 0 else { return nil }
            guard info.st_mode & S_IFMT == S_IFLNK else {
                current.append(component)
                continue
            }
            hops += 1
            guard hops <= 40, let text = ChildExecutable.target(of: candidate) else { return nil }
            links[candidate] = text
            if text.hasPrefix("/") { current = [] }
            pending = text.split(separator: "/").map(String.init) + pending
        }
        return "/" + current.joined(separator: "/")
    }
}
