import Foundation
import Testing
@testable import TranscodeWorker
import Manifest
@testable import JSONCore
@testable import ObjectStorage
@testable import PGQueue
@testable import WorkerRuntime
import TestSupport

#if canImport(Glibc)
import Glibc
@testable import WorkerCore
#endif

/// A thread-safe counter for test servers.
final class CallCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    /// Increments and returns the new value (1 for the first call).
    func next() -> Int { lock.withLock { value += 1; return value } }
}

@Suite("Job runner pieces")
struct JobRunnerPieceTests {
    final class Sent: @unchecked Sendable {
        let lock = NSLock()
        var payloads: [[String: JSONValue]] = []
        func add(_ p: JSONValue) {
            guard case .object(let o) = p else { return }
            lock.withLock { payloads.append(o) }
        }
        var all: [[String: JSONValue]] { lock.withLock { payloads } }
    }

    @Test func progressIsThrottledWithoutReorderingSteps() {
        let sent = Sent()
        let reporter = ProgressReporter(versionId: "v", roomId: "r", attempt: 2, maxAttempts: 5, minInterval: 3600,
                                        send: { topic, event, payload in
                                            #expect(topic == "room:r")
                                            #expect(event == "transcode_progress")
                                            sent.add(payload)
                                        })
        reporter.step("parsing", progress: 0.1)
        reporter.step("layering", progress: 0.4)
        reporter.step("preview", progress: 0.7)
        reporter.flush()
        #expect(sent.all.count == 1)
        #expect(sent.all[0]["step"] == .string("parsing"))
        #expect(sent.all[0]["seq"] == .int(1))
        reporter.queued(retryAt: "2030-01-01T00:00:00.000Z")
        #expect(sent.all.count == 2)
        #expect(sent.all[1]["phase"] == .string("queued"))
        #expect(sent.all[1]["step"] == .null)
        #expect(sent.all[1]["seq"] == .int(2))
        #expect(sent.all[1]["retry_at"] == .string("2030-01-01T00:00:00.000Z"))

        let unthrottled = Sent()
        let r2 = ProgressReporter(versionId: "v", roomId: "r", attempt: 1, maxAttempts: 5, minInterval: 0,
                                  send: { _, _, p in unthrottled.add(p) })
        for (s, p) in [("parsing", 0.1), ("layering", 0.4), ("layering", 0.4), ("preview", 0.7)] { r2.step(s, progress: p) }
        #expect(unthrottled.all.map { $0["step"] } == [.string("parsing"), .string("layering"), .string("preview")])
        #expect(unthrottled.all.map { $0["seq"] } == [.int(1), .int(2), .int(3)])
    }

    @Test func pendingStepIsSentOnceTheIntervalPassed() {
        let sent = Sent()
        let reporter = ProgressReporter(versionId: "v", roomId: "r", attempt: 1, maxAttempts: 5, minInterval: 0.05,
                                        send: { _, _, p in sent.add(p) })
        reporter.step("parsing", progress: 0.1)
        reporter.step("layering", progress: 0.4)
        reporter.step("preview", progress: 0.7)
        usleep(80_000)
        reporter.flush()
        #expect(sent.all.map { $0["step"] } == [.string("parsing"), .string("preview")])
        #expect(sent.all.map { $0["seq"] } == [.int(1), .int(2)])
    }

    @Test func childEnvironmentCarriesNoSecrets() {
        let env = JobRunner.childEnvironment(["DATABASE_URL": "postgresql://u:p@h/db", "TRANSCODE_DONE_SECRET": "s",
                                              "PATH": "/usr/bin", "LC_ALL": "C.UTF-8", "TMPDIR": "/scratch"])
        #expect(env == ["LC_ALL=C.UTF-8", "PATH=/usr/bin", "SWIFT_BACKTRACE=enable=no", "TMPDIR=/scratch"])
        #expect(JobRunner.childEnvironment(["SWIFT_BACKTRACE": "enable=yes"]) == ["SWIFT_BACKTRACE=enable=yes"])
    }

    @Test func workDirectoriesOfDeadProcessesAreRemoved() throws {
        let finished = try BackgroundProgram("/bin/true", [])
        finished.waitUntilExit()
        let base = JobWorkspace.baseDirectory
        let dead = base + "/" + JobWorkspace.namePrefix + "\(finished.processIdentifier)-test01"
        let mine = try JobWorkspace()
        defer { mine.remove() }
        try FileManager.default.createDirectory(atPath: dead + "/out", withIntermediateDirectories: true)
        JobWorkspace.removeStale()
        #expect(!FileManager.default.fileExists(atPath: dead))
        #expect(FileManager.default.fileExists(atPath: mine.outputDirectory))
        #expect(mine.root.hasPrefix(base + "/" + JobWorkspace.namePrefix + "\(JobWorkspace.startId)-\(getpid())-"))
    }

    /// Each outcome's one name and reason, as the log, the metric, the attempts table and
    /// `process --json` record them.
    @Test func outcomesHaveOneNameEach() {
        let outcomes: [JobOutcome] = [.ready(outputPrefix: "p/"), .retried(code: "STORAGE_UNAVAILABLE", runAfter: "t"),
                                      .failed(reason: "USDZ_PARSE_ERROR"), .released, .leaseLost]
        #expect(outcomes.map(\.name) == ["ready", "retried", "failed", "released", "lease_lost"])
        #expect(outcomes.map(\.reason) == [nil, "STORAGE_UNAVAILABLE", "USDZ_PARSE_ERROR", nil, nil])
    }

    @Test func childMessagesRoundTrip() {
        let messages: [ChildMessage] = [
            .phase(.parsing),
            .done(files: [.init(path: "model.glb", bytes: 12, sha256: "ab")], summary: JobSummary(
                phaseMilliseconds: [.parsing: 1.5], layers: 3, elements: 4, triangles: 5, vertices: 6, warnings: 0,
                qualityGrade: nil, manifestSchemaVersion: 10, reused: [], thumbnails: [])),
            .done(files: [], summary: nil),
            .error(code: "USD_TRUNCATED", message: "short \"read\"", phase: .parsing, retryable: false, errorClass: .usd),
            .error(code: "X_Y", message: "", phase: .plan, retryable: true, errorClass: nil),
        ] + JobPhase.allCases.map { ChildMessage.phase($0) }
        for m in messages { #expect(ChildMessage(line: m.line) == m) }
        #expect(ChildMessage(line: "not json") == nil)
        // The phases' names are the protocol's: a phase line naming no phase is not a message; an
        // error line without a known phase is kept, counted in parsing.
        #expect(ChildMessage.phase(.plan).line == "{\"event\":\"phase\",\"phase\":\"plan\"}")
        #expect(ChildMessage(line: "{\"event\":\"phase\",\"phase\":\"downloading\"}") == nil)
        #expect(ChildMessage(line: "{\"event\":\"error\",\"code\":\"X\",\"phase\":\"elsewhere\"}")
                == .error(code: "X", message: "", phase: .parsing, retryable: false, errorClass: nil))
        // A kind the daemon does not know is no kind: the phase decides.
        #expect(ChildMessage(line: "{\"event\":\"error\",\"code\":\"X\",\"phase\":\"preview\",\"class\":\"weather\"}")
                == .error(code: "X", message: "", phase: .preview, retryable: false, errorClass: nil))
    }

    /// The child may be compromised: its lines are read under `JSONReader.Limits.smallDocument`,
    /// and a field of the wrong kind refuses the whole message.
    @Test func hostileChildLinesAreRefusedNotTrusted() {
        let deep = String(repeating: "[", count: 5_000) + String(repeating: "]", count: 5_000)
        let wide = "{\"event\":\"done\",\"files\":[],\"summary\":[" + Array(repeating: "0", count: 200_000).joined(separator: ",") + "]}"
        let longString = "{\"event\":\"phase\",\"phase\":\"" + String(repeating: "a", count: (1 << 20) + 1) + "\"}"
        for line in [deep, "{\"event\":\"phase\",\"x\":\(deep)}", wide, longString] {
            #expect(ChildMessage(line: line) == nil)
        }
        for bytes in ["1e300", "3.5", "true", "\"12\"", "-1e400", "-9223372036854775808", "9223372036854775807", "9007199254740993"] {
            let line = "{\"event\":\"done\",\"files\":[{\"path\":\"model.glb\",\"bytes\":\(bytes),\"sha256\":\"ab\"}],\"summary\":{}}"
            #expect(ChildMessage(line: line) == nil, "bytes: \(bytes)")
        }
        // Whole numbers in any spelling are integers; a repeated key reads as its last value.
        let line = "{\"event\":\"error\",\"event\":\"phase\",\"phase\":\"layering\",\"n\":3e0}"
        #expect(ChildMessage(line: line) == .phase(.layering))
        // A done line whose summary is not a summary still ends the child: the daemon refuses it.
        let summary = "{\"event\":\"done\",\"files\":[{\"path\":\"a\",\"bytes\":1.2e3,\"sha256\":\"ab\"}],"
            + "\"summary\":{\"i\":7,\"w\":2.0,\"d\":0.25,\"big\":1e300,\"huge\":1e400,\"b\":false,\"s\":\"x\",\"z\":null}}"
        #expect(ChildMessage(line: summary) == .done(files: [.init(path: "a", bytes: 1200, sha256: "ab")], summary: nil))
    }

    @Test func failuresAreClassifiedIntoContractReasons() {
        let cases: [(String, JobPhase, JobErrorClass?, String)] = [
            ("USD_TRUNCATED", .parsing, .usd, "USDZ_PARSE_ERROR"),
            ("ROOMPLAN_JSON_INVALID", .layering, .roomPlan, "ROOMPLAN_JSON_INVALID"),
            ("THUMB_WEBP_FAILED", .preview, .preview, "PREVIEW_FAILED"),
            ("GLB_TOO_LARGE", .writing, .model, "LAYERING_FAILED"),
            ("IO_TOO_LARGE", .reading, .tooLarge, "FILE_TOO_LARGE"),
            ("IO_READ_FAILED", .reading, .workFiles, "INTERNAL"),
            ("REDACTION_INVALID", .parsing, .redaction, "REDACTION_INVALID"),
            ("INPUT_MISSING", .reading, .missingInput, "SOURCE_NOT_FOUND"),
            ("INTERNAL_ERROR", .manifest, .internal, "INTERNAL"),
            // Without a kind (a broken child), the phase decides, whatever the code says.
            ("USD_TRUNCATED", .preview, nil, "PREVIEW_FAILED"),
            ("THUMB_WEBP_FAILED", .parsing, nil, "USDZ_PARSE_ERROR"),
            ("X", .writing, nil, "LAYERING_FAILED"),
        ]
        for (code, phase, kind, reason) in cases {
            let f = FailureReason.pipeline(code: code, message: "m", phase: phase, retryable: false, errorClass: kind)
            #expect(f.reason == reason, "\(code)")
            #expect(f.message == "\(code): m")
        }
        #expect(JobErrorClass.allCases.count == 9)
        #expect(FailureReason.pipeline(code: "GLB_TOO_LARGE", message: "m", phase: .writing, retryable: false, errorClass: .model)
                    .phase == "layering")
        #expect(FailureReason.pipeline(code: "IO_READ_FAILED", message: "m", phase: .reading, retryable: false, errorClass: .workFiles)
                    .isRetryable)
        #expect(!FailureReason.pipeline(code: "REDACTION_INVALID", message: "m", phase: .parsing, retryable: true, errorClass: .redaction)
                    .isRetryable)
        #expect(FailureReason.download(StorageError(code: .notFound, message: "x"), what: "s").reason == "SOURCE_NOT_FOUND")
        #expect(FailureReason.download(StorageError(code: .tooLarge, message: "x"), what: "s").reason == "FILE_TOO_LARGE")
        let unavailable = FailureReason.download(StorageError(code: .unavailable, message: "x"), what: "s")
        #expect(unavailable.reason == "SOURCE_DOWNLOAD_FAILED" && unavailable.isRetryable)
        // A 403 (wrong secret, no permission) meets every attempt the same way: fail at once.
        let forbidden = FailureReason.download(StorageError(code: .forbidden, message: "x"), what: "s")
        #expect(forbidden.reason == "SOURCE_DOWNLOAD_FAILED" && !forbidden.isRetryable)
        #expect(forbidden.message.hasPrefix("STORAGE_FORBIDDEN: "))
        #expect(FailureReason(reason: "INTERNAL", message: String(repeating: "x", count: 900), phase: .parsing, isRetryable: true)
                    .message.count == 500)
    }
}
