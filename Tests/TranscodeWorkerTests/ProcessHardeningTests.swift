import Foundation
import Testing
import TestSupport
@testable import TranscodeWorker
@testable import ObjectStorage
@testable import WorkerHTTP
@testable import WorkerRuntime

#if canImport(Glibc)
import Glibc
@testable import WorkerCore
#endif

/// Every command is non-dumpable while it runs, and its secrets leave its environment once read.
///
/// A process is non-dumpable exactly when the kernel makes its `/proc/<pid>/environ` owned by
/// root; so each command is started as an unprivileged user (uid 65534 through `setpriv` when the
/// tests run as root, else as the tests' own user) and that owner is looked at while it runs. To
/// keep every command alive long enough, its standard output and error are a pipe filled to the
/// brim beforehand: its first write, at the latest its last flush on exit, blocks until the pipe
/// is drained, with the process whole.
@Suite("Process hardening: non-dumpable commands, secrets out of the environment", .serialized)
struct ProcessHardeningTests {
    static let workerBinary = TestPaths.workerBinary
    static let inspectBinary = TestPaths.inspectBinary
    static let unprivileged: uid_t = 65534
    /// Linux's `F_SETPIPE_SZ` and `F_GETPIPE_SZ` (<linux/fcntl.h>), which Glibc does not export.
    static let setPipeSize: Int32 = 1031, getPipeSize: Int32 = 1032

    /// Each command kind, with arguments that make it end soon (most with an error, which it
    /// prints). The database is a closed port.
    static let workerCommands: [[String]] = [
        ["help"], ["version"], ["errors"],
        ["run", "--http-addr", "off"], ["process", UUID().uuidString.lowercased()], ["migrate"], ["migrate", "--status"],
        ["enqueue", UUID().uuidString.lowercased()], ["retry", UUID().uuidString.lowercased()],
        ["reprocess", UUID().uuidString.lowercased()], ["cancel", UUID().uuidString.lowercased()],
        ["gc", "--dry-run"], ["status"], ["show", UUID().uuidString.lowercased()],
        ["submit", "--usdz", "/nonexistent/room.usdz"], ["watch", "--timeout", "1"],
        ["probe", "--http-addr", "127.0.0.1:1"], ["no-such-command"],
    ]

    /// The commands that parse scans: `transcode-worker` executes the program beside it that runs
    /// them (`SiblingProgram`), which makes itself non-dumpable as every command does.
    static let siblingCommands: [(arguments: [String], program: String?)] = [
        (["inspect", "/nonexistent/room.usdz"], TestPaths.inspectBinary),
        (["convert", "/nonexistent/room.usdz", "--out", "/nonexistent/out"], TestPaths.jobBinary),
    ]

    /// What `/proc/<pid>/environ` of `arguments` run by `binary` showed: its owner once the
    /// process runs `runs` (default `binary`; past `execve`), polled until it is root or 30 s have
    /// passed (with `firstLook`, the first owner seen past `execve`, and `environ` given the text).
    static func environOwner(_ binary: String, _ arguments: [String], environment: [String: String],
                             runs: String? = nil, firstLook: Bool = false,
                             environ: ((String) -> Void)? = nil) throws -> uid_t? {
        var fds: [Int32] = [-1, -1]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        // The smallest pipe, full: the command's first write blocks.
        _ = fcntl(fds[1], setPipeSize, 4096)
        let size = Int(fcntl(fds[1], getPipeSize))
        _ = fcntl(fds[1], F_SETFL, O_NONBLOCK)
        let filler = [UInt8](repeating: UInt8(ascii: "."), count: size)
        #expect(filler.withUnsafeBytes { write(fds[1], $0.baseAddress, $0.count) } == size)
        _ = fcntl(fds[1], F_SETFL, 0)

        let (program, argv) = geteuid() == 0
            ? ("/usr/bin/setpriv", ["--reuid=\(unprivileged)", "--regid=\(unprivileged)", "--clear-groups", binary] + arguments)
            : (binary, arguments)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
        posix_spawn_file_actions_adddup2(&actions, fds[1], 2)
        let cArgs = ([program] + argv).map { strdup($0) } + [nil]
        let cEnv = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for p in cArgs + cEnv { free(p) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, program, &actions, nil, cArgs, cEnv) == 0 else { return nil }
        defer {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        }
        let real = URL(fileURLWithPath: runs ?? binary).resolvingSymlinksInPath().path
        var owner: uid_t?
        for _ in 0..<600 {
            // Only once `binary` runs: before `execve`, setpriv's own process is non-dumpable.
            if (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")) == real {
                var st = stat()
                guard stat("/proc/\(pid)/environ", &st) == 0 else { return nil }
                owner = st.st_uid
                if let environ { environ(Self.readAll("/proc/\(pid)/environ")) }
                if firstLook { break }
                if owner == 0 {
                    // Seen again a while later: within `execve` the new image briefly keeps the
                    // old one's setting, so only a later look is the command's own doing.
                    usleep(100_000)
                    guard stat("/proc/\(pid)/environ", &st) == 0 else { return nil }
                    owner = st.st_uid
                    break
                }
            }
            usleep(50_000)
        }
        return owner
    }

    /// The whole file at `path`, read with read(2) to its end (files under /proc report a size
    /// of 0), NULs as newlines; empty when it cannot be opened.
    static func readAll(_ path: String) -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return "" }
        defer { close(fd) }
        var bytes: [UInt8] = [], chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            bytes += chunk[0..<n]
        }
        return String(decoding: bytes.map { $0 == 0 ? UInt8(ascii: "\n") : $0 }, as: UTF8.self)
    }

    static var environment: [String: String] {
        ["PATH": "/usr/bin:/bin", "HOME": "/nonexistent", "DATABASE_URL": "postgresql://postgres@127.0.0.1:1/none",
         "TRANSCODE_STORAGE_URL": "file:///nonexistent/storage", "TRANSCODE_API_TOKEN": "hardening-test-token-0123456789abcdef"]
    }

    @Test(.enabled(if: workerBinary != nil, "the transcode-worker executable is not built"))
    func everyWorkerCommandIsNonDumpableWhileItRuns() throws {
        let binary = try #require(Self.workerBinary)
        for command in Self.workerCommands {
            let owner = try Self.environOwner(binary, command, environment: Self.environment)
            #expect(owner == 0, "transcode-worker \(command.joined(separator: " ")): environ owned by \(owner.map(String.init) ?? "?")")
        }
    }

    @Test(.enabled(if: workerBinary != nil && inspectBinary != nil && TestPaths.jobBinary != nil))
    func theProgramsTheWorkerRunsAreNonDumpable() throws {
        let binary = try #require(Self.workerBinary)
        for (command, program) in Self.siblingCommands {
            let owner = try Self.environOwner(binary, command, environment: Self.environment, runs: program)
            #expect(owner == 0, "transcode-worker \(command.joined(separator: " ")): environ owned by \(owner.map(String.init) ?? "?")")
        }
    }

    /// `transcode-job job-exec` runs in the job sandbox as it is and stays dumpable there; started
    /// through `transcode-worker job-exec`, it gets the environment without the secrets.
    @Test(.enabled(if: workerBinary != nil && TestPaths.jobBinary != nil))
    func theJobChildStartedByTheWorkerHasNoSecrets() throws {
        var seen = ""
        _ = try Self.environOwner(try #require(Self.workerBinary), ["job-exec"], environment: Self.environment,
                                  runs: TestPaths.jobBinary, firstLook: true) { seen = $0 }
        #expect(seen.contains("PATH=/usr/bin:/bin"))
        for name in ["DATABASE_URL", "TRANSCODE_API_TOKEN"] { #expect(!seen.contains(Self.environment[name]!), "\(name)") }
    }

    @Test(.enabled(if: inspectBinary != nil, "the transcode-inspect executable is not built"))
    func transcodeInspectIsNonDumpableWhileItRuns() throws {
        let binary = try #require(Self.inspectBinary)
        for arguments in [["/nonexistent/room.usdz"], ["--help"]] {
            #expect(try Self.environOwner(binary, arguments, environment: Self.environment) == 0)
        }
    }

    @Test(.enabled(if: workerBinary != nil, "the transcode-worker executable is not built"))
    func theControlProcessIsDumpable() throws {
        // The same check on a program that does nothing about it: its environ stays its user's,
        // so the owner above is the commands' doing.
        let owner = try Self.environOwner("/bin/sleep", ["30"], environment: ["PATH": "/usr/bin:/bin"], firstLook: true)
        #expect(owner == (geteuid() == 0 ? Self.unprivileged : geteuid()))
    }

    @Test func secretsAreWithdrawnFromTheEnvironmentOnceRead() async {
        // In a process of its own: it changes the environment.
        await #expect(processExitsWith: .success) {
            let marker = "withdrawn-secret-marker-0123456789abcdef"
            let file = "/tmp/withdraw-\(getpid())"
            _ = FileManager.default.createFile(atPath: file, contents: Data((marker + "-file\n").utf8))
            defer { unlink(file) }
            // Only the secrets set here (the test runner may hold others, such as a test S3 key).
            for name in SecretEnvironment.names { unsetenv(name); unsetenv(name + "_FILE") }
            setenv("DATABASE_URL", "postgresql://u@h/\(marker)", 1)
            setenv("TRANSCODE_API_TOKEN_FILE", file, 1)
            setenv("AWS_SECRET_ACCESS_KEY", marker + "-aws", 1)
            setenv("TRANSCODE_METRICS_TOKEN", marker + "-metrics", 1)
            let names = try SecretEnvironment.withdrawFromProcess()
            // Gone from the process environment: getenv, and the environment a child inherits.
            var ok = names == ["AWS_SECRET_ACCESS_KEY", "DATABASE_URL", "TRANSCODE_API_TOKEN_FILE", "TRANSCODE_METRICS_TOKEN"]
            for name in names + ["TRANSCODE_API_TOKEN"] { ok = ok && getenv(name) == nil }
            ok = ok && !ProcessEnvironment.variables().values.contains { $0.contains(marker) || $0 == file }
            let child = try ProgramRun.run("/usr/bin/env", [], environment: nil)
            ok = ok && child.status == 0 && !child.stdout.contains(marker) && child.stdout.contains("PATH=")
            // Still there for the readers of settings.
            let config = WorkerConfig()
            ok = ok && config.databaseURL == "postgresql://u@h/\(marker)" && config.apiToken == marker + "-file"
            ok = ok && config.http.metricsToken == marker + "-metrics"
            ok = ok && ProcessEnvironment.current["AWS_SECRET_ACCESS_KEY"] == marker + "-aws"
            exit(ok ? 0 : 1)
        }
    }

    @Test(.enabled(if: workerBinary != nil, "the transcode-worker executable is not built"))
    func theHealthCheckRunsWithAnEmptyEnvironment() throws {
        let binary = try #require(Self.workerBinary)
        // The image's check, word for word but the address.
        let dockerfile = try String(contentsOfFile: TestPaths.path("Dockerfile"), encoding: .utf8)
        #expect(dockerfile.contains(#"CMD ["/usr/bin/env", "-i", "/usr/local/bin/transcode-worker", "probe", "livez"]"#))
        let server = try HTTPServer(address: "127.0.0.1:0") { _ in .json(200, .object(["status": .string("ok")])) }
        defer { server.stop() }
        let r = try ProgramRun.run("/usr/bin/env", ["-i", binary, "probe", "livez", "--http-addr", "127.0.0.1:\(server.port)"],
                                   environment: Self.environment)
        #expect(r.status == 0, "\(r.stdout) \(r.stderr)")
    }

    @Test func anUnreadableSecretFileStopsTheCommandBeforeItRuns() throws {
        let binary = try #require(Self.workerBinary)
        let r = try ProgramRun.run(binary, ["status"], environment: ["PATH": "/usr/bin:/bin",
                                                                      "DATABASE_URL_FILE": "/nonexistent/database-url"])
        #expect(r.status == ExitStatus.usage)
        #expect(r.stderr.contains("DATABASE_URL_FILE: cannot read /nonexistent/database-url"))
    }
}
