import Foundation
import TestSupport
import Testing
@testable import TranscodeWorker
@testable import ObjectStorage
@testable import WorkerRuntime

#if canImport(Glibc)
import Glibc
@testable import WorkerCore
#endif

/// Secrets only from the environment or `*_FILE`, strong shared secrets, and no silent default
/// for any setting.
@Suite("Secrets and configuration: environment and files only, strong secrets, invalid values refused")
struct SecretConfigTests {
    static let token = "secret-config-test-token-0123456789abcdef"

    /// The description of the `UsageError` `body` throws (nil when it throws none).
    static func usageMessage(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch let e as UsageError {
            return e.description
        } catch {
            return "not a usage error: \(error)"
        }
    }

    /// A temporary file holding `bytes`; removed by the caller.
    static func file(_ bytes: [UInt8]) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("secret-\(UUID().uuidString)").path
        #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        return path
    }

    /// Runs the built binary with `args` and `environment` (added to a minimal one); returns the
    /// exit status and standard error.
    static func runBinary(_ args: [String], environment: [String: String]) throws -> (status: Int32, stderr: String) {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("secret-config-tests")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let r = try ProgramRun.run(
            try #require(CommandLineToolTests.binary), args, in: scratch,
            environment: ["PATH": "/usr/bin:/bin", "HOME": scratch.path, "TRANSCODE_STORAGE_URL": "file://" + scratch.path + "/storage"]
                .merging(environment) { _, new in new })
        return (r.status, r.stderr)
    }

    @Test func outputStorageAndItsCacheControlAreSettings() throws {
        let plain = WorkerConfig(environment: [:])
        #expect(plain.outputStorageURL == nil)
        #expect(plain.outputCacheControl == WorkerConfig.defaultOutputCacheControl)
        let set = WorkerConfig(environment: ["TRANSCODE_OUTPUT_STORAGE_URL": "file:///srv/public-rooms",
                                             "TRANSCODE_OUTPUT_CACHE_CONTROL": "none"])
        #expect(set.outputStorageURL == "file:///srv/public-rooms")
        #expect(set.outputCacheControl == nil)
        #expect(set.environmentProblems.isEmpty)
        let bad = WorkerConfig(environment: ["TRANSCODE_OUTPUT_CACHE_CONTROL": "public\r\nX-Injected: 1"])
        #expect(bad.environmentProblems.contains { $0.contains("TRANSCODE_OUTPUT_CACHE_CONTROL") })
        #expect(bad.outputCacheControl == WorkerConfig.defaultOutputCacheControl)
        var flags = WorkerConfig(environment: [:])
        try flags.set("output-storage-url", "file:///srv/cdn")
        try flags.set("output-cache-control", "public, max-age=600")
        #expect(flags.outputStorageURL == "file:///srv/cdn" && flags.outputCacheControl == "public, max-age=600")
    }

    @Test func secretFlagsAreRefusedWithWhereToPutThem() throws {
        let db = "postgresql://postgres@127.0.0.1:1/none"
        for (flag, variable) in [("--api-token", "TRANSCODE_API_TOKEN"), ("--done-secret", "TRANSCODE_DONE_SECRET"),
                                 ("--supabase-service-key", "SUPABASE_SERVICE_KEY")] {
            let expected = "\(flag) is not accepted on the command line (visible in /proc/*/cmdline); set \(variable) or \(variable)_FILE"
            #expect(Self.usageMessage { _ = try RunCommand(["--database-url", db, flag, Self.token]) } == expected)
            #expect(Self.usageMessage { _ = try ProcessCommand([UUID().uuidString, "--database-url", db, "\(flag)=\(Self.token)"]) } == expected)
            #expect(Self.usageMessage { _ = try DatabaseOptions(["--database-url", db, "\(flag)=\(Self.token)"], environment: [:]) } == expected)
            #expect(CommandLineTool.main(["status", "--database-url", db, flag, Self.token]) == ExitStatus.usage)
        }
        // The real process: exit status 2 and the message on standard error.
        let r = try Self.runBinary(["run", "--database-url", db, "--api-token", Self.token], environment: [:])
        #expect(r.status == 2)
        #expect(r.stderr.contains("--api-token is not accepted on the command line (visible in /proc/*/cmdline); set TRANSCODE_API_TOKEN or TRANSCODE_API_TOKEN_FILE"))
        #expect(!r.stderr.contains(Self.token), "the refused secret is not echoed")
    }

    @Test func databaseURLsWithAPasswordAreRefusedOnTheCommandLineOnly() throws {
        for url in ["postgresql://u:pw@h/db", "postgres://u:@h:5432/db", "postgresql://h/db?sslmode=require&password=pw",
                    "POSTGRESQL://U:PW@H/DB", "host=h user=u password=pw dbname=d", "password = pw host=h"] {
            #expect(WorkerConfig.hasPassword(databaseURL: url), "\(url)")
            let message = Self.usageMessage { _ = try RunCommand(["--database-url", url]) }
            #expect(message?.hasPrefix("--database-url with a password is not accepted on the command line") == true)
            #expect(message?.contains("DATABASE_URL_FILE") == true)
            #expect(message?.contains("pw") == false, "the password is not echoed")
            // The same URL from the environment is fine.
            var c = WorkerConfig(environment: ["DATABASE_URL": url])
            #expect(c.databaseURL == url)
            try c.validate()
            try c.assign("database-url", url, name: "DATABASE_URL")
        }
        for url in ["postgresql://postgres@127.0.0.1:5432/db", "postgresql:///db?host=/run/pg", "host=h user=u dbname=passwords",
                    "postgresql://u@h/db?application_name=password"] {
            #expect(!WorkerConfig.hasPassword(databaseURL: url), "\(url)")
            let run = try RunCommand(["--database-url", url])
            #expect(run.config.databaseURL == url)
        }
    }

    @Test func secretFilesAreReadWithOneTrailingNewlineRemoved() throws {
        let plain = try Self.file(Array((Self.token + "\n").utf8))
        let crlf = try Self.file(Array((Self.token + "\r\n").utf8))
        let two = try Self.file(Array((Self.token + "\n\n").utf8))
        let aws = try Self.file(Array("aws-secret-from-a-mounted-file".utf8))
        defer { for p in [plain, crlf, two, aws] { try? FileManager.default.removeItem(atPath: p) } }

        #expect(WorkerConfig(environment: ["TRANSCODE_API_TOKEN_FILE": plain]).apiToken == Self.token)
        #expect(WorkerConfig(environment: ["TRANSCODE_DONE_SECRET_FILE": crlf]).doneSecret == Self.token)
        #expect(WorkerConfig(environment: ["TRANSCODE_DONE_SECRET_FILE": two]).doneSecret == Self.token + "\n")
        let env = try SecretEnvironment.resolve(["AWS_SECRET_ACCESS_KEY_FILE": aws, "DATABASE_URL_FILE": plain, "OTHER": "x"])
        #expect(env == ["AWS_SECRET_ACCESS_KEY": "aws-secret-from-a-mounted-file", "DATABASE_URL": Self.token, "OTHER": "x"])
        #expect(SigV4Credentials.fromEnvironment(env.merging(["AWS_ACCESS_KEY_ID": "id"]) { a, _ in a })?.secretAccessKey
                == "aws-secret-from-a-mounted-file")
        try WorkerConfig(environment: ["TRANSCODE_API_TOKEN_FILE": plain]).validate()

        // The real process reads the file: a too-short token in a file is refused by name.
        let short = try Self.file(Array("short\n".utf8))
        defer { try? FileManager.default.removeItem(atPath: short) }
        let r = try Self.runBinary(["run", "--database-url", "postgresql://postgres@127.0.0.1:1/none"],
                                   environment: ["TRANSCODE_API_TOKEN_FILE": short])
        #expect(r.status == 2)
        #expect(r.stderr.contains("TRANSCODE_API_TOKEN is 5 bytes"), "\(r.stderr.prefix(300))")
    }

    @Test func unreadableOrAmbiguousSecretFilesAreRefusedByName() throws {
        let empty = try Self.file(Array("\n".utf8))
        let big = try Self.file([UInt8](repeating: UInt8(ascii: "a"), count: SecretEnvironment.maxFileBytes + 1))
        let nul = try Self.file(Array("abc\0def".utf8))
        let good = try Self.file(Array(Self.token.utf8))
        defer { for p in [empty, big, nul, good] { try? FileManager.default.removeItem(atPath: p) } }
        let cases: [([String: String], String)] = [
            (["TRANSCODE_API_TOKEN_FILE": "/nonexistent/\(UUID().uuidString)"], "TRANSCODE_API_TOKEN_FILE: cannot read"),
            (["TRANSCODE_DONE_SECRET_FILE": NSTemporaryDirectory()], "TRANSCODE_DONE_SECRET_FILE: cannot read"),
            (["SUPABASE_SERVICE_KEY_FILE": empty], "SUPABASE_SERVICE_KEY_FILE: \(empty) is empty"),
            (["AWS_SESSION_TOKEN_FILE": big], "AWS_SESSION_TOKEN_FILE: \(big) is larger than 65536 bytes"),
            (["AWS_ACCESS_KEY_ID_FILE": nul], "AWS_ACCESS_KEY_ID_FILE: \(nul) is not UTF-8 text"),
            (["TRANSCODE_API_TOKEN": Self.token, "TRANSCODE_API_TOKEN_FILE": good],
             "both TRANSCODE_API_TOKEN and TRANSCODE_API_TOKEN_FILE are set; set only one"),
            (["DATABASE_URL": "postgresql://h/db", "DATABASE_URL_FILE": good], "both DATABASE_URL and DATABASE_URL_FILE are set"),
        ]
        for (env, expected) in cases {
            let message = Self.usageMessage { try WorkerConfig(environment: env).validate() }
            #expect(message?.contains(expected) == true, "\(env.keys.sorted()): \(message ?? "accepted")")
            #expect(message?.contains(Self.token) != true, "the secret is not echoed")
        }
        // The real process: exit status 2 before anything else happens.
        let r = try Self.runBinary(["status"], environment: ["DATABASE_URL": "postgresql://h/db", "DATABASE_URL_FILE": good])
        #expect(r.status == 2)
        #expect(r.stderr.contains("both DATABASE_URL and DATABASE_URL_FILE are set"))
    }

    @Test func shortAndPlaceholderSecretsAreRefusedAtStart() throws {
        let refused = ["CHANGE-ME", "change-me", "…", "<random>", String(repeating: "x", count: 31),
                       "CHANGE-ME-CHANGE-ME-CHANGE-ME-CHANGE-ME", "please-changeme-before-deploying-this-worker"]
        for variable in ["TRANSCODE_API_TOKEN", "TRANSCODE_DONE_SECRET"] {
            for value in refused {
                let message = Self.usageMessage { try WorkerConfig(environment: [variable: value]).validate() }
                #expect(message?.hasPrefix(variable) == true, "\(variable)=\(value): \(message ?? "accepted")")
            }
            try WorkerConfig(environment: [variable: String(repeating: "x", count: 32)]).validate()
            try WorkerConfig(environment: [variable: Self.token]).validate()
        }
        // Every placeholder of the shipped example Secret is refused.
        let example = try String(contentsOf: CommandLineToolTests.packageRoot.appendingPathComponent("deploy/kubernetes/secret.example.yaml"),
                                 encoding: .utf8)
        for line in example.split(separator: "\n") where line.contains("TRANSCODE_API_TOKEN:") || line.contains("TRANSCODE_DONE_SECRET:") {
            let value = line.split(separator: ":", maxSplits: 1)[1].trimmingCharacters(in: .whitespaces).trimmingCharacters(in: ["\""])
            #expect(throws: UsageError.self) { try WorkerConfig.checkSharedSecret(value, variable: "TRANSCODE_API_TOKEN") }
        }
        let r = try Self.runBinary(["run", "--database-url", "postgresql://postgres@127.0.0.1:1/none"],
                                   environment: ["TRANSCODE_DONE_SECRET": "CHANGE-ME"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("TRANSCODE_DONE_SECRET is an example placeholder"))
    }

    @Test func invalidValuesStopStartUpNamingTheVariable() throws {
        let cases: [(String, String)] = [
            ("TRANSCODE_CONCURRENCY", "abc"), ("TRANSCODE_CONCURRENCY", "0"), ("TRANSCODE_CONCURRENCY", "-2"),
            ("TRANSCODE_CONCURRENCY", "5000"), ("TRANSCODE_LEASE_SECONDS", "nan"), ("TRANSCODE_LEASE_SECONDS", "inf"),
            ("TRANSCODE_LEASE_SECONDS", "0"), ("TRANSCODE_LEASE_SECONDS", "-5"), ("TRANSCODE_HEARTBEAT_SECONDS", "0"),
            ("TRANSCODE_POLL_SECONDS", "0.001"), ("TRANSCODE_RESCUE_SECONDS", "-1"), ("TRANSCODE_MAX_ATTEMPTS", "0"),
            ("TRANSCODE_MAX_ATTEMPTS", "1.5"), ("TRANSCODE_RETRY_BASE_SECONDS", "-1"), ("TRANSCODE_RETRY_MAX_SECONDS", "1e12"),
            ("TRANSCODE_ATTEMPT_TIMEOUT_SECONDS", "0.5"), ("TRANSCODE_CHILD_MEMORY_MB", "10"), ("TRANSCODE_CHILD_CPU_SECONDS", "0"),
            ("TRANSCODE_MAX_SOURCE_BYTES", "50MB"), ("TRANSCODE_SHUTDOWN_GRACE_SECONDS", "-1"),
            ("TRANSCODE_PROGRESS_INTERVAL_SECONDS", "soon"), ("TRANSCODE_HTTP_ADDR", "8080"), ("TRANSCODE_HTTP_ADDR", "[::1]:80"),
            ("TRANSCODE_HTTP_PER_IP_CONNECTIONS", "0"), ("TRANSCODE_HTTP_PER_IP_CONNECTIONS", "100000"),
            ("TRANSCODE_DONE_URL", "ftp://example.com/done"), ("TRANSCODE_DONE_URL", "example.com/done"),
            ("TRANSCODE_WORKER_ID", "a\nb"), ("TRANSCODE_LOG_LEVEL", "verbose"), ("SUPABASE_URL", "abcd.supabase.co"),
        ]
        for (variable, value) in cases {
            let message = Self.usageMessage { try WorkerConfig(environment: [variable: value]).validate() }
            #expect(message?.hasPrefix(variable) == true, "\(variable)=\(value): \(message ?? "accepted")")
        }
        // Two bad variables: both named.
        let both = Self.usageMessage {
            try WorkerConfig(environment: ["TRANSCODE_CONCURRENCY": "x", "TRANSCODE_POLL_SECONDS": "y"]).validate()
        }
        #expect(both?.contains("TRANSCODE_CONCURRENCY") == true && both?.contains("TRANSCODE_POLL_SECONDS") == true)
        // A heartbeat that is not shorter than the lease.
        let order = Self.usageMessage {
            try WorkerConfig(environment: ["TRANSCODE_LEASE_SECONDS": "10", "TRANSCODE_HEARTBEAT_SECONDS": "10"]).validate()
        }
        #expect(order?.hasPrefix("TRANSCODE_HEARTBEAT_SECONDS") == true)
        // Flags are named as flags.
        let flag = Self.usageMessage { _ = try RunCommand(["--database-url", "postgresql://h/db", "--lease-seconds", "0"]) }
        #expect(flag?.hasPrefix("--lease-seconds needs a number from 1.0") == true, "\(flag ?? "accepted")")
        // Valid values are taken as given (no clamping).
        let ok = WorkerConfig(environment: ["TRANSCODE_LEASE_SECONDS": "1", "TRANSCODE_HEARTBEAT_SECONDS": "0.1",
                                            "TRANSCODE_POLL_SECONDS": "0.05", "TRANSCODE_HTTP_PER_IP_CONNECTIONS": "3"])
        try ok.validate()
        #expect(ok.leaseSeconds == 1 && ok.heartbeatSeconds == 0.1 && ok.pollSeconds == 0.05 && ok.httpPerIPConnections == 3)
        // The real process exits 2.
        let r = try Self.runBinary(["run", "--database-url", "postgresql://postgres@127.0.0.1:1/none"],
                                   environment: ["TRANSCODE_RESCUE_SECONDS": "NaN"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("TRANSCODE_RESCUE_SECONDS needs a number"))
    }

    @Test(.enabled(if: postgresConfigured))
    func unknownTranscodeVariablesAreWarnedAboutNotFatal() throws {
        let env = ["TRANSCODE_CONCURENCY": "2", "TRANSCODE_APITOKEN": "x", "TRANSCODE_TEST_DATABASE_URL": "x",
                   "TRANSCODE_REQUIRE_S3": "1", "TRANSCODE_API_TOKEN_FILE": "/x", "TRANSCODE_WORKER_BINARY": "/x",
                   "TRANSCODE_LOG_LEVEL": "info", "TRANSCODE_CONCURRENCY": "2", "OTHER_VARIABLE": "x"]
        #expect(WorkerConfig.unknownVariables(env) == ["TRANSCODE_APITOKEN", "TRANSCODE_CONCURENCY"])
        // The worker logs one warning naming them, and goes on: it runs, finds nothing to do and exits 0.
        let db = try TestDatabase()
        defer { db.drop() }
        let r = try Self.runBinary(["run", "--exit-when-idle", "--database-url", db.url],
                                   environment: ["TRANSCODE_CONCURENCY": "2", "TRANSCODE_HTTP_ADDR": "off"])
        #expect(r.status == 0, "\(r.stderr.prefix(500)) … \(r.stderr.suffix(2000))")
        let warnings = r.stderr.split(separator: "\n").filter { $0.contains("unknown TRANSCODE_ variables") }
        #expect(warnings.count == 1)
        #expect(warnings.first?.contains("\"TRANSCODE_CONCURENCY\"") == true)
    }
}
