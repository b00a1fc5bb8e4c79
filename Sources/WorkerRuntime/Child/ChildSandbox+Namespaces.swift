import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The namespaces a job child gets where the kernel allows them: user and network (together, the
/// base the others need), then a PID namespace and a mount namespace, each probed on its own.
extension ChildSandbox {
    /// Which namespaces hold for a child running as some ids; each problem is nil when that one
    /// holds (a PID or mount namespace also needs the user and network ones).
    struct NamespaceLayers: Sendable, Equatable {
        var problem: String?
        var pidProblem: String?
        var mountProblem: String?

        /// The layers that do not hold, with their reasons (for the start-up warning).
        var missing: [String: String] {
            var out: [String: String] = [:]
            if let problem { out["user+net"] = problem; return out }
            if let pidProblem { out["pid"] = pidProblem }
            if let mountProblem { out["mnt"] = mountProblem }
            return out
        }
    }

    /// What `namespaces` says in the `child sandbox` line: "user+net+pid+mnt", or the part of it
    /// that holds, or "none".
    var namespaceNames: String {
        guard namespaces else { return "none" }
        return "user+net" + (pidNamespace ? "+pid" : "") + (mountNamespace ? "+mnt" : "")
    }

    /// Why namespaces cannot be used for a child running as `ids` (nil: at least the user and
    /// network ones can).
    static func namespaceProblem(ids: (uid: uid_t, gid: gid_t)?) -> String? {
        namespaceLayers(ids: ids).problem
    }

    /// Which namespaces a child running as `ids` can get. Tried once per process and id pair, in
    /// throwaway children that apply the whole setup and exit: user and network first, then a PID
    /// namespace on top, then a mount namespace on top of what held, whose root holds what a
    /// job's does but its work directory: the system paths, and the folder work directories are
    /// made in as the writable one.
    static func namespaceLayers(ids: (uid: uid_t, gid: gid_t)?) -> NamespaceLayers {
        let key = ids.map { "\($0.uid):\($0.gid)" } ?? "-"
        probeLock.lock()
        defer { probeLock.unlock() }
        if let known = probes[key] { return known }
        var s = ChildSandbox.none
        s.namespaces = true
        s.ids = ids
        var held = NamespaceLayers(problem: probe(s))
        if held.problem == nil {
            s.pidNamespace = true
            held.pidProblem = probe(s)
            s.pidNamespace = held.pidProblem == nil
            s.mountNamespace = true
            s.fileAccess = FileAccess(read: systemReadPaths(), write: [JobWorkspace.baseDirectory])
            s.landlock = false
            held.mountProblem = probe(s)
        } else {
            held.pidProblem = held.problem
            held.mountProblem = held.problem
        }
        probes[key] = held
        return held
    }

    nonisolated(unsafe) private static var probes: [String: NamespaceLayers] = [:]
    private static let probeLock = NSLock()
}
