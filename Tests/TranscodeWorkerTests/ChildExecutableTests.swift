import Foundation
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import WorkerRuntime
@testable import WorkerCore

/// Which executable job children run (`ChildExecutable`), and what `transcode-job` is: the
/// pipeline linked without the daemon's libraries.
@Suite("Child executable")
struct ChildExecutableTests {
    @Test("TRANSCODE_WORKER_BINARY wins; empty, it is ignored")
    func overrideWins() {
        #expect(ChildExecutable.resolve(environment: [JobRunner.binaryVariable: "/opt/x/job"]) == "/opt/x/job")
        let fallback = ChildExecutable.resolve(environment: [JobRunner.binaryVariable: ""])
        #expect(fallback == (ChildExecutable.besideSelf ?? ChildExecutable.besideRunningExecutable("transcode-job") ?? "/proc/self/exe"))
    }

    @Test("only a regular file this process may execute is opened")
    func onlyExecutableFiles() throws {
        let dir = NSTemporaryDirectory() + "child-exe-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(ChildExecutable.open(executable: dir) == nil)   // a directory is searchable, not runnable
        #expect(ChildExecutable.open(executable: dir + "/missing") == nil)
        let plain = dir + "/plain"
        #expect(FileManager.default.createFile(atPath: plain, contents: Data("#!/bin/sh\n".utf8),
                                               attributes: [.posixPermissions: 0o644]))
        #expect(ChildExecutable.open(executable: plain) == nil)
    }

    /// The descriptor keeps the file the worker started with: removed from disk afterwards, it
    /// still runs, through the same launcher jobs use.
    @Test("an opened job executable runs through its descriptor after the file is removed",
          .enabled(if: TestPaths.jobBinary != nil))
    func descriptorOutlivesTheFile() throws {
        let dir = NSTemporaryDirectory() + "child-exe-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let copy = dir + "/transcode-job"
        try FileManager.default.copyItem(atPath: TestPaths.jobBinary!, toPath: copy)
        let path = try #require(ChildExecutable.open(executable: copy))
        #expect(path.hasPrefix("/proc/self/fd/"))
        #expect(ChildExecutable.describe(path) == copy)
        try FileManager.default.removeItem(atPath: copy)

        let child = try ChildProcess(executable: path, arguments: ["--help"], environment: ["LANG=C"],
                                     sandbox: ChildSandbox.forJobs(WorkerConfig(environment: [:])))
        var out: [String] = []
        let deadline = Date().addingTimeInterval(30)
        let termination = child.supervise(interval: 0.1, onLine: { out.append($0) }, onStderr: { _ in },
                                          tick: { Date() > deadline })
        #expect(termination == .exited(0))
        #expect(out.first?.contains("USAGE: transcode-job job-exec") == true)
        if let fd = Int32(path.dropFirst("/proc/self/fd/".count)) { close(fd) }
    }

    /// Runs `binary` with `arguments`: exit status and standard output.
    static func run(_ binary: String, _ arguments: [String]) throws -> (status: Int32, out: String) {
        let r = try ProgramRun.run(binary, arguments)
        return (r.status, r.stdout)
    }

    @Test("transcode-job runs job-exec and nothing else", .enabled(if: TestPaths.jobBinary != nil))
    func jobExecutableCommands() throws {
        let job = TestPaths.jobBinary!
        let help = try Self.run(job, ["--help"])
        #expect(help.status == ExitStatus.ok)
        #expect(help.out.contains("USAGE: transcode-job job-exec --out DIR"))
        #expect(try Self.run(job, []).status == ExitStatus.usage)
        #expect(try Self.run(job, ["run"]).status == ExitStatus.usage)
        #expect(try Self.run(job, ["job-exec", "--no-such-flag"]).status == ExitStatus.usage)
        #expect(try Self.run(job, ["job-exec"]).status == ExitStatus.usage)   // --out is required
    }

    /// What `ldd` says `binary` loads, one library name per entry.
    static func libraries(_ binary: String) throws -> [String] {
        let out = try Self.run("/usr/bin/ldd", [binary]).out
        return out.split(separator: "\n").compactMap { $0.split(whereSeparator: { $0 == " " || $0 == "\t" }).first.map(String.init) }
    }

    @Test("transcode-job loads none of the daemon's libraries; transcode-worker does",
          .enabled(if: TestPaths.jobBinary != nil && TestPaths.workerBinary != nil
                   && FileManager.default.isExecutableFile(atPath: "/usr/bin/ldd")))
    func jobExecutableLibraries() throws {
        let daemonOnly = ["libpq.so", "libcurl.so", "libmicrohttpd.so", "libFoundationNetworking.so"]
        let worker = try Self.libraries(TestPaths.workerBinary!)
        #expect(worker.contains { $0.hasPrefix("libpq.so") })   // the check below can fail
        let job = try Self.libraries(TestPaths.jobBinary!)
        #expect(job.contains { $0.hasPrefix("libcairo.so") })
        for name in daemonOnly {
            #expect(!job.contains { $0.hasPrefix(name) }, "transcode-job loads \(name)")
        }
        // The child is built on FoundationEssentials alone: no Foundation, its internationalisation
        // or ICU (in the static build of the image, 36 MB of code and data fewer).
        if worker.contains(where: { $0.hasPrefix("libswiftCore.so") }) {  // a dynamic build: Foundation is a library
            #expect(worker.contains { $0.hasPrefix("libFoundation.so") })  // the check below can fail
        }
        for name in ["libFoundation.so", "libFoundationInternationalization.so", "lib_FoundationICU.so"] {
            #expect(!job.contains { $0.hasPrefix(name) }, "transcode-job loads \(name)")
        }
        #expect(job.count < worker.count)
    }

    @Test("a worker with transcode-job beside it runs its jobs with it, and says so",
          .enabled(if: TestPaths.jobBinary != nil && TestPaths.workerBinary != nil))
    func workerUsesTheJobExecutable() throws {
        var env = ProcessInfo.processInfo.environment
        env[JobRunner.binaryVariable] = nil
        let stderr = try ProgramRun.run(
            TestPaths.workerBinary!,
            ["process", "00000000-0000-0000-0000-000000000000", "--database-url", "postgresql://127.0.0.1:1/none"],
            environment: env).stderr
        let logs = stderr.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }
        let line = try #require(logs.first { $0["msg"] as? String == "child sandbox" })
        let expected = URL(fileURLWithPath: TestPaths.jobBinary!).resolvingSymlinksInPath().path
        #expect(line["child_executable"] as? String == expected)
    }
}
