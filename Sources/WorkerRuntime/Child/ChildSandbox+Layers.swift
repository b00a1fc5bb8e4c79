import CSandbox
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The layers that need no privilege: Landlock (what the child may read and write), the seccomp
/// filter (the system calls it may make), RLIMIT_NPROC and the parent-death signal. Each is
/// probed once per process; `TRANSCODE_CHILD_SANDBOX=require` refuses to start without them.
extension ChildSandbox {
    /// Paths a job child may read, and read and write (Landlock rules).
    struct FileAccess: Sendable, Equatable {
        var read: [String]
        var write: [String]
    }

    /// The processes (threads included) a job child may add to its uid's count: its own threads
    /// (the Swift runtime's pools among them) and nothing like a fork bomb.
    static let processBudget = 256

    /// What a job child reads besides its workspace and its executable (`spawn` adds that): the
    /// shared libraries this process has loaded (the child links the same runtime and C
    /// libraries) and the system library folders, the dynamic loader's cache, the fonts and their configuration (the floor
    /// plan's text), the time zone, and the processor counts the runtime sizes its pools by.
    /// Nothing of `/proc`: a rule there would name the worker's own `/proc/self`.
    static func systemReadPaths() -> [String] {
        var paths = ["/usr/lib", "/lib", "/lib64", "/usr/lib64", "/etc/ld.so.cache",
                     "/usr/share/fonts", "/usr/local/share/fonts", "/etc/fonts", "/usr/share/fontconfig",
                     "/var/cache/fontconfig", "/etc/localtime", "/usr/share/zoneinfo", "/sys/devices/system/cpu"]
        for dir in libraryDirectories where !paths.contains(where: { dir == $0 || dir.hasPrefix($0 + "/") }) {
            paths.append(dir)
        }
        return paths
    }

    /// The folders of the shared objects mapped into this process, read once: before the worker
    /// marks itself non-dumpable (`prepareWorker`), since `/proc/self/maps` then belongs to root.
    static let libraryDirectories = loadedLibraryDirectories()

    /// The folders of the shared objects mapped into this process (`/proc/self/maps`).
    static func loadedLibraryDirectories() -> [String] {
        // Read to its end with read(2): the file reports a size of 0, which whole-file readers trust.
        let fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return [] }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            bytes += chunk[..<n]
        }
        let maps = String(decoding: bytes, as: UTF8.self)
        var dirs: [String] = []
        for line in maps.split(separator: "\n") {
            guard let slash = line.firstIndex(of: "/") else { continue }
            let path = String(line[slash...])
            guard path.contains(".so"), let cut = path.lastIndex(of: "/") else { continue }
            let dir = String(path[..<cut])
            if !dir.isEmpty, !dirs.contains(dir) { dirs.append(dir) }
        }
        return dirs
    }

    /// This sandbox for a job in `ws`: its inputs readable, `out/` and its own `tmp/` writable,
    /// and, without a user namespace of its own, a process limit above what the child's uid
    /// already runs.
    func forWorkspace(_ ws: JobWorkspace) -> ChildSandbox {
        var s = self
        if var access = s.fileAccess {
            access.read += [ws.inputDirectory, ws.redactedDirectory]
            access.write += [ws.outputDirectory, ws.tempDirectory]
            s.fileAccess = access
        }
        s.processes = Self.processLimit(uid: ids?.uid ?? getuid(), namespaces: namespaces)
        return s
    }

    /// RLIMIT_NPROC for a child running as `uid`: in a user namespace of its own only its own
    /// processes count, otherwise every thread of every process of that uid does.
    static func processLimit(uid: uid_t, namespaces: Bool) -> Int {
        namespaces ? processBudget : threadCount(uid: uid) + processBudget
    }

    /// The threads of every process whose real uid is `uid`.
    static func threadCount(uid: uid_t) -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        var total = 0
        for pid in names where pid.first?.isNumber == true {
            guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { continue }
            var real: uid_t?, threads = 0
            for line in status.split(separator: "\n") {
                if line.hasPrefix("Uid:") { real = line.split(whereSeparator: { $0 == "\t" || $0 == " " }).dropFirst().first.flatMap { uid_t($0) } }
                if line.hasPrefix("Threads:") { threads = Int(line.dropFirst(8).trimmingCharacters(in: .whitespaces)) ?? 1 }
            }
            if real == uid { total += threads }
        }
        return total
    }

    // MARK: Probes

    /// What the unprivileged layers can do here, probed once per process.
    struct Layers: Sendable {
        /// Landlock's ABI version (0: unavailable, with `landlockProblem`).
        var landlockABI: Int
        var landlockProblem: String?
        /// Why the seccomp filter cannot be installed (nil: it can).
        var seccompProblem: String?

        /// The names of the layers that cannot be installed, with their reasons.
        var missing: [(layer: String, reason: String)] {
            var out: [(String, String)] = []
            if let landlockProblem { out.append(("landlock", landlockProblem)) }
            if let seccompProblem { out.append(("seccomp", seccompProblem)) }
            return out
        }
    }

    static let layers: Layers = probeLayers()

    private static func probeLayers() -> Layers {
        var error: Int32 = 0
        let abi = Int(sandbox_landlock_abi(&error))
        var landlockProblem: String? = abi >= 1 ? nil : "landlock_create_ruleset: \(String(cString: strerror(error)))"
        if landlockProblem == nil {
            // Applying a ruleset (what a seccomp profile around the worker could still refuse).
            var s = ChildSandbox.none
            s.fileAccess = FileAccess(read: [], write: [])
            landlockProblem = probe(s)
        }
        ChildProcess.registry.lock.lock()
        let seccompError = sandbox_seccomp_available()   // a throwaway child: no sweep may take it
        ChildProcess.registry.lock.unlock()
        return Layers(landlockABI: landlockProblem == nil ? abi : 0, landlockProblem: landlockProblem,
                      seccompProblem: seccompError == 0 ? nil : "seccomp: \(String(cString: strerror(seccompError)))")
    }

    /// Launches a probe child with `sandbox`; nil when it got everything applied. Holds the
    /// registry's lock throughout, so no sweep takes the probe child for an orphan.
    static func probe(_ sandbox: ChildSandbox) -> String? {
        ChildProcess.registry.lock.lock()
        defer { ChildProcess.registry.lock.unlock() }
        do {
            let pid = try sandbox.spawn(path: nil, arguments: [], environment: [], stdout: -1, stderr: -1)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            return status == 0 ? nil : "the probe child ended with status \(status)"
        } catch {
            return error.message
        }
    }
}
