import Foundation
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import TranscodeWorker
@testable import ObjectStorage
@testable import WorkerRuntime
@testable import WorkerCore

/// The job child launcher (`ChildSandbox` through `ChildProcess`, exactly as `JobAttempt` starts
/// `job-exec`), driven with `/bin/sh` and `bash`: what a compromised decoder could try.
@Suite("Child sandbox", .serialized)
struct ChildSandboxTests {
    /// Why namespaces are unavailable here (nil: they are available).
    static let namespaceProblem = ChildSandbox.namespaceProblem(ids: nil)

    /// The sandbox job children get under default settings, with what the shell commands below
    /// need on top of a job child's files: the programs, `/proc` and `/dev/null`.
    static var jobSandbox: ChildSandbox {
        var s = ChildSandbox.forJobs(WorkerConfig(environment: [:]))
        s.fileAccess?.read += ["/usr/bin", "/bin", "/proc"]
        s.fileAccess?.write += ["/dev/null"]
        return s
    }

    /// True when a missing layer must fail the test instead of being reported and skipped
    /// (`TRANSCODE_REQUIRE_SANDBOX=1`, set by scripts/test.sh: CI's kernel has every layer).
    static var sandboxRequired: Bool { ProcessInfo.processInfo.environment["TRANSCODE_REQUIRE_SANDBOX"] == "1" }

    /// Reports a missing layer: a failure when the layers are required, else a note.
    static func missing(_ what: String) {
        if sandboxRequired {
            Issue.record("child sandbox: \(what), and TRANSCODE_REQUIRE_SANDBOX=1")
        } else {
            print("child sandbox: \(what)")
        }
    }

    struct Result {
        var out: [String]
        var err: [String]
        var termination: ChildProcess.Termination
        var text: String { (out + err).joined(separator: "\n") }
    }

    /// Runs `program` with `arguments` through the launcher, collecting its output.
    static func launch(_ program: String, _ arguments: [String], sandbox: ChildSandbox,
                       environment: [String] = ["PATH=/usr/bin:/bin", "LANG=C"]) throws -> Result {
        let child = try ChildProcess(executable: program, arguments: arguments, environment: environment, sandbox: sandbox)
        var out: [String] = [], err: [String] = []
        let deadline = Date().addingTimeInterval(30)
        let t = child.supervise(interval: 0.1, onLine: { out.append($0) }, onStderr: { err.append($0) },
                                tick: { Date() > deadline })
        return Result(out: out, err: err, termination: t)
    }

    static func sh(_ script: String, sandbox: ChildSandbox) throws -> Result {
        try launch("/bin/sh", ["-c", script], sandbox: sandbox)
    }

    /// A secret of this process's initial environment (what `/proc/<pid>/environ` shows):
    /// `DATABASE_URL` when the test environment sets it, else the longest entry.
    static func environSecret() throws -> String {
        let bytes = try #require(FileManager.default.contents(atPath: "/proc/self/environ"))
        let entries = bytes.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        if let db = entries.first(where: { $0.hasPrefix("DATABASE_URL=") && $0.count > 20 }) { return db }
        return try #require(entries.max(by: { $0.count < $1.count }))
    }

    @Test("a non-dumpable worker's environment cannot be read by its job child, also as root")
    func environIsUnreadable() throws {
        let secret = try Self.environSecret()
        // The worker's pid as the worker sees it: in a PID namespace the child's $PPID is 0.
        let environ = "/proc/\(getpid())/environ"
        let script = "cat \(environ) | tr '\\0' '\\n'; echo \"status=$?\"; cat \(environ) >/dev/null 2>&1 || echo READ_FAILED"
        // Control: while this process is dumpable, an unconfined child of the same uid reads it,
        // so the check below would see a leak.
        if ChildSandbox.isDumpable {
            let open = try Self.sh(script, sandbox: .none)
            #expect(open.text.contains(secret), "the control child should read a dumpable parent's environ")
        }

        #expect(ChildSandbox.markNonDumpable() == nil)
        #expect(!ChildSandbox.isDumpable)
        let sandbox = Self.jobSandbox
        let r = try Self.sh(script, sandbox: sandbox)
        if let problem = Self.namespaceProblem {
            Self.missing("namespaces unavailable (\(problem)); checking non-dumpable alone")
            if geteuid() == 0 {
                // Root keeps CAP_SYS_PTRACE without a user namespace: only the namespace (or a
                // separate uid) closes this. Nothing more to prove here.
                return
            }
        } else {
            #expect(sandbox.namespaces)
        }
        #expect(!r.text.contains(secret), "the child read the worker's environment")
        #expect(r.out.contains("READ_FAILED"))
        if sandbox.pidNamespace {
            // Its own /proc has no such process: the worker is outside its PID namespace.
            #expect(r.err.contains { $0.contains("No such file or directory") }, "\(r.text)")
        } else {
            #expect(r.err.contains { $0.contains("Permission denied") || $0.contains("Operation not permitted") })
        }
    }

    @Test("the job child has no network: a loopback listener of the worker sees no connection")
    func noNetwork() throws {
        let listener = try LoopbackListener()
        defer { listener.close() }
        let script = "exec 3<>/dev/tcp/127.0.0.1/\(listener.port) && echo CONNECTED || echo REFUSED"
        // Control: an unconfined child reaches the listener.
        let open = try Self.launch("/usr/bin/bash", ["-c", script], sandbox: .none)
        #expect(open.out.contains("CONNECTED"))
        #expect(listener.acceptPending() == 1)

        guard Self.namespaceProblem == nil else {
            Self.missing("namespaces unavailable (\(Self.namespaceProblem!)); the child keeps the network")
            return
        }
        let r = try Self.launch("/usr/bin/bash", ["-c", script + "; cat /proc/self/net/dev"], sandbox: Self.jobSandbox)
        #expect(r.out.contains("REFUSED"))
        #expect(!r.out.contains("CONNECTED"))
        #expect(listener.acceptPending() == 0, "the listener saw a connection from the sandboxed child")
        // Only a loopback interface in its network namespace.
        let interfaces = r.out.filter { $0.contains(":") && !$0.contains("|") }.map { $0.split(separator: ":")[0].trimmingCharacters(in: .whitespaces) }
        #expect(interfaces == ["lo"])
    }

    @Test("Landlock and seccomp: the job child reaches only its workspace, makes no network socket and no namespace")
    func landlockAndSeccomp() throws {
        let layers = ChildSandbox.layers
        if !layers.missing.isEmpty { Self.missing("layers unavailable: \(layers.missing.map { "\($0.layer): \($0.reason)" })") }
        let ws = try JobWorkspace()
        defer { ws.remove() }
        try "input".write(toFile: ws.inputDirectory + "/usd/scan.usdz", atomically: false, encoding: .utf8)
        var sandbox = ChildSandbox.forJobs(WorkerConfig(environment: [:])).forWorkspace(ws)
        sandbox.fileAccess?.read += ["/usr/bin", "/bin"]
        #expect(sandbox.syscallFilter == (layers.seccompProblem == nil))
        #expect(sandbox.landlock == (layers.landlockProblem == nil))
        let script = "cat \(ws.inputDirectory)/usd/scan.usdz; echo; echo x > \(ws.outputDirectory)/model.glb && echo WROTE_OUT; "
            + "echo x > \(ws.tempDirectory)/t && echo WROTE_TMP; cat /etc/passwd || echo READ_REFUSED; "
            + "echo x > \(ws.inputDirectory)/x || echo WRITE_IN_REFUSED; echo x > \(ws.root)/x || echo WRITE_ROOT_REFUSED; "
            + "exec 3<>/dev/tcp/127.0.0.1/9 || echo SOCKET_REFUSED; unshare -U true || echo UNSHARE_REFUSED"
        let r = try Self.launch("/usr/bin/bash", ["-c", script], sandbox: sandbox)
        #expect(Array(r.out.prefix(3)) == ["input", "WROTE_OUT", "WROTE_TMP"], "\(r.text)")
        if layers.landlockProblem == nil {
            #expect(r.out.contains("READ_REFUSED") && r.out.contains("WRITE_IN_REFUSED") && r.out.contains("WRITE_ROOT_REFUSED"), "\(r.text)")
        }
        if layers.seccompProblem == nil {
            #expect(r.out.contains("SOCKET_REFUSED"), "\(r.text)")
            #expect(r.err.contains { $0.contains("Address family not supported") }, "\(r.text)")
            #expect(r.out.contains("UNSHARE_REFUSED"), "\(r.text)")
        }
    }

    @Test("the job child is stopped at the file-size limit")
    func fileSizeLimit() throws {
        let dir = NSTemporaryDirectory() + "sandbox-fsize-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var sandbox = Self.jobSandbox
        sandbox.fileBytes = 64 << 10
        sandbox.fileAccess?.read.append("/dev/zero")
        sandbox.fileAccess?.write.append(dir)
        if Self.namespaceProblem == nil { #expect(sandbox.namespaces) }
        let big = dir + "/big"
        let w = try Self.sh("exec head -c 1048576 /dev/zero > \(big)", sandbox: sandbox)
        if sandbox.pidNamespace {
            // PID 1 of its namespace: the kernel's SIGXFSZ, with no handler, does not reach it;
            // the write past the limit fails (EFBIG) and the program ends with an error.
            #expect(w.termination != .exited(0) && w.err.contains { $0.contains("File too large") }, "\(w.text)")
        } else {
            #expect(w.termination == .signaled(SIGXFSZ))
        }
        let attributes = try FileManager.default.attributesOfItem(atPath: big)
        let size = try #require(attributes[.size] as? Int)
        #expect(size <= 64 << 10)
        #expect(size > 0)
    }

    @Test("open files, no new privileges, no core files and the id map are in force")
    func limitsAndPrivileges() throws {
        let sandbox = Self.jobSandbox
        let r = try Self.sh("ulimit -n; ulimit -c; grep NoNewPrivs /proc/self/status; cat /proc/self/uid_map", sandbox: sandbox)
        #expect(r.termination == .exited(0))
        #expect(r.out.first == String(ChildSandbox.openFilesLimit))
        #expect(r.out.dropFirst().first == "0")
        #expect(r.out.contains { $0.hasPrefix("NoNewPrivs:") && $0.hasSuffix("1") })
        if Self.namespaceProblem == nil, geteuid() == 0 {
            // Root is mapped to itself in its own namespace (one id, not the whole range).
            let map = r.out.last?.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            #expect(map == ["0", "0", "1"])
        }
        // The unconfined launch keeps the inherited limit.
        let open = try Self.sh("ulimit -n", sandbox: .none)
        #expect(open.out.first != String(ChildSandbox.openFilesLimit))
    }

    @Test("descriptors of the worker do not reach the child, even without close-on-exec")
    func descriptorsClosed() throws {
        let null = open("/dev/null", O_RDONLY)
        defer { close(null) }
        let fd = dup2(null, 200)   // deliberately without close-on-exec
        #expect(fd == 200)
        defer { close(fd) }
        let r = try Self.sh("ls /proc/self/fd", sandbox: Self.jobSandbox)
        #expect(r.termination == .exited(0))
        #expect(!r.out.contains("200"))
        #expect(r.out.contains("0") && r.out.contains("1") && r.out.contains("2"))
    }

    @Test("as root, the child can run as another uid and gid, and gets a work directory it can use",
          .enabled(if: geteuid() == 0, "needs root"))
    func separateIds() throws {
        var config = WorkerConfig(environment: [:])
        config.childUID = 65534
        config.childGID = 65534
        var sandbox = ChildSandbox.forJobs(config)
        #expect(sandbox.ids?.uid == 65534 && sandbox.ids?.gid == 65534)
        #expect(sandbox.namespaces == (ChildSandbox.namespaceProblem(ids: sandbox.ids) == nil))
        let ws = try JobWorkspace()
        defer { ws.remove() }
        try ws.handOver(uid: 65534, gid: 65534)
        sandbox = sandbox.forWorkspace(ws)
        sandbox.fileAccess?.read += ["/usr/bin", "/bin", "/proc"]
        sandbox.fileAccess?.write += ["/dev/null"]
        let r = try Self.sh("id -u; id -G; echo x > \(ws.outputDirectory)/model.glb && echo WROTE; "
                            + "cat /proc/$PPID/environ >/dev/null 2>&1 || echo READ_FAILED", sandbox: sandbox)
        #expect(r.out.prefix(2) == ["65534", "65534"])
        #expect(r.out.contains("WROTE"))
        #expect(r.out.contains("READ_FAILED"))
        var info = stat()
        #expect(lstat(ws.outputDirectory + "/model.glb", &info) == 0 && info.st_uid == 65534)
        // The child runs in this process's memory until exec: its id change must not reach any
        // thread of this process.
        #expect(Self.threadIds().allSatisfy { $0 == "0" }, "\(Self.threadIds())")
    }

    /// The real uid and gid lines of every thread of this process (`/proc/self/task/*/status`).
    static func threadIds() -> [String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        var out: [String] = []
        for t in tasks {
            guard let text = try? String(contentsOfFile: "/proc/self/task/\(t)/status", encoding: .utf8) else { continue }
            for line in text.split(separator: "\n") where line.hasPrefix("Uid:") || line.hasPrefix("Gid:") {
                out += line.split(whereSeparator: { $0 == "\t" || $0 == " " }).dropFirst().map(String.init)
            }
        }
        return out
    }

    /// This process's children that have ended but are not reaped and never ran another program
    /// (still named as this process): what a failed launch would leave. Read from /proc, so that
    /// nothing is reaped here that another test is waiting for.
    static func unreapedClones() -> Set<Int32> {
        func stat(_ pid: String) -> (ppid: Int32, state: Substring, name: Substring)? {
            guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let open = text.firstIndex(of: "("), let close = text.lastIndex(of: ")")
            else { return nil }
            let rest = text[text.index(after: close)...].split(separator: " ")
            guard rest.count > 1, let ppid = Int32(rest[1]) else { return nil }
            return (ppid, rest[0], text[text.index(after: open)..<close])
        }
        guard let me = stat("self") else { return [] }
        let pids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return Set(pids.compactMap { pid in
            guard let s = stat(pid), s.ppid == getpid(), s.state == "Z", s.name == me.name else { return nil }
            return Int32(pid)
        })
    }

    @Test("a launch failure names the step and errno, and leaves no child")
    func launchFailure() throws {
        let before = Self.unreapedClones()
        #expect(throws: ChildProcess.SpawnError.self) {
            _ = try ChildProcess(executable: "/nonexistent/program", arguments: [], environment: [], sandbox: Self.jobSandbox)
        }
        do {
            _ = try ChildProcess(executable: "/nonexistent/program", arguments: [], environment: [], sandbox: Self.jobSandbox)
        } catch {
            #expect(error.description.hasPrefix("CHILD_SPAWN_FAILED: "))
            #expect(error.description.contains("execve: No such file or directory"))
        }
        #expect(Self.unreapedClones().subtracting(before).isEmpty)
    }
}

/// A re-transcode's child runs niced from its first instruction, and a job thread can lower its
/// own priority without touching other threads.
@Suite("Batch priority")
struct BatchPriorityTests {
    @Test func theChildIsNicedFromTheStartAndTheWorkerIsNot() throws {
        let before = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
        var sandbox = ChildSandboxTests.jobSandbox
        sandbox.niceness = 7
        // `ps`-free: field 19 of /proc/self/stat is the niceness of the shell itself.
        let r = try ChildSandboxTests.sh("cut -d' ' -f19 /proc/$$/stat", sandbox: sandbox)
        #expect(r.termination == .exited(0))
        #expect(r.out.first == String(max(7, Int(before))))
        let plain = try ChildSandboxTests.sh("cut -d' ' -f19 /proc/$$/stat", sandbox: ChildSandboxTests.jobSandbox)
        #expect(plain.out.first == String(before))
        #expect(getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) == before)
    }

    @Test func aThreadLowersItsOwnPriorityOnly() throws {
        let before = ChildSandbox.threadNiceness
        let seen = NiceSeen()
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            seen.problem = ChildSandbox.lowerThreadPriority(5)
            seen.after = ChildSandbox.threadNiceness
            // Asking for less niceness than it has leaves it as it is.
            _ = ChildSandbox.lowerThreadPriority(1)
            seen.again = ChildSandbox.threadNiceness
            done.signal()
        }
        thread.start()
        done.wait()
        #expect(seen.problem == nil)
        #expect(seen.after == max(5, before))
        #expect(seen.again == max(5, before))
        #expect(ChildSandbox.threadNiceness == before)
    }
}

private final class NiceSeen: @unchecked Sendable {
    var problem: String?
    var after = -100
    var again = -100
}
