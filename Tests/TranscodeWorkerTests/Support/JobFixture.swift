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
#endif

/// Shared set-up for tests that run real jobs: a fresh migrated database, a file store in a
/// temporary directory holding the RoomPlan sample, a worker configuration with short timings,
/// and the child binary (`transcode-worker` built beside the test bundle).
final class JobFixture: @unchecked Sendable {
    static let packageRoot = TestPaths.packageRoot
    static let sampleUSDZ = packageRoot.appendingPathComponent("samples/roomplan/parametric_two_sections.usdz").path
    static let sampleJSON = packageRoot.appendingPathComponent("samples/roomplan/parametric_two_sections.json").path

    /// The built `transcode-worker`; the built `transcode-job` beside it is exported once as
    /// `TRANSCODE_WORKER_BINARY`, the job child of the runners the tests make in process.
    static let workerBinary: String? = {
        guard let p = TestPaths.workerBinary, let job = TestPaths.jobBinary else { return nil }
        setenv(JobRunner.binaryVariable, job, 1)
        return p
    }()

    let db: TestDatabase
    let root: String
    let files: FileObjectStore
    let recorder: JobRecordingStore
    let store: QueueStore
    var config: WorkerConfig
    let roomId = UUID().uuidString.lowercased()

    init() throws {
        _ = try #require(Self.workerBinary, "the transcode-worker executable is not built beside the tests")
        db = try TestDatabase()
        root = FileManager.default.temporaryDirectory.appendingPathComponent("jobs-\(UUID().uuidString)").path
        files = try FileObjectStore(root: root)
        recorder = JobRecordingStore(files)
        store = QueueStore(connection: try db.connect())
        config = WorkerConfig(environment: [:])
        config.databaseURL = db.url
        config.storageURL = "file://" + root
        config.workerId = "tw-test-\(UUID().uuidString.prefix(6))"
        config.heartbeatSeconds = 0.2
        config.leaseSeconds = 5
        config.progressIntervalSeconds = 0
        config.retryBaseSeconds = 0
        config.retryMaxSeconds = 0
        config.attemptTimeoutSeconds = 120
    }

    deinit {
        store.connection.close()
        db.drop()
        try? FileManager.default.removeItem(atPath: root)
    }

    /// A `TRANSCODE_DONE_SECRET` long enough for `WorkerConfig.validate` (32+ bytes).
    static let doneSecret = "job-fixture-done-secret-0123456789abcdef"

    static func sample(_ path: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// Stores sources under `rooms/<room>/versions/<version>/` and submits a queued version. `usd` /
    /// `json` nil: that source is not given; `missing`: the row names a key with no object.
    @discardableResult
    func submit(usd: [UInt8]?, json: [UInt8]?, maxAttempts: Int? = nil, missingUSD: Bool = false,
                redactions: [(texturePath: String, storageKey: String)] = []) throws -> String {
        let version = UUID().uuidString.lowercased()
        let dir = "rooms/\(roomId)/versions/\(version)/"
        var usdKey: String?, jsonKey: String?
        if let usd {
            usdKey = dir + "scan.usdz"
            try files.put(usdKey!, bytes: usd, contentType: "model/vnd.usdz+zip")
        } else if missingUSD {
            usdKey = dir + "scan.usdz"
        }
        if let json {
            jsonKey = dir + "room.json"
            try files.put(jsonKey!, bytes: json, contentType: "application/json")
        }
        try store.submit(versionId: version, roomId: roomId, roomName: "test room", usdzKey: usdKey, jsonKey: jsonKey,
                         maxAttempts: maxAttempts, redactions: redactions)
        return version
    }

    func submitSample(maxAttempts: Int? = nil) throws -> String {
        try submit(usd: try Self.sample(Self.sampleUSDZ), json: try Self.sample(Self.sampleJSON), maxAttempts: maxAttempts)
    }

    func claim() throws -> ClaimedJob {
        try #require(try store.claim(workerId: config.workerId, leaseSeconds: config.leaseSeconds))
    }

    func runner(logLevel: JSONLogger.Level = .warn) -> JobRunner {
        JobRunner(config: config, storage: recorder, logger: JSONLogger(workerId: config.workerId, minimum: logLevel, fd: TestOutput.logFD))
    }

    func row(_ version: String) throws -> PGRow {
        try #require(try store.show(versionId: version))
    }

    /// The `errors` history of a version, decoded.
    func errors(_ version: String) throws -> [[String: Any]] {
        let text = try row(version)["errors"] ?? "[]"
        return (try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]]) ?? []
    }

    /// Runs `runner.run` on a thread of its own (as the daemon does) and returns a way to wait.
    /// Submits and claims the sample, starts its attempt, and returns once the attempt has moved
    /// past `claimed` (or 30 s passed).
    func startSamplePastClaim() throws -> (version: String, job: ClaimedJob, control: JobControl, running: JobThread) {
        let version = try submitSample()
        let job = try claim()
        let control = JobControl()
        let running = start(runner(), job, control: control)
        let deadline = Date().addingTimeInterval(30)
        while control.phase == "claimed" && Date() < deadline { usleep(2000) }
        return (version, job, control, running)
    }

    func start(_ runner: JobRunner, _ job: ClaimedJob, control: JobControl) -> JobThread {
        let running = JobThread()
        let thread = Thread {
            running.finish(runner.run(job, control: control))
        }
        thread.start()
        return running
    }
}

/// The result of a job run on its own thread.
final class JobThread: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var outcome: JobOutcome?

    func finish(_ o: JobOutcome) {
        lock.withLock { outcome = o }
        done.signal()
    }

    /// Waits up to `seconds` for the outcome.
    func wait(_ seconds: Double = 120) -> JobOutcome? {
        guard done.wait(timeout: .now() + seconds) == .success else { return nil }
        return lock.withLock { outcome }
    }
}

/// An `ObjectStore` that forwards to another and records every read and write in order.
final class JobRecordingStore: ForwardingStore, @unchecked Sendable {
    private let lock = NSLock()
    private var writes: [(key: String, contentType: String)] = []
    private var cacheControls: [String: String] = [:]
    private var reads: [String] = []
    private var copied: [(source: String, destination: String)] = []
    private var failing: [String: [UInt8]?] = [:]

    var puts: [(key: String, contentType: String)] { lock.withLock { writes } }
    /// Every server-side copy, in order.
    var copies: [(source: String, destination: String)] { lock.withLock { copied } }
    /// The `Cache-Control` each written key was given (absent: none).
    var cacheControl: [String: String] { lock.withLock { cacheControls } }
    /// Every key read, in order.
    var gets: [String] { lock.withLock { reads } }

    override func get(_ key: String, maxBytes: Int) throws(StorageError) -> [UInt8] {
        lock.withLock { reads.append(key) }
        return try base.get(key, maxBytes: maxBytes)
    }
    override func put(_ key: String, bytes: [UInt8], contentType: String, cacheControl: String?) throws(StorageError) {
        try base.put(key, bytes: bytes, contentType: contentType, cacheControl: cacheControl)
        lock.withLock {
            writes.append((key, contentType))
            cacheControls[key] = cacheControl
        }
    }
    /// Copies to a key ending in `/<path>` fail (`STORAGE_UNAVAILABLE`), after the source is
    /// overwritten with `replacingSource` when given (someone changing it meanwhile).
    func failCopies(of path: String, replacingSource: [UInt8]? = nil) {
        lock.withLock { failing[path] = .some(replacingSource) }
    }

    override func copy(_ source: String, to destination: String, contentType: String, cacheControl: String?) throws(StorageError) {
        if let (_, replacement) = lock.withLock({ failing.first { destination.hasSuffix("/" + $0.key) } }) {
            if let replacement { try base.put(source, bytes: replacement, contentType: contentType, cacheControl: cacheControl) }
            throw StorageError(code: .unavailable, message: "copy refused for the test", key: destination)
        }
        try base.copy(source, to: destination, contentType: contentType, cacheControl: cacheControl)
        lock.withLock { copied.append((source, destination)) }
    }
}

/// Collects the events sent on `SchemaCatalog.eventsChannel` of one database.
final class JobEventListener {
    let connection: PGConnection
    private(set) var events: [(event: String, payload: [String: Any])] = []

    init(_ db: TestDatabase) throws {
        connection = try db.connect()
        try connection.listen(SchemaCatalog.eventsChannel)
    }

    deinit { connection.close() }

    /// Reads notifications until `until` holds for the collected events or `seconds` passed.
    func collect(seconds: Double = 10, until: ([(event: String, payload: [String: Any])]) -> Bool) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            for n in try connection.waitForNotifications(timeout: 0.2) {
                guard let obj = try JSONSerialization.jsonObject(with: Data(n.payload.utf8)) as? [String: Any],
                      let event = obj["event"] as? String else { continue }
                events.append((event, obj["payload"] as? [String: Any] ?? [:]))
            }
            if until(events) { return }
        }
    }
}
