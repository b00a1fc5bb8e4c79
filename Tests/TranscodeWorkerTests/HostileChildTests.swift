import Foundation
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import TranscodeWorker
@testable import WorkerRuntime

/// The worker as Kubernetes runs it: a non-root user under a seccomp profile that refuses new
/// namespaces (`Support/hostile/no_namespaces.c`, as RuntimeDefault does), so only the layers
/// that need no privilege hold. In transcode-job's place, a child taken over by a hostile upload
/// (`Support/hostile/hostile_child.c`) tries each attack; every one must fail. Then the real
/// transcode-job converts the sample room in the same setting.
@Suite("Hostile job child", .serialized, .enabled(if: postgresConfigured && CommandLineToolTests.binary != nil))
struct HostileChildTests {
    /// The ids the worker runs as: nobody when the tests run as root, else the tests' own.
    static let ids: (uid: Int, gid: Int) = geteuid() == 0 ? (65534, 65534) : (-1, -1)

    /// What the hostile child aims at, and the folders the worker runs in.
    final class World {
        let dir: String
        let fixture: JobFixture
        let tcp: LoopbackListener
        let udp: LoopbackDatagramReceiver
        var tmp: String { dir + "/tmp" }
        var home: String { dir + "/home" }
        var secret: String { home + "/.pgpass" }
        var outside: String { dir + "/escaped" }
        let otherObject: String
        let otherWorkspaceFile: String
        let launcher: String
        let hostile: String
        let worker: String
        let job: String

        init() throws {
            fixture = try JobFixture()
            dir = NSTemporaryDirectory() + "hostile-" + UUID().uuidString
            for d in [dir, dir + "/tmp", dir + "/home", dir + "/bin"] {
                try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
            }
            tcp = try LoopbackListener()
            udp = try LoopbackDatagramReceiver()
            try "127.0.0.1:5432:*:worker:hunter2\n".write(toFile: dir + "/home/.pgpass", atomically: false, encoding: .utf8)
            chmod(dir + "/home/.pgpass", 0o600)
            // Another room's stored object, and another job's workspace (named after a live pid,
            // so the worker does not take it for a stale one).
            let key = "rooms/\(UUID().uuidString.lowercased())/versions/\(UUID().uuidString.lowercased())/scan.usdz"
            try fixture.files.put(key, bytes: Array("another room".utf8), contentType: "model/vnd.usdz+zip")
            otherObject = fixture.root + "/" + key
            let other = dir + "/tmp/transcode-job-\(getpid())-otherjob/in/usd"
            try FileManager.default.createDirectory(atPath: other, withIntermediateDirectories: true)
            otherWorkspaceFile = other + "/scan.usdz"
            try "another job".write(toFile: otherWorkspaceFile, atomically: false, encoding: .utf8)
            launcher = try SandboxPrograms.noNamespaces()
            hostile = dir + "/bin/hostile_child"
            // The binaries, copied where the worker's user can reach them whatever the checkout's
            // folder permissions (a checkout under /root is not).
            worker = dir + "/bin/transcode-worker"
            job = dir + "/bin/transcode-job"
            try FileManager.default.copyItem(atPath: CommandLineToolTests.binary!, toPath: worker)
            if let built = TestPaths.jobBinary { try FileManager.default.copyItem(atPath: built, toPath: job) }
            try SandboxPrograms.compile(SandboxPrograms.support + "/hostile_child.c", to: hostile, [
                "-DTCP_PORT=\(tcp.port)", "-DUDP_PORT=\(udp.port)", "-DOTHER_OBJECT=\"\(otherObject)\"",
                "-DSECRET_FILE=\"\(dir)/home/.pgpass\"", "-DOTHER_WORKSPACE_FILE=\"\(otherWorkspaceFile)\"",
                "-DOUTSIDE_FILE=\"\(dir)/escaped\"",
            ])
            try handOver()
        }

        /// Gives the folders and the store to the worker's user (again after each submission).
        func handOver() throws {
            guard HostileChildTests.ids.uid >= 0 else { return }
            for path in [dir, fixture.root] {
                let r = try ProgramRun.run("/bin/chown", ["-R", "\(HostileChildTests.ids.uid):\(HostileChildTests.ids.gid)", path])
                try #require(r.status == 0, "\(r.stderr)")
            }
        }

        deinit {
            tcp.close()
            udp.close()
            try? FileManager.default.removeItem(atPath: dir)
        }


        /// Runs `program` as the worker's user under the no-namespaces profile.
        func confined(_ program: String, _ arguments: [String], environment: [String: String]) throws -> ProgramRun {
            try ProgramRun.run(launcher, [String(HostileChildTests.ids.uid), String(HostileChildTests.ids.gid), program] + arguments,
                               environment: environment)
        }

        /// The worker's environment: its home, its TMPDIR and the child executable.
        func environment(child: String) -> [String: String] {
            ["PATH": "/usr/bin:/bin", "LANG": "C", "HOME": home, "TMPDIR": tmp, JobRunner.binaryVariable: child]
        }

        /// `transcode-worker process VERSION` as the worker's user under the profile; its JSON logs.
        func process(_ version: String, child: String) throws -> (status: Int32, logs: [[String: Any]]) {
            let f = fixture
            try handOver()
            let r = try confined(worker, [
                "process", version, "--json", "--database-url", f.db.url, "--storage-url", f.config.storageURL,
                "--heartbeat-seconds", "0.2", "--lease-seconds", "5", "--worker-id", "tw-hostile-test",
                "--progress-interval-seconds", "0", "--attempt-timeout-seconds", "60",
            ], environment: environment(child: child))
            let logs = r.stderr.split(separator: "\n").compactMap {
                (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
            }
            return (r.status, logs)
        }
    }

    @Test("every attack of a hostile job child fails where namespaces are refused")
    func everyAttackFails() throws {
        let world = try World()
        let env = world.environment(child: world.hostile)
        // Controls: the worker's user reaches every target without the sandbox, so only the
        // sandbox can make the attacks fail.
        for path in [world.otherObject, world.secret, world.otherWorkspaceFile] {
            let r = try world.confined("/bin/cat", [path], environment: env)
            #expect(r.status == 0 && !r.stdout.isEmpty, "control: \(path) unreadable by the worker's user: \(r.stderr)")
        }
        let reach = try world.confined("/usr/bin/bash", ["-c", "echo x >/dev/tcp/127.0.0.1/\(world.tcp.port) && echo x >/dev/udp/127.0.0.1/\(world.udp.port) && touch \(world.outside) && unshare -U true || echo NO_NAMESPACE"], environment: env)
        #expect(world.tcp.acceptPending() == 1 && world.udp.receivePending() == 1, "control: \(reach.stderr)")
        #expect(FileManager.default.fileExists(atPath: world.outside))
        #expect(reach.stdout.contains("NO_NAMESPACE"), "the profile must refuse new namespaces: \(reach.stdout)")
        unlink(world.outside)
        // Another process of the worker's user, whose environment that user can read.
        let neighbour = try BackgroundProgram(world.launcher, [String(Self.ids.uid), String(Self.ids.gid), "/bin/sleep", "60"],
                                              environment: ["NEIGHBOUR_SECRET": "s3cr3t"])
        defer { neighbour.signal(SIGKILL); neighbour.waitUntilExit() }
        var environ = ""
        for _ in 0..<50 where !environ.contains("NEIGHBOUR_SECRET") {
            usleep(20_000)
            environ = try world.confined("/bin/cat", ["/proc/\(neighbour.processIdentifier)/environ"], environment: env).stdout
        }
        #expect(environ.contains("NEIGHBOUR_SECRET"), "control: the neighbour's environment is unreadable")

        let version = try world.fixture.submit(usd: try JobFixture.sample(JobFixture.sampleUSDZ),
                                               json: try JobFixture.sample(JobFixture.sampleJSON), maxAttempts: 1)
        let run = try world.process(version, child: world.hostile)
        let lines = run.logs.filter { $0["msg"] as? String == "child stderr" }.compactMap { $0["line"] as? String }
        let sandbox = run.logs.first { $0["msg"] as? String == "child sandbox" }?["sandbox"] as? [String: Any]
        #expect(sandbox?["namespaces"] as? String == "none")
        #expect((sandbox?["landlock_abi"] as? Int ?? 0) >= 1, "Landlock did not hold: \(run.logs)")
        #expect(sandbox?["seccomp"] as? Bool == true)
        #expect(lines.contains("HOSTILE DONE"), "the hostile child did not run to its end: \(lines) \(run.logs)")
        let attacks = ["tcp_loopback", "udp_loopback", "other_room_object", "home_secret", "other_workspace", "proc_environ",
                       "write_outside", "ptrace_worker", "new_namespace", "fork_bomb"]
        for attack in attacks {
            #expect(lines.contains { $0.hasPrefix("ATTACK \(attack) BLOCKED") }, "\(attack): \(lines.filter { $0.contains(attack) })")
        }
        #expect(!lines.contains { $0.contains("SUCCEEDED") && !$0.contains("setsid_grandchild_made") }, "\(lines)")
        #expect(world.tcp.acceptPending() == 0)
        #expect(world.udp.receivePending() == 0)
        #expect(!FileManager.default.fileExists(atPath: world.outside))
        // The grandchild in a session of its own is gone with its job.
        let survivor = try #require(lines.first { $0.hasPrefix("SURVIVOR ") }.flatMap { Int32($0.dropFirst(9)) })
        let stat = try? String(contentsOfFile: "/proc/\(survivor)/stat", encoding: .utf8)
        #expect(stat.map { !$0.contains("(hostile_child)") } ?? true, "pid \(survivor) outlived its job: \(stat ?? "")")
        #expect(try world.fixture.row(version)["status"] == "failed")
    }

    @Test("the real transcode-job converts the sample room in the same setting", .enabled(if: TestPaths.jobBinary != nil))
    func realChildConverts() throws {
        let world = try World()
        let version = try world.fixture.submitSample(maxAttempts: 1)
        let run = try world.process(version, child: world.job)
        let row = try world.fixture.row(version)
        #expect(run.status == 0, "\(run.logs)")
        #expect(row["status"] == "ready", "\(run.logs)")
        let glb = try #require(row["glb_path"])
        #expect((try world.fixture.files.size(glb) ?? 0) > 0)
        let sandbox = run.logs.first { $0["msg"] as? String == "child sandbox" }?["sandbox"] as? [String: Any]
        #expect((sandbox?["landlock_abi"] as? Int ?? 0) >= 1 && sandbox?["seccomp"] as? Bool == true)
    }
}
