import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Every case of Tests/Fixtures/adversarial/cases.json (written by
/// scripts/gen-adversarial-fixtures.py) run through the real `transcode-worker convert` as a child
/// process: it must exit 3 (invalid input) naming the expected code on standard error, within
/// `maxSeconds` of wall time and `maxRSSBytes` of peak resident memory, both taken from the kernel
/// when the child is reaped (`wait4`). scripts/check-adversarial.py runs the same cases against the
/// release binary in scripts/test.sh.
@Suite struct AdversarialInputTests {
    static let fixtures = JobFixture.packageRoot.appendingPathComponent("Tests/Fixtures/adversarial")
    static let maxSeconds = 2.0
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
        var seconds: Double
        /// `ru_maxrss` (KiB on Linux) in bytes.
        var peakRSSBytes: Int
    }

    static func cases() throws -> [Case] {
        struct Index: Decodable { var cases: [Case] }
        let data = try Data(contentsOf: fixtures.appendingPathComponent("cases.json"))
        return try JSONDecoder().decode(Index.self, from: data).cases
    }

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
        let errPath = out + "/stderr.txt"

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let argv: [UnsafeMutablePointer<CChar>?] = args.map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }

        var pid: pid_t = 0
        let start = Date()
        let spawned = posix_spawn(&pid, binary, &actions, nil, argv, environ)
        try #require(spawned == 0, "posix_spawn failed: \(spawned)")
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        let seconds = Date().timeIntervalSince(start)
        // Exited normally: low 7 bits zero, status in bits 8…15; otherwise report −signal.
        let exit = status & 0x7F == 0 ? (status >> 8) & 0xFF : -(status & 0x7F)
        let stderr = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
        return Outcome(exitStatus: exit, stderr: stderr, seconds: seconds, peakRSSBytes: Int(usage.ru_maxrss) * 1024)
    }

    @Test func everyCaseEndsInItsCodeWithinTimeAndMemory() throws {
        let binary = try #require(JobFixture.workerBinary, "the transcode-worker executable is not built beside the tests")
        let cases = try Self.cases()
        #expect(cases.count >= 20)
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("adversarial-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: work) }
        // One at a time, so each child's wall time is its own.
        for c in cases {
            let dir = work + "/" + c.name
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            let o = try Self.run(binary, c, out: dir)
            #expect(o.exitStatus == 3, "\(c.name): exit \(o.exitStatus); \(o.stderr)")
            #expect(o.stderr.contains(": \(c.expected_code): "), "\(c.name): expected \(c.expected_code); \(o.stderr)")
            #expect(o.seconds < Self.maxSeconds, "\(c.name): \(o.seconds) s")
            #expect(o.peakRSSBytes < Self.maxRSSBytes, "\(c.name): peak RSS \(o.peakRSSBytes >> 20) MiB")
        }
    }
}
