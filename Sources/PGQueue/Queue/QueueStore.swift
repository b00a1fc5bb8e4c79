import Foundation
import JSONCore

/// The queue on `room_versions`: every statement the worker and the operator commands run, each
/// next to the method that runs it, parameters only. All writes about a claimed version are fenced
/// by its lease id. No transaction stays open while a job runs.
///
/// Not thread-safe beyond what `PGConnection` serializes: give each thread its own store when
/// calls must not wait for each other.
public final class QueueStore: Sendable {
    public let connection: PGConnection

    public init(connection: PGConnection) {
        self.connection = connection
    }

    // MARK: Enqueue

    static let enqueueSQL = """
        UPDATE room_versions
           SET status = 'queued', run_after = now(), enqueued_at = now(),
               updated_at = now()
         WHERE id = $1::uuid AND status = 'uploading' AND lease_id IS NULL
        RETURNING id, status, attempt
        """
    static let lookupSQL = "SELECT status::text AS status, lease_id FROM room_versions WHERE id = $1::uuid"

    /// Queues an uploaded version (idempotent: queuing a queued or running version changes nothing,
    /// so it keeps its place and any retry backoff).
    public func enqueue(versionId: String) throws(DatabaseError) -> EnqueueOutcome {
        guard Self.isUUID(versionId) else { return .notFound }
        if let row = try connection.query(Self.enqueueSQL, [versionId]).first {
            return .queued(attempt: row.int("attempt") ?? 0)
        }
        guard let row = try connection.query(Self.lookupSQL, [versionId]).first else { return .notFound }
        let status = row["status"] ?? "unknown"
        if status == "queued" || status == "transcoding" || row["lease_id"] != nil { return .deduplicated(status: status) }
        return .invalidState(status: status)
    }

    // MARK: Claim, heartbeat, retry, release

    static let claimSQL = """
        WITH next AS (
          SELECT id FROM room_versions
           WHERE lease_id IS NULL AND run_after <= now()
             AND (status = 'queued' OR (status = 'ready' AND reprocess_requested_at IS NOT NULL))
           ORDER BY priority ASC, run_after ASC, id ASC
           LIMIT 1
           FOR UPDATE SKIP LOCKED)
        UPDATE room_versions rv
           SET status = CASE WHEN rv.status = 'queued' THEN 'transcoding'::room_version_status ELSE rv.status END,
               attempt = rv.attempt + 1, lease_id = gen_random_uuid(), locked_by = $1,
               locked_at = now(), heartbeat_at = now(), lease_expires_at = now() + make_interval(secs => $2::double precision),
               transcode_phase = 'parsing', updated_at = now()
          FROM next WHERE rv.id = next.id
        RETURNING rv.id, rv.room_id, rv.status::text AS status, rv.attempt, rv.max_attempts, rv.lease_id,
                  rv.source_usdz_path, rv.source_json_path, rv.source_bucket, rv.output_revision, rv.event_seq,
                  (rv.reprocess_requested_at IS NOT NULL) AS is_reprocess,
                  extract(epoch FROM (now() - coalesce(rv.enqueued_at, rv.run_after))) AS wait_seconds
        """

    /// Claims the most urgent runnable version (lowest priority number, then oldest), or nil.
    ///
    /// - Parameters:
    ///   - workerId: recorded in `locked_by`.
    ///   - leaseSeconds: the lease length; heartbeats extend it.
    public func claim(workerId: String, leaseSeconds: Double) throws(DatabaseError) -> ClaimedJob? {
        guard let row = try connection.query(Self.claimSQL, [workerId, String(leaseSeconds)]).first else { return nil }
        return try ClaimedJob(row: row)
    }

    static let heartbeatSQL = """
        UPDATE room_versions
           SET heartbeat_at = now(), lease_expires_at = now() + make_interval(secs => $3::double precision),
               transcode_phase = coalesce($4, transcode_phase)
         WHERE id = $1::uuid AND lease_id = $2::uuid
        RETURNING (cancel_requested_at IS NOT NULL) AS cancel_requested
        """

    /// Renews the lease (and records the phase when given: `parsing`, `layering`, `preview`,
    /// `uploading_outputs`).
    public func heartbeat(_ job: ClaimedJob, leaseSeconds: Double, phase: String? = nil) throws(DatabaseError) -> HeartbeatResult {
        guard let row = try connection.query(Self.heartbeatSQL, [job.versionId, job.leaseId, String(leaseSeconds), phase]).first
        else { return .leaseLost }
        return .alive(cancelRequested: row.bool("cancel_requested") ?? false)
    }

    static let retryLaterSQL = """
        UPDATE room_versions
           SET status = CASE WHEN status = 'transcoding' THEN 'queued'::room_version_status ELSE status END,
               run_after = now() + least($5::double precision, $6::double precision * power(3, attempt - 1))
                                   * (0.9 + random() * 0.2) * interval '1 second',
               lease_id = NULL, locked_by = NULL, locked_at = NULL, lease_expires_at = NULL, heartbeat_at = NULL,
               transcode_phase = NULL, last_error_code = $3::text, last_error = left($4::text, 2000),
               errors = errors || jsonb_build_array(jsonb_build_object(
                 'at', now(), 'attempt', attempt, 'code', $3::text, 'message', left($4::text, 2000), 'worker', locked_by,
                 'lease_id', lease_id)),
               updated_at = now()
         WHERE id = $1::uuid AND lease_id = $2::uuid AND attempt < least(max_attempts, $7::integer)
        RETURNING run_after
        """

    /// Puts a failed attempt back in the queue with exponential backoff and ±10 % jitter:
    /// `min(maxDelay, baseDelay·3^(attempt−1))` seconds. Returns the time it may run again, or nil
    /// when the attempts are used up (or the lease is gone): the caller then finalizes `failed`.
    /// `maxAttempts` caps the row's own `max_attempts` (the worker's configured limit).
    public func retryLater(_ job: ClaimedJob, code: String, message: String, baseDelaySeconds: Double = 10,
                           maxDelaySeconds: Double = 600, maxAttempts: Int = 32767) throws(DatabaseError) -> String? {
        try connection.query(Self.retryLaterSQL, [job.versionId, job.leaseId, code, message,
                                                  String(maxDelaySeconds), String(baseDelaySeconds),
                                                  String(maxAttempts)]).first?["run_after"]
    }

    static let releaseSQL = """
        UPDATE room_versions
           SET status = CASE WHEN status = 'transcoding' THEN 'queued'::room_version_status ELSE status END,
               attempt = greatest(attempt - 1, 0), run_after = now(),
               lease_id = NULL, locked_by = NULL, locked_at = NULL, lease_expires_at = NULL, heartbeat_at = NULL,
               transcode_phase = NULL, updated_at = now(),
               errors = errors || jsonb_build_array(jsonb_build_object(
                 'at', now(), 'attempt', attempt, 'code', 'WORKER_SHUTDOWN', 'worker', locked_by))
         WHERE id = $1::uuid AND lease_id = $2::uuid
        RETURNING id
        """

    /// Gives a job back without burning an attempt (graceful shutdown). False when the lease was
    /// already gone.
    @discardableResult
    public func release(_ job: ClaimedJob) throws(DatabaseError) -> Bool {
        !(try connection.query(Self.releaseSQL, [job.versionId, job.leaseId])).isEmpty
    }

    // MARK: Finalize

    static let finalizeSQL = "SELECT transcode_finalize($1::uuid, $2::uuid, $3, $4::jsonb, $5::jsonb)::text AS result"

    /// Marks the version `ready` with its outputs, or `failed` with its reason, and sends the event
    /// in the same transaction (see `SchemaCatalog.functions`).
    ///
    /// - Parameters:
    ///   - outputs: for `ready`: `glb_path`, `manifest_path`, `thumbnail_path`, `thumbnails`,
    ///     `manifest_schema_version`.
    ///   - error: for `failed`: `reason`, `message`, `phase`, `retryable`.
    public func finalize(versionId: String, leaseId: String, status: String,
                         outputs: JSONValue? = nil, error: JSONValue? = nil) throws(DatabaseError) -> FinalizeOutcome {
        let rows = try connection.query(Self.finalizeSQL, [versionId, leaseId, status,
                                                            outputs?.serialized(), error?.serialized()])
        let obj = Self.object(rows.first?["result"])
        return FinalizeOutcome(ok: obj["ok"] as? Bool ?? false, status: obj["status"] as? String,
                               outputRevision: (obj["output_revision"] as? NSNumber)?.intValue,
                               idempotentReplay: obj["idempotent_replay"] as? Bool ?? false,
                               error: obj["error"] as? String)
    }

    // MARK: Rescuer

    static let rescueSQL = """
        WITH stuck AS (
          SELECT id FROM room_versions
           WHERE lease_id IS NOT NULL AND lease_expires_at < now() AND attempt < least(max_attempts, $3::integer)
           FOR UPDATE SKIP LOCKED)
        UPDATE room_versions rv
           SET status = CASE WHEN rv.status = 'transcoding' THEN 'queued'::room_version_status ELSE rv.status END,
               run_after = now() + least($2::double precision, $1::double precision * power(3, rv.attempt - 1)) * interval '1 second',
               lease_id = NULL, locked_by = NULL, locked_at = NULL, lease_expires_at = NULL, heartbeat_at = NULL,
               transcode_phase = NULL, last_error_code = 'LEASE_EXPIRED',
               last_error = 'worker ' || rv.locked_by || ' stopped heartbeating',
               errors = rv.errors || jsonb_build_array(jsonb_build_object(
                 'at', now(), 'attempt', rv.attempt, 'code', 'LEASE_EXPIRED', 'worker', rv.locked_by, 'lease_id', rv.lease_id)),
               updated_at = now()
          FROM stuck WHERE rv.id = stuck.id
        RETURNING rv.id
        """

    /// Puts versions whose lease expired (their worker died) back in the queue with backoff.
    /// Returns their ids. `maxAttempts` caps the rows' own `max_attempts` (the worker's limit).
    public func rescueExpired(baseDelaySeconds: Double = 10, maxDelaySeconds: Double = 600,
                              maxAttempts: Int = 32767) throws(DatabaseError) -> [String] {
        try connection.query(Self.rescueSQL, [String(baseDelaySeconds), String(maxDelaySeconds), String(maxAttempts)])
            .compactMap { $0["id"] }
    }

    static let takeOverSQL = """
        WITH dead AS (
          SELECT id FROM room_versions
           WHERE lease_id IS NOT NULL AND lease_expires_at < now() AND attempt >= least(max_attempts, $2::integer)
           FOR UPDATE SKIP LOCKED)
        UPDATE room_versions rv
           SET lease_id = gen_random_uuid(), locked_by = $1, locked_at = now(), heartbeat_at = now(),
               lease_expires_at = now() + interval '2 minutes', updated_at = now()
          FROM dead WHERE rv.id = dead.id
        RETURNING rv.id, rv.room_id, rv.status::text AS status, rv.attempt, rv.max_attempts, rv.lease_id,
                  rv.source_usdz_path, rv.source_json_path, rv.source_bucket, rv.output_revision, rv.event_seq,
                  (rv.reprocess_requested_at IS NOT NULL) AS is_reprocess
        """

    /// Takes over expired leases whose attempts are used up, so the caller can finalize them
    /// `failed` with reason `LEASE_EXPIRED`. If that fails, the takeover lease expires and the next
    /// sweep tries again.
    public func takeOverExhausted(workerId: String, maxAttempts: Int = 32767) throws(DatabaseError) -> [ClaimedJob] {
        try connection.query(Self.takeOverSQL, [workerId, String(maxAttempts)]).map { (row) throws(DatabaseError) in try ClaimedJob(row: row) }
    }

    // MARK: Events

    static let notifySQL = "SELECT pg_notify($1, $2)"

    /// Sends an event on `SchemaCatalog.eventsChannel` (payload: `{"topic","event","payload"}`, at most
    /// ~7 KB: NOTIFY payloads are limited to 8000 bytes).
    public func notifyEvent(topic: String, event: String, payload: JSONValue) throws(DatabaseError) {
        let text = JSONValue.object(["topic": .string(topic), "event": .string(event), "payload": payload]).serialized()
        try connection.query(Self.notifySQL, [SchemaCatalog.eventsChannel, text])
    }

    // MARK: Operator actions

    static let retryOneSQL = """
        UPDATE room_versions
           SET status = 'queued', attempt = 0, run_after = now(), priority = 10, enqueued_at = now(),
               last_error_code = NULL, last_error = NULL, cancel_requested_at = NULL, updated_at = now()
         WHERE id = $1::uuid AND status = 'failed' AND lease_id IS NULL
        RETURNING id
        """

    /// Queues one failed version again with a fresh set of attempts (priority 10). False when the
    /// version is not `failed`.
    public func retryFailed(versionId: String) throws(DatabaseError) -> Bool {
        guard Self.isUUID(versionId) else { return false }
        return !(try connection.query(Self.retryOneSQL, [versionId])).isEmpty
    }

    static let retryManySQL = """
        UPDATE room_versions
           SET status = 'queued', attempt = 0, run_after = now(), priority = 10, enqueued_at = now(),
               last_error_code = NULL, last_error = NULL, cancel_requested_at = NULL, updated_at = now()
         WHERE status = 'failed' AND lease_id IS NULL
           AND ($1::timestamptz IS NULL OR updated_at >= $1::timestamptz)
           AND ($2::uuid IS NULL OR room_id = $2::uuid)
        RETURNING id
        """
    static let retryManyDrySQL = """
        SELECT id FROM room_versions
         WHERE status = 'failed' AND lease_id IS NULL
           AND ($1::timestamptz IS NULL OR updated_at >= $1::timestamptz)
           AND ($2::uuid IS NULL OR room_id = $2::uuid)
         ORDER BY id
        """

    /// Queues every failed version (failed since `since`, of room `roomId`, when given). Returns
    /// the ids; with `dryRun` nothing changes.
    public func retryAllFailed(since: String?, roomId: String?, dryRun: Bool = false) throws(DatabaseError) -> [String] {
        let sql = dryRun ? Self.retryManyDrySQL : Self.retryManySQL
        return try connection.query(sql, [since, roomId]).compactMap { $0["id"] }.sorted()
    }

    static let cancelSQL = "SELECT transcode_cancel($1::uuid)::text AS result"

    /// Cancels a queued version at once, or asks its worker to stop (see `transcode_cancel`).
    public func cancel(versionId: String) throws(DatabaseError) -> CancelOutcome {
        guard Self.isUUID(versionId) else { return CancelOutcome(ok: false, running: false, status: nil, error: "VERSION_NOT_FOUND") }
        let obj = Self.object(try connection.query(Self.cancelSQL, [versionId]).first?["result"])
        return CancelOutcome(ok: obj["ok"] as? Bool ?? false, running: obj["running"] as? Bool ?? false,
                             status: obj["status"] as? String, error: obj["error"] as? String)
    }

    static let reprocessSQL = """
        WITH pick AS (
          SELECT id FROM room_versions
           WHERE status = 'ready' AND coalesce(manifest_schema_version, 0) < $1::integer
             AND reprocess_requested_at IS NULL AND lease_id IS NULL
           ORDER BY id LIMIT $2::integer FOR UPDATE SKIP LOCKED)
        UPDATE room_versions rv
           SET reprocess_requested_at = now(), priority = 20, attempt = 0, run_after = now(), updated_at = now()
          FROM pick WHERE rv.id = pick.id
        RETURNING rv.id
        """
    static let reprocessDrySQL = """
        SELECT id FROM room_versions
         WHERE status = 'ready' AND coalesce(manifest_schema_version, 0) < $1::integer
           AND reprocess_requested_at IS NULL AND lease_id IS NULL
         ORDER BY id LIMIT $2::integer
        """

    /// Marks up to `limit` ready versions whose outputs are older than manifest schema
    /// `belowSchema` for re-transcoding at batch priority (20, after fresh uploads). They stay
    /// `ready` on their old outputs until the new ones are in. Returns the ids marked (or, with
    /// `dryRun`, that would be).
    public func markReprocess(belowSchema: Int, limit: Int, dryRun: Bool = false) throws(DatabaseError) -> [String] {
        try connection.query(dryRun ? Self.reprocessDrySQL : Self.reprocessSQL, [String(belowSchema), String(limit)])
            .compactMap { $0["id"] }.sorted()
    }

    static let reprocessOneSQL = """
        UPDATE room_versions
           SET reprocess_requested_at = now(), priority = 20, attempt = 0, run_after = now(), updated_at = now()
         WHERE id = $1::uuid AND status = 'ready' AND lease_id IS NULL AND reprocess_requested_at IS NULL
        RETURNING id
        """

    /// Marks one ready version for re-transcoding. False when it is not `ready` and idle.
    public func markReprocess(versionId: String) throws(DatabaseError) -> Bool {
        guard Self.isUUID(versionId) else { return false }
        return !(try connection.query(Self.reprocessOneSQL, [versionId])).isEmpty
    }

    // MARK: Reading

    static let showSQL = """
        SELECT id, room_id, status::text AS status, source_bucket, source_usdz_path, source_json_path, output_bucket,
               glb_path, manifest_path, thumbnail_path, thumbnail_paths::text AS thumbnail_paths, attempt, max_attempts, priority,
               run_after, enqueued_at, lease_id, locked_by, locked_at, lease_expires_at, heartbeat_at,
               transcode_phase, cancel_requested_at, reprocess_requested_at, last_error_code, last_error,
               errors::text AS errors, output_revision, manifest_schema_version, transcoded_at, created_at, updated_at
          FROM room_versions WHERE id = $1::uuid
        """

    /// The whole row of one version (text values; `errors` and `thumbnail_paths` as JSON text).
    public func show(versionId: String) throws(DatabaseError) -> PGRow? {
        guard Self.isUUID(versionId) else { return nil }
        return try connection.query(Self.showSQL, [versionId]).first
    }

    static let redactionsSQL = """
        SELECT coalesce(texture_ref, texture_path) AS texture, redacted_path FROM redactions
         WHERE room_version_id = $1::uuid AND coalesce(texture_ref, texture_path) IS NOT NULL
         ORDER BY 1, id
        """

    /// The redaction rows of a version, one per row, ordered by texture: the path inside the
    /// package (`texture_ref`, else `texture_path`) and the storage key of the face-blurred
    /// replacement, nil for a row that only records a redacted area (migration 9).
    public func redactions(versionId: String) throws(DatabaseError) -> [(texturePath: String, storageKey: String?)] {
        try connection.query(Self.redactionsSQL, [versionId]).compactMap { row in
            guard let t = row["texture"] else { return nil }
            return (t, row["redacted_path"])
        }
    }

    static let countsSQL = "SELECT status::text AS status, count(*) AS n FROM room_versions GROUP BY status ORDER BY status"
    static let queueSQL = """
        SELECT count(*) FILTER (WHERE lease_id IS NULL AND (status = 'queued' OR reprocess_requested_at IS NOT NULL)) AS waiting,
               count(*) FILTER (WHERE lease_id IS NULL AND reprocess_requested_at IS NOT NULL) AS reprocess_waiting,
               count(*) FILTER (WHERE lease_id IS NOT NULL) AS in_flight,
               count(*) FILTER (WHERE lease_id IS NOT NULL AND lease_expires_at < now()) AS expired_leases,
               extract(epoch FROM now() - min(coalesce(enqueued_at, run_after))
                       FILTER (WHERE lease_id IS NULL AND status = 'queued')) AS oldest_queued_seconds
          FROM room_versions
        """
    static let leasesSQL = """
        SELECT id, room_id, locked_by, attempt, transcode_phase, locked_at,
               extract(epoch FROM lease_expires_at - now()) AS lease_remaining_seconds
          FROM room_versions WHERE lease_id IS NOT NULL ORDER BY locked_at LIMIT 100
        """
    static let failuresSQL = """
        SELECT coalesce(last_error_code, 'UNKNOWN') AS reason, count(*) AS n, max(updated_at) AS last_at
          FROM room_versions
         WHERE last_error_code IS NOT NULL AND updated_at > now() - make_interval(hours => $1::integer)
         GROUP BY 1 ORDER BY n DESC, reason
        """

    /// A snapshot for `status` and metrics.
    public func status(failureWindowHours: Int = 24) throws(DatabaseError) -> QueueStatus {
        var counts: [String: Int] = [:]
        for row in try connection.query(Self.countsSQL) {
            if let s = row["status"] { counts[s] = row.int("n") ?? 0 }
        }
        let q = try connection.query(Self.queueSQL).first
        let leases = try connection.query(Self.leasesSQL).map { row in
            QueueStatus.Lease(versionId: row["id"] ?? "", roomId: row["room_id"] ?? "", worker: row["locked_by"] ?? "",
                              attempt: row.int("attempt") ?? 0, phase: row["transcode_phase"],
                              lockedAt: row["locked_at"] ?? "", leaseRemainingSeconds: row.double("lease_remaining_seconds") ?? 0)
        }
        let failures = try connection.query(Self.failuresSQL, [String(failureWindowHours)]).map { row in
            QueueStatus.Failure(reason: row["reason"] ?? "UNKNOWN", count: row.int("n") ?? 0, lastAt: row["last_at"] ?? "")
        }
        return QueueStatus(counts: counts, waiting: q?.int("waiting") ?? 0, reprocessWaiting: q?.int("reprocess_waiting") ?? 0,
                           inFlight: q?.int("in_flight") ?? 0, expiredLeases: q?.int("expired_leases") ?? 0,
                           oldestQueuedSeconds: q?.double("oldest_queued_seconds"), leases: leases,
                           recentFailures: failures, failureWindowHours: failureWindowHours)
    }

    static let idleSQL = """
        SELECT NOT EXISTS (
          SELECT 1 FROM room_versions
           WHERE lease_id IS NOT NULL OR status = 'queued' OR (status = 'ready' AND reprocess_requested_at IS NOT NULL)
        ) AS idle
        """

    /// True when nothing is queued (now or later, including reprocess requests) and nothing is
    /// in flight.
    public func isIdle() throws(DatabaseError) -> Bool {
        try connection.query(Self.idleSQL).first?.bool("idle") ?? false
    }

    // MARK: Submitting

    static let insertRoomSQL = "INSERT INTO rooms (id, name) VALUES ($1::uuid, $2) ON CONFLICT (id) DO NOTHING"
    static let insertVersionSQL = """
        INSERT INTO room_versions (id, room_id, status, source_usdz_path, source_json_path, max_attempts)
        VALUES ($1::uuid, $2::uuid, 'queued', $3, $4, coalesce($5::smallint, 5))
        RETURNING id
        """
    static let insertRedactionSQL = """
        INSERT INTO redactions (room_version_id, texture_path, redacted_path) VALUES ($1::uuid, $2, $3)
        """

    /// Inserts a room (when new) and a queued version whose sources are already in storage.
    public func submit(versionId: String, roomId: String, roomName: String?, usdzKey: String?, jsonKey: String?,
                       maxAttempts: Int? = nil, redactions: [(texturePath: String, storageKey: String)] = []) throws(DatabaseError) {
        try connection.query("BEGIN")
        do {
            try connection.query(Self.insertRoomSQL, [roomId, roomName])
            try connection.query(Self.insertVersionSQL, [versionId, roomId, usdzKey, jsonKey, maxAttempts.map(String.init)])
            for r in redactions { try connection.query(Self.insertRedactionSQL, [versionId, r.texturePath, r.storageKey]) }
            try connection.query("COMMIT")
        } catch {
            _ = try? connection.query("ROLLBACK")
            throw error
        }
    }

    // MARK: Helpers

    /// A canonical textual UUID (so a malformed id is "not found", not a SQL error).
    public static func isUUID(_ s: String) -> Bool {
        UUID(uuidString: s) != nil
    }

    static func object(_ text: String?) -> [String: Any] {
        guard let text, let data = text.data(using: .utf8),
              let obj = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return [:] }
        return obj
    }
}
