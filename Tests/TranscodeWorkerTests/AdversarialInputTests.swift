import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Every case of Tests/Fixtures/adversarial/cases.json (written by
/// scripts/gen-adversarial-fixtures.py) run through the real `transcode-worker convert` as a child
/// process: it must exit 3 (invalid input) naming the expected code on standard error, within
/// `maxRSSBytes` of peak resident memory, taken from the kernel when the child is reaped (`wait4`,
/// by a small reaper process: see `reaper`). How long each case takes is no test's business here
/// (a debug build on a loaded machine is slow): scripts/check-adversarial.py runs the same cases
/// against the release binary in scripts/test.sh and bounds their time there.
@Suite struct AdversarialInputTests {
    static let fixtures = JobFixture.packageRoot.appendingPathComponent("Tests/Fixtures/adversarial")
    /// A hang is ended by the reaper's `RLIMIT_CPU` of 30 s (SIGXCPU, a failed exit status).
    static let maxRSSBytes = 256 << 20

    struct Case: Decodable {
        var name: String
        var input: String?
        var roomplan: String?
        var expected_code: String
    }

    struct Outcome {
        var exitStatus: Int32
        var stderr: String
        /// Wall time and user + system CPU time, for messages only.
        var seconds: Double
        var cpuSeconds: Double
        /// `ru_maxrss` (KiB on Linux) in bytes.
        var peakRSSBytes: Int
    }

    static func cases() throws -> [Case] {
        struct Index: Decodable { var cases: [Case] }
        let data = try Data(contentsOf: fixtures.appendingPathComponent("cases.json"))
        return try JSONDecoder().decode(Index.self, from: data).cases
    }

    /// Forks and runs argv[3:], stderr to argv[1], and writes its exit status, wall time and
    /// `ru_maxrss` as JSON to argv[2]. The measured child is forked by this small process, not by
    /// the test process: a child started by the test process itself (posix_spawn shares its memory
    /// until exec) reports the test process's own high-water mark as its peak RSS.
    static let reaper = """
        import json, os, sys, time
        err = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        null = os.open("/dev/null", os.O_RDWR)
        start = time.monotonic()
        pid = os.fork()
        if pid == 0:
            import resource
            resource.setrlimit(resource.RLIMIT_CPU, (30, 30))
            os.dup2(null, 0); os.dup2(null, 1); os.dup2(err, 2)
            os.execv(sys.argv[3], sys.argv[3:])
        _, status, usage = os.wait4(pid, 0)
        seconds = time.monotonic() - start
        with open(sys.argv[2], "w") as f:
            json.dump({"status": status, "seconds": seconds, "cpu_seconds": usage.ru_utime + usage.ru_stime,
                       "maxrss_kib": usage.ru_maxrss}, f)
        """

    /// Runs `binary convert …` for the case with stdout discarded and stderr in a file.
    static func run(_ binary: String, _ c: Case, out: String) throws -> Outcome {
        var args = [binary, "convert"]
        if let input = c.input {
            args.append(fixtures.appendingPathComponent(input).path)
            if let json = c.roomplan { args += ["--roomplan", fixtures.appendingPathComponent(json).path] }
        } else if let json = c.roomplan {
            args.append(fixtures.appendingPathComponent(json).path)
        }
        args += ["--out", out + "/out"]
        let errPath = out + "/stderr.txt", resultPath = out + "/result.json"
        _ = try ProgramRun.run("/usr/bin/env", ["python3", "-c", reaper, errPath, resultPath] + args)
        let result = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: resultPath))) as? [String: Any])
        let status = Int32((result["status"] as? NSNumber)?.intValue ?? -1)
        // Exited normally: low 7 bits zero, status in bits 8…15; otherwise report −signal.
        let exit = status & 0x7F == 0 ? (status >> 8) & 0xFF : -(status & 0x7F)
        let stderr = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
        return Outcome(exitStatus: exit, stderr: stderr, seconds: (result["seconds"] as? NSNumber)?.doubleValue ?? .infinity,
                       cpuSeconds: (result["cpu_seconds"] as? NSNumber)?.doubleValue ?? .infinity,
                       peakRSSBytes: ((result["maxrss_kib"] as? NSNumber)?.intValue ?? Int.max / 2048) * 1024)
    }

    @Test func everyCaseEndsInItsCodeWithinMemory() throws {
        let binary = try #require(JobFixture.workerBinary, "the transcode-worker executable is not built beside the tests")
        let cases = try Self.cases()
        #expect(cases.count >= 20)
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("adversarial-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: work) }
        // One at a time, so no case competes with another for memory.
        for c in cases {
            let dir = work + "/" + c.name
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            let o = try Self.run(binary, c, out: dir)
            #expect(o.exitStatus == 3, "\(c.name): exit \(o.exitStatus) after \(o.seconds) s (\(o.cpuSeconds) s of CPU); \(o.stderr)")
            #expect(o.stderr.contains(": \(c.expected_code): "), "\(c.name): expected \(c.expected_code); \(o.stderr)")
            #expect(o.peakRSSBytes < Self.maxRSSBytes, "\(c.name): peak RSS \(o.peakRSSBytes >> 20) MiB")
        }
    }
}
