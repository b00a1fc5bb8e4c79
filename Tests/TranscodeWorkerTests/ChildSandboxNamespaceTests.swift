import Foundation
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import WorkerRuntime
import CSandbox

/// The PID and mount namespaces of a job child, in the shipped setting (`forJobs` with default
/// settings, as the tests' root user on a machine that allows namespaces, as CI is). Each test
/// fails when its layer does not hold; each shows by a control what happens without it.
@Suite("Child namespaces", .serialized)
struct ChildSandboxNamespaceTests {
    static var layers: ChildSandbox.NamespaceLayers { ChildSandbox.namespaceLayers(ids: nil) }

    /// The job sandbox of `ChildSandboxTests` (with the programs, `/proc` and `/dev/null`),
    /// required to have the PID and the mount namespace.
    static func jobSandbox() throws -> ChildSandbox {
        let held = layers
        try #require(held.problem == nil && held.pidProblem == nil && held.mountProblem == nil,
                     "namespaces missing: \(held.missing)")
        let s = ChildSandboxTests.jobSandbox
        try #require(s.namespaces && s.pidNamespace && s.mountNamespace && s.namespaceNames == "user+net+pid+mnt")
        return s
    }

    /// Runs `script` under `sandbox`; `onLine` sees each output line with the child's pid (as this
    /// process sees it) while the child runs.
    static func run(_ script: String, sandbox: ChildSandbox, executable: String = "/bin/sh",
                    onLine: (String, pid_t) -> Void = { _, _ in }, stopWhen: @escaping () -> Bool = { false })
        throws -> ChildSandboxTests.Result {
        let child = try ChildProcess(executable: executable, arguments: ["-c", script],
                                     environment: ["PATH=/usr/bin:/bin", "LANG=C"], sandbox: sandbox)
        var out: [String] = [], err: [String] = []
        let deadline = Date().addingTimeInterval(30)
        let t = child.supervise(interval: 0.05, onLine: { out.append($0); onLine($0, child.pid) },
                                onStderr: { err.append($0) }, tick: { Date() > deadline || stopWhen() })
        return ChildSandboxTests.Result(out: out, err: err, termination: t)
    }

    /// The pids of this machine's processes whose command line contains `marker`.
    static func processes(marked marker: String) -> [pid_t] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return names.compactMap { name in
            guard let pid = pid_t(name), let bytes = FileManager.default.contents(atPath: "/proc/\(name)/cmdline") else { return nil }
            let line = String(decoding: bytes.map { $0 == 0 ? 32 : $0 }, as: UTF8.self)
            return line.contains(marker) && !line.contains("-c") ? pid : nil
        }
    }

    /// The `NSpid:` line of a status file, its fields after the name.
    static func nspid(_ status: String) -> [String] {
        let line = status.split(separator: "\n").first { $0.hasPrefix("NSpid:") } ?? ""
        return line.split(whereSeparator: { $0 == "\t" || $0 == " " }).dropFirst().map(String.init)
    }

    @Test("the job child is PID 1 of a PID namespace of its own")
    func pidOne() throws {
        let sandbox = try Self.jobSandbox()
        var outside: [String] = []
        let r = try Self.run("echo $$; grep NSpid /proc/$$/status; echo READY; sleep 0.3", sandbox: sandbox,
                             onLine: { line, pid in
                                 if line == "READY" {
                                     outside = Self.nspid((try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? "")
                                 }
                             })
        #expect(r.termination == .exited(0), "\(r.text)")
        #expect(r.out.first == "1", "\(r.text)")
        // Its own /proc knows one level; this process's /proc shows both: the worker's pid, then 1.
        #expect(r.out.dropFirst().first.map { Self.nspid($0) } == ["1"], "\(r.text)")
        #expect(outside.count == 2 && outside.last == "1", "\(outside)")
    }

    @Test("a setsid() grandchild is gone the moment the job child ends, without the worker's sweep")
    func nothingOutlivesTheChild() throws {
        let sandbox = try Self.jobSandbox()
        #expect(!ChildProcess.adoptsOrphans, "this test process must not sweep orphans")
        for pidNamespace in [false, true] {
            var s = sandbox
            s.pidNamespace = pidNamespace
            let marker = "86399.\(Int.random(in: 100_000...999_999))"
            var during: [pid_t] = []
            let r = try Self.run("setsid sleep \(marker) >/dev/null 2>&1 & sleep 0.3; echo READY; sleep 0.1", sandbox: s,
                                 onLine: { line, _ in if line == "READY" { during = Self.processes(marked: marker) } })
            #expect(r.termination == .exited(0), "\(r.text)")
            #expect(during.count == 1, "the grandchild was not running while its job child ran: \(during)")
            let after = Self.processes(marked: marker)
            if pidNamespace {
                #expect(after.isEmpty, "pid \(after) outlived its job child")
            } else {
                // Control: without the PID namespace (and without the sweep) it survives.
                #expect(after == during, "control: the grandchild should outlive its job child without a PID namespace")
            }
            for pid in after { kill(pid, SIGKILL) }
        }
    }

    @Test("the job child's root holds only what it may use")
    func onlyGrantedPaths() throws {
        var sandbox = try Self.jobSandbox()
        let ws = try JobWorkspace(), other = try JobWorkspace()
        defer { ws.remove(); other.remove() }
        try "input".write(toFile: ws.inputDirectory + "/usd/scan.usdz", atomically: false, encoding: .utf8)
        try "another job".write(toFile: other.inputDirectory + "/usd/scan.usdz", atomically: false, encoding: .utf8)
        sandbox = sandbox.forWorkspace(ws)
        let script = "cat \(ws.inputDirectory)/usd/scan.usdz; echo; ls -A \(ws.root) | tr '\\n' ' '; echo; "
            + "cat /etc/passwd; cat \(other.inputDirectory)/usd/scan.usdz; ls /home; "
            + "ls /proc/self/fd >/dev/null && echo FD_OK; head -c 1 /proc/self/maps >/dev/null && echo MAPS_OK; "
            + "ls -A / | tr '\\n' ' '"
        // Landlock on top (the shipped setting): a path outside the root is not even there.
        let r = try Self.run(script, sandbox: sandbox)
        #expect(r.out.first == "input", "\(r.text)")
        for missing in ["/etc/passwd", other.inputDirectory + "/usd/scan.usdz", "/home"] {
            #expect(r.err.contains { $0.contains(missing) && $0.contains("No such file or directory") }, "\(missing): \(r.text)")
        }
        #expect(r.out.contains("FD_OK") && r.out.contains("MAPS_OK"), "\(r.text)")
        // Landlock refuses to list the root itself; the mount namespace on its own shows it.
        sandbox.landlock = false
        let bare = try Self.run(script, sandbox: sandbox)
        // The work directory holds its four folders and nothing else of the worker's.
        let own = ["in", "out", "redacted", "tmp"].filter { MountPlan.isDirectory(ws.root + "/" + $0) }
        #expect(bare.out.dropFirst().first?.split(separator: " ").map(String.init) == own, "\(bare.text)")
        let root = Set(bare.out.last?.split(separator: " ").map(String.init) ?? [])
        let granted = Set(((sandbox.fileAccess?.read ?? []) + (sandbox.fileAccess?.write ?? []))
            .compactMap { $0.split(separator: "/").first.map(String.init) } + ["proc", "dev"])
        #expect(root.isSuperset(of: ["usr", "proc", "dev", "tmp"]) && root.isSubset(of: granted), "\(root) vs \(granted)")
        #expect(!root.contains("home") && !root.contains("root"), "\(root)")
        #expect(bare.err.contains { $0.contains("/etc/passwd") && $0.contains("No such file or directory") }, "\(bare.text)")
    }

    @Test("the job child runs through a descriptor path of the worker, as the job executable does")
    func descriptorPath() throws {
        let sandbox = try Self.jobSandbox()
        let fd = open("/usr/bin/bash", O_RDONLY | O_CLOEXEC)
        try #require(fd >= 0)
        defer { close(fd) }
        let r = try Self.run("echo $$; echo ran", sandbox: sandbox, executable: "/proc/self/fd/\(fd)")
        #expect(r.termination == .exited(0), "\(r.text)")
        #expect(r.out == ["1", "ran"], "\(r.text)")
    }

    @Test("signals: SIGTERM from the worker does not reach PID 1 without a handler, SIGKILL (the cancel path) does")
    func cancellation() throws {
        let sandbox = try Self.jobSandbox()
        for pidNamespace in [false, true] {
            var s = sandbox
            s.pidNamespace = pidNamespace
            var aliveAfterTerm: Bool?
            let r = try Self.run("echo READY; while :; do sleep 0.05; done", sandbox: s, onLine: { line, pid in
                guard line == "READY" else { return }
                kill(pid, SIGTERM)
                usleep(300_000)
                let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
                aliveAfterTerm = !stat.isEmpty && !stat.contains(") Z ")
            }, stopWhen: { aliveAfterTerm != nil })
            if pidNamespace {
                #expect(aliveAfterTerm == true, "a namespace's PID 1 without a handler ignores SIGTERM from outside")
                #expect(r.termination == .signaled(SIGKILL), "\(r.termination)")
            } else {
                #expect(aliveAfterTerm == false)
                #expect(r.termination == .signaled(SIGTERM), "\(r.termination)")
            }
        }
    }

    @Test("the mount plan: links on the way recreated, each path bound once per rights, /proc and /dev/null its own")
    func mountPlan() throws {
        let dir = NSTemporaryDirectory() + "mount-plan-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir + "/real/sub", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try #require(symlink("real", dir + "/link") == 0)
        var links: [String: String] = [:]
        let real = try #require(MountPlan.resolve(dir, links: &links))
        let plan = MountPlan(read: [dir + "/link/sub", dir + "/real", dir + "/missing", "/proc/self/fd/3"],
                             write: [dir + "/link/sub"], newProc: true)
        let binds = plan.steps.compactMap { step -> (String, UInt)? in
            if case .bind = step.kind, step.target != "/dev/null" { return (step.target, step.flags) }
            return nil
        }
        // Read and written through the link: bound once, read-write, inside the read-only folder.
        #expect(binds.map(\.0) == [real + "/real", real + "/real/sub"], "\(plan.steps)")
        #expect(binds.first.map { $0.1 & MountPlan.Flag.readOnly != 0 && $0.1 & MountPlan.Flag.noExec == 0 } == true)
        #expect(binds.last.map { $0.1 & MountPlan.Flag.readOnly == 0 && $0.1 & MountPlan.Flag.noExec != 0 } == true)
        #expect(binds.allSatisfy { $0.1 & MountPlan.Flag.noSUID != 0 && $0.1 & MountPlan.Flag.noDev != 0 })
        #expect(plan.steps.contains(MountPlan.Step(kind: .link("real"), target: real + "/link")), "\(plan.steps)")
        #expect(plan.steps.contains { $0.kind == .proc && $0.target == "/proc" })
        #expect(plan.steps.contains { $0.kind == .bind(SANDBOX_OLD_ROOT + "/dev/null") && $0.flags & MountPlan.Flag.noDev == 0 })
        #expect(!plan.steps.contains { $0.target.contains("missing") || $0.target.hasPrefix("/proc/") }, "\(plan.steps)")
        // Every folder above a bind is made before it, once.
        let made = plan.steps.filter { $0.kind == .directory }.map(\.target)
        #expect(Set(made).count == made.count && made.contains(real), "\(made)")
    }

    /// What each layer adds to a launch: `TRANSCODE_MEASURE_LAUNCH=1 swift test --filter launchCost`
    /// prints the mean time to launch `/bin/true` and reap it, over 200 runs per setting, with a
    /// job's sandbox and workspace (the figures of docs/SECURITY.md).
    @Test("launch cost per layer", .enabled(if: ProcessInfo.processInfo.environment["TRANSCODE_MEASURE_LAUNCH"] == "1"))
    func launchCost() throws {
        let ws = try JobWorkspace()
        defer { ws.remove() }
        let full = try Self.jobSandbox().forWorkspace(ws)
        var settings: [(String, ChildSandbox)] = []
        for names in ["none", "user+net", "user+net+pid", "user+net+mnt", "user+net+pid+mnt"] {
            var s = full
            s.namespaces = names != "none"
            s.pidNamespace = names.contains("pid")
            s.mountNamespace = names.contains("mnt")
            settings.append((names, s))
        }
        for (name, sandbox) in settings + settings {
            let start = Date()
            for _ in 0..<200 {
                let child = try ChildProcess(executable: "/bin/true", arguments: [], environment: [], sandbox: sandbox)
                #expect(child.waitBlocking() == .exited(0))
            }
            print("launch cost, namespaces \(name): \(String(format: "%.2f", Date().timeIntervalSince(start) * 1000 / 200)) ms")
        }
    }
}
