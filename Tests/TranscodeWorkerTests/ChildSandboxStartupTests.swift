import Foundation
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import TranscodeWorker
@testable import WorkerRuntime
@testable import WorkerCore

/// The start-up log of the real binary: `process` probes and logs the sandbox before it connects
/// to the database (an unreachable one here, so no database is needed).
@Suite("Child sandbox at start")
struct ChildSandboxStartupTests {
    static let args = ["process", "00000000-0000-0000-0000-000000000000", "--database-url", "postgresql://127.0.0.1:1/none"]

    /// Runs `command` (the binary and its arguments) and returns its status and the JSON log lines.
    static func run(_ command: [String]) throws -> (status: Int32, logs: [[String: Any]]) {
        let r = try ProgramRun.run(command[0], Array(command.dropFirst()))
        let logs = r.stderr.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }
        return (r.status, logs)
    }

    @Test("the worker logs what job children get", .enabled(if: CommandLineToolTests.binary != nil))
    func logsSandbox() throws {
        let r = try Self.run([CommandLineToolTests.binary!] + Self.args)
        let line = try #require(r.logs.first { $0["msg"] as? String == "child sandbox" })
        let sandbox = try #require(line["sandbox"] as? [String: Any])
        #expect(sandbox["rlimit_nofile"] as? Int == ChildSandbox.openFilesLimit)
        #expect(sandbox["rlimit_fsize_mb"] as? Int == 1024)
        #expect(sandbox["no_new_privs"] as? Bool == true)
        #expect(sandbox["seccomp"] as? Bool == (ChildSandbox.layers.seccompProblem == nil))
        #expect(sandbox["landlock_abi"] as? Int == ChildSandbox.layers.landlockABI)
        #expect(line["worker_subreaper"] as? Bool == true)
        if ChildSandboxTests.sandboxRequired { #expect(ChildSandbox.layers.missing.isEmpty) }
        #expect(line["worker_dumpable"] as? Bool == false)
        let held = ChildSandbox.namespaceLayers(ids: nil)
        let names = held.problem != nil ? "none"
            : "user+net" + (held.pidProblem == nil ? "+pid" : "") + (held.mountProblem == nil ? "+mnt" : "")
        #expect(sandbox["namespaces"] as? String == names)
        if ChildSandboxTests.sandboxRequired { #expect(names == "user+net+pid+mnt", "\(held.missing)") }
        let partial = r.logs.filter { ($0["msg"] as? String)?.hasPrefix("child sandbox: PID or mount namespace unavailable") == true }
        #expect(partial.count == (names.hasPrefix("user+net") && names != "user+net+pid+mnt" ? 1 : 0))
    }

    /// The real binary as `nobody`, on this machine where user namespaces are allowed: the worker
    /// is non-dumpable, so its children's ids stay unmapped in their user namespace, and an
    /// unmapped process cannot make the folders of a new root; they get user, network and PID
    /// namespaces, and the worker says in one warning that the mount namespace is missing.
    @Test("a non-root worker: user+net+pid, and one warning naming the mount namespace",
          .enabled(if: CommandLineToolTests.binary != nil && geteuid() == 0
                   && FileManager.default.isExecutableFile(atPath: "/usr/sbin/runuser")))
    func nonRootWorker() throws {
        try #require(ChildSandbox.namespaceProblem(ids: nil) == nil, "namespaces are unavailable here")
        let r = try Self.run(["/usr/sbin/runuser", "-u", "nobody", "--", CommandLineToolTests.binary!] + Self.args)
        let line = try #require(r.logs.first { $0["msg"] as? String == "child sandbox" }, "\(r.logs)")
        #expect((line["sandbox"] as? [String: Any])?["namespaces"] as? String == "user+net+pid", "\(line)")
        let warnings = r.logs.filter { ($0["msg"] as? String)?.hasPrefix("child sandbox: PID or mount namespace unavailable") == true }
        #expect(warnings.count == 1)
        #expect((warnings.first?["mnt"] as? String)?.contains("Value too large") == true, "\(warnings)")
        #expect(warnings.first?["pid"] == nil)
    }

    /// Inside a user namespace whose own limit on nested namespaces is 0, the worker cannot give
    /// its children namespaces: it warns once and goes on, or refuses with `require`.
    @Test("without namespaces: one warning, or a refusal to start with require",
          .enabled(if: CommandLineToolTests.binary != nil && FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare")))
    func unavailableNamespaces() throws {
        let prefix = ["/usr/bin/unshare", "--user", "--map-root-user", "/bin/sh", "-c",
                      "echo 0 > /proc/sys/user/max_user_namespaces && exec \"$0\" \"$@\"", CommandLineToolTests.binary!]
        let auto = try Self.run(prefix + Self.args)
        guard auto.logs.contains(where: { $0["msg"] as? String == "child sandbox" }) else {
            ChildSandboxTests.missing("cannot run the worker in a user namespace here; the unavailable case is not exercised")
            return
        }
        // `require`, the default, and `auto` alike: namespaces alone missing is one warning.
        for run in [auto, try Self.run(prefix + Self.args + ["--child-sandbox", "auto"])] {
            let warnings = run.logs.filter { ($0["msg"] as? String)?.hasPrefix("child sandbox: user and network namespaces unavailable") == true }
            #expect(warnings.count == 1)
            #expect(warnings.first?["level"] as? String == "warn")
            #expect((warnings.first?["reason"] as? String)?.contains("unshare") == true)
            let info = run.logs.first { $0["msg"] as? String == "child sandbox" }
            #expect((info?["sandbox"] as? [String: Any])?["namespaces"] as? String == "none")
            #expect(run.status == ExitStatus.internalError)   // the database is unreachable: it went on
        }
    }

    /// Without Landlock (its calls refused by a seccomp profile, as on a kernel without it) the
    /// worker refuses to start under `require`, the default, and warns under `auto`.
    @Test("without Landlock: a refusal to start by default, a warning with auto",
          .enabled(if: CommandLineToolTests.binary != nil))
    func unavailableLandlock() throws {
        let launcher = try SandboxPrograms.noNamespaces()
        let prefix = [launcher, "--no-landlock", "-1", "-1", CommandLineToolTests.binary!]
        let required = try Self.run(prefix + Self.args)
        #expect(required.status == ExitStatus.internalError)
        let refusal = required.logs.first { $0["level"] as? String == "error"
            && ($0["msg"] as? String)?.contains("required layers unavailable") == true }
        #expect((refusal?["landlock"] as? String)?.contains("landlock_create_ruleset") == true, "\(required.logs)")
        #expect(!required.logs.contains { $0["msg"] as? String == "child sandbox" })

        let auto = try Self.run(prefix + Self.args + ["--child-sandbox", "auto"])
        #expect(auto.logs.contains { $0["level"] as? String == "warn"
            && ($0["msg"] as? String)?.hasPrefix("child sandbox: layers unavailable") == true })
        let info = auto.logs.first { $0["msg"] as? String == "child sandbox" }
        let sandbox = info?["sandbox"] as? [String: Any]
        #expect(sandbox?["landlock_abi"] as? Int == 0)
        #expect(sandbox?["seccomp"] as? Bool == true)
        #expect(auto.status == ExitStatus.internalError)   // the database is unreachable: it went on
    }
}
