import Foundation
import JSONCore
import WorkerCore

/// Builds and sends one job's `transcode_progress` events (worker-contracts §3.2): payload schema
/// `transcode-progress/v1`, the row's `status` (`transcoding`, `queued` while a retry waits, or
/// `ready` during a reprocess) beside `step`, `seq` from `firstSeq` (one sequence per version
/// across attempts: migration 6 gives each lease a block of `SchemaCatalog.eventSeqBlock`
/// numbers below its terminal event's), `at` in RFC 3339 UTC.
///
/// Throttling: at most one event per `minInterval` seconds. An update that arrives sooner is kept
/// as pending and sent by `flush()` once the interval has passed; a newer update replaces a
/// pending one, so an intermediate step may be dropped but steps are never sent out of order.
/// `queued` (retry with backoff) is sent at once. Sending is best effort: a failed send is logged
/// and dropped, never retried.
///
/// The transport is the `send` closure (`pg_notify` today; a Realtime broadcast can be added
/// without touching the reporter). With `asynchronous`, events are numbered and queued by the
/// caller and sent in order by a serial queue of the reporter's own, so a stalled transport never
/// blocks the caller (the job's child-supervising tick); `drain()` waits for what is queued.
/// Thread-safe.
public final class ProgressReporter: @unchecked Sendable {
    /// Sends one event: topic (`room:<room_id>`), event name, payload.
    public typealias Send = @Sendable (_ topic: String, _ event: String, _ payload: JSONValue) throws -> Void

    /// The event name.
    public static let eventName = "transcode_progress"
    public static let schema = "transcode-progress/v1"

    private let versionId: String
    private let roomId: String
    private let attempt: Int
    private let maxAttempts: Int
    private let minInterval: Double
    private let send: Send
    private let logger: JSONLogger?
    /// Sends in order off the caller's thread (asynchronous mode only).
    private let delivery: DispatchQueue?

    private let lock = NSLock()
    private var seq: Int64
    private let lastSeq: Int64
    private let status: String
    /// Set by `close()`: nothing is sent any more (a terminal event follows).
    private var closed = false
    private var lastSent: UInt64?
    private var lastStep: String?
    private var lastProgress = -1.0
    private var pending: (step: String, progress: Double)?

    /// - Parameters:
    ///   - minInterval: seconds between two events (0: no throttling).
    ///   - maxAttempts: the effective attempt limit shown to clients.
    ///   - asynchronous: send from a serial queue of the reporter's own instead of the caller's
    ///     thread (events keep their order and `seq`).
    ///   - firstSeq / lastSeq: the `seq` numbers this reporter may use; once they are used up,
    ///     further events are dropped (their order must stay below the terminal event's).
    ///   - status: the row's status while the job runs (`transcoding`, or `ready` for a reprocess).
    public init(versionId: String, roomId: String, attempt: Int, maxAttempts: Int, minInterval: Double,
                firstSeq: Int64 = 1, lastSeq: Int64 = .max, status: String = "transcoding",
                logger: JSONLogger? = nil, asynchronous: Bool = false, send: @escaping Send) {
        seq = firstSeq - 1
        self.lastSeq = lastSeq
        self.status = status
        delivery = asynchronous ? DispatchQueue(label: "progress-\(versionId.prefix(8))") : nil
        self.versionId = versionId
        self.roomId = roomId
        self.attempt = attempt
        self.maxAttempts = maxAttempts
        self.minInterval = max(0, minInterval)
        self.logger = logger
        self.send = send
    }

    /// The topic of the room's events.
    public var topic: String { "room:\(roomId)" }

    /// Reports a transcoding step (`parsing`, `layering`, `preview`) and the overall progress
    /// (0…1). A repeat of what was last reported is ignored.
    public func step(_ step: String, progress: Double) {
        lock.lock()
        defer { lock.unlock() }
        if pending == nil, step == lastStep, progress <= lastProgress { return }
        if let p = pending, p.step == step, progress <= p.progress { return }
        if let last = lastSent, Double(Clock.now() &- last) / 1e9 < minInterval {
            pending = (step, progress)
            return
        }
        pending = nil
        emitLocked(phase: "transcoding", step: step, progress: progress, retryAt: nil)
    }

    /// Sends a pending step update when the interval has passed; call it regularly.
    public func flush() {
        lock.lock()
        defer { lock.unlock() }
        guard let p = pending else { return }
        if let last = lastSent, Double(Clock.now() &- last) / 1e9 < minInterval { return }
        pending = nil
        emitLocked(phase: "transcoding", step: p.step, progress: p.progress, retryAt: nil)
    }

    /// Drops a pending update (the job has moved past transcoding).
    public func discardPending() {
        lock.lock()
        pending = nil
        lock.unlock()
    }

    /// Sends a pending step update now, whatever the interval (the last step before the end).
    public func flushNow() {
        lock.lock()
        defer { lock.unlock() }
        guard let p = pending else { return }
        pending = nil
        emitLocked(phase: "transcoding", step: p.step, progress: p.progress, retryAt: nil)
    }

    /// Sends what is pending, waits until it was handed to the transport, and sends nothing
    /// afterwards: call it before the version's terminal event.
    public func close() {
        flushNow()
        lock.lock()
        closed = true
        lock.unlock()
        drain()
    }

    /// Reports that the version is back in the queue until `retryAt` (RFC 3339). Never throttled.
    public func queued(retryAt: String) {
        lock.lock()
        defer { lock.unlock() }
        pending = nil
        emitLocked(phase: "queued", step: nil, progress: 0, retryAt: retryAt)
    }

    /// The last `seq` used.
    public var sent: Int64 {
        lock.lock()
        defer { lock.unlock() }
        return seq
    }

    /// Waits until every queued event was handed to the transport (asynchronous mode; at once
    /// otherwise). Call it before the transport's connection is closed.
    public func drain() {
        delivery?.sync {}
    }

    private func emitLocked(phase: String, step: String?, progress: Double, retryAt: String?) {
        guard !closed, seq < lastSeq else { return }
        seq += 1
        lastSent = Clock.now()
        if let step { lastStep = step; lastProgress = progress }
        let payload = JSONValue.object([
            "schema": .string(Self.schema),
            "version_id": .string(versionId),
            "room_id": .string(roomId),
            "status": .string(phase == "queued" ? "queued" : status),
            "phase": .string(phase),
            "step": step.map(JSONValue.string) ?? .null,
            "attempt": .int(Int64(attempt)),
            "max_attempts": .int(Int64(maxAttempts)),
            "progress": .double(progress),
            "seq": .int(seq),
            "retry_at": retryAt.map(JSONValue.string) ?? .null,
            "at": .string(JSONLogger.timestamp()),
        ])
        if let delivery {
            // Queued under the lock, so the serial queue sends in `seq` order.
            let send = self.send, topic = self.topic, logger = self.logger, versionId = self.versionId
            delivery.async {
                Self.deliver(send, topic: topic, payload: payload, logger: logger, versionId: versionId)
            }
        } else {
            Self.deliver(send, topic: topic, payload: payload, logger: logger, versionId: versionId)
        }
    }

    private static func deliver(_ send: Send, topic: String, payload: JSONValue, logger: JSONLogger?, versionId: String) {
        do {
            try send(topic, Self.eventName, payload)
        } catch {
            logger?.debug("progress event dropped", ["version_id": .string(versionId), "error": .string("\(error)")])
        }
    }
}
