import Foundation
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// One of the worker's Edge Function handlers (`transcode-done`, `transcode-retry`) served by a
/// real Deno on 127.0.0.1 (the `serve.ts` harness beside this file), plus the Deno runtime lookup
/// the tests share.
///
/// Deno is found through `TRANSCODE_DENO`, then `deno` on `PATH`, then the binary of the PyPI
/// `deno` package (`python3 -c 'import deno; print(deno.find_deno_bin())'`). Tests that need it
/// are skipped when it is missing, unless `TRANSCODE_REQUIRE_DENO=1`, which turns that into a
/// failure. Deno runs with a private `DENO_DIR`, `NO_COLOR=1`, no remote or npm modules, no config
/// or lock file, and only `--allow-net=127.0.0.1` and `--allow-env` for the function's variables.
///
/// The process is stopped by `stop()` (SIGKILL, then waited for) or when the object is released.
final class EdgeFunctionProcess: @unchecked Sendable {
    struct StartError: Error, CustomStringConvertible {
        var description: String
    }

    /// Every variable the function reads; the child gets exactly the ones a test sets.
    static let functionVariables = ["WORKER_CALLBACK_SECRET", "SUPABASE_URL", "SUPABASE_SECRET_KEY",
                                    "SUPABASE_SECRET_KEYS", "SUPABASE_SERVICE_ROLE_KEY", "SUPABASE_PUBLISHABLE_KEY",
                                    "SUPABASE_PUBLISHABLE_KEYS", "SUPABASE_ANON_KEY"]
    /// Flags that keep Deno off the network and away from project configuration.
    static let offlineFlags = ["--no-remote", "--no-npm", "--no-config", "--no-lock", "--no-prompt"]

    static let packageRoot = TestPaths.packageRoot
    static let functionsDirectory = packageRoot.appendingPathComponent("supabase/functions")
    static let harnessDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()

    static var required: Bool { ProcessInfo.processInfo.environment["TRANSCODE_REQUIRE_DENO"] == "1" }

    /// The Deno executable, or nil when none is found.
    static let deno: String? = {
        let fm = FileManager.default
        let env = ProcessInfo.processInfo.environment
        if let explicit = env["TRANSCODE_DENO"], !explicit.isEmpty { return explicit }
        for dir in (env["PATH"] ?? "").split(separator: ":") {
            let candidate = "\(dir)/deno"
            if fm.isExecutableFile(atPath: candidate) { return candidate }
        }
        let (status, output) = run("/usr/bin/env", ["python3", "-c", "import deno; print(deno.find_deno_bin())"])
        let path = output.trimmingCharacters(in: .whitespacesAndNewlines)
        return status == 0 && fm.isExecutableFile(atPath: path) ? path : nil
    }()

    /// Use as `.enabled(if: denoConfigured)`: found, or required (then the test fails on the lookup).
    static var configured: Bool { deno != nil || required }

    /// A Deno cache of the tests' own (transpiled modules only: nothing is downloaded).
    static let denoDirectory: URL = {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("transcode-deno-cache")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }()

    /// The environment for a Deno child: this process's (so a version-manager shim still works)
    /// without any of the function's variables, plus `DENO_DIR`, `NO_COLOR` and `variables`.
    static func environment(_ variables: [String: String]) -> [String: String] {
        var env = ProcessInfo.processInfo.environment
        for name in functionVariables { env.removeValue(forKey: name) }
        env["DENO_DIR"] = denoDirectory.path
        env["NO_COLOR"] = "1"
        env.merge(variables) { _, new in new }
        return env
    }

    /// Runs Deno with `arguments` to completion: (exit status, stdout and stderr together).
    static func runDeno(_ arguments: [String]) throws -> (status: Int32, output: String) {
        guard let deno else { throw StartError(description: "Deno not found (set TRANSCODE_DENO or pip install deno)") }
        return run(deno, arguments, environment: environment([:]), directory: harnessDirectory)
    }

    private static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                            directory: URL? = nil) -> (status: Int32, output: String) {
        let here = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        do {
            let r = try ProgramRun.run(executable, arguments, in: directory ?? here, environment: environment, mergeStandardError: true)
            return (r.status, r.stdout)
        } catch {
            return (-1, "\(error)")
        }
    }

    /// The port the function listens on.
    let port: UInt16
    /// `http://127.0.0.1:PORT/` (the harness answers on every path, as the deployed function does).
    var url: String { "http://127.0.0.1:\(port)/" }

    private let process: BackgroundProgram
    private let logDirectory: URL

    /// Starts `serve.ts` for the function `name` with exactly `variables` of the functions'
    /// variables set, and waits (at most 60 s) for the line that names its port. `timeoutMs`
    /// bounds each PostgREST call.
    /// - Throws: `StartError` when Deno is missing, exits early or never prints its port.
    init(name: String = "transcode-done", variables: [String: String], timeoutMs: Int? = nil) throws {
        guard let deno = Self.deno else { throw StartError(description: "Deno not found (set TRANSCODE_DENO or pip install deno)") }
        logDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("edge-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: logDirectory, withIntermediateDirectories: true)
        let out = logDirectory.appendingPathComponent("stdout"), err = logDirectory.appendingPathComponent("stderr")
        process = try BackgroundProgram(
            deno,
            ["run"] + Self.offlineFlags + [
                "--allow-net=127.0.0.1", "--allow-env=" + Self.functionVariables.joined(separator: ","),
                Self.harnessDirectory.appendingPathComponent("serve.ts").path, name,
            ] + (timeoutMs.map { [String($0)] } ?? []),
            in: logDirectory, environment: Self.environment(variables), standardOutput: out.path, standardError: err.path)
        let deadline = Date().addingTimeInterval(60)
        var found: UInt16?
        while found == nil {
            let text = (try? String(contentsOf: out, encoding: .utf8)) ?? ""
            if let line = text.split(separator: "\n").first,
               let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
               let number = object["port"] as? Int {
                found = UInt16(number)
                break
            }
            if !process.isRunning || Date() > deadline {
                let log = (try? String(contentsOf: err, encoding: .utf8)) ?? ""
                process.signal(SIGKILL)
                process.waitUntilExit()
                try? FileManager.default.removeItem(at: logDirectory)
                throw StartError(description: "the Deno harness did not start: \(log.prefix(2000))")
            }
            usleep(20_000)
        }
        port = found!
    }

    /// What the function wrote to stderr so far (its error log lines).
    var standardError: String {
        (try? String(contentsOf: logDirectory.appendingPathComponent("stderr"), encoding: .utf8)) ?? ""
    }

    /// Stops the Deno process (SIGKILL: a test runner may pass SIGTERM on as ignored) and removes
    /// its log files. Safe to call more than once.
    func stop() {
        process.signal(SIGKILL)
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: logDirectory)
    }

    deinit { stop() }
}
