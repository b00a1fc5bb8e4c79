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
        UPDATE transcode_private.room_versions
           SET status = 'queued', run_after = now(), enqueued_at = now(),
               updated_at = now()
         WHERE id = $1::uuid AND status = 'uploading' AND lease_id IS NULL
        RETURNING id, status, attempt
        """
    static let lookupSQL = "SELECT status::text AS status, lease_id FROM transcode_private.room_versions WHERE id = $1::uuid"

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
          SELECT id FROM transcode_private.room_versions
           WHERE lease_id IS NULL AND run_after <= now()
             AND (status = 'queued' OR (status = 'ready' AND reprocess_requested_at IS NOT NULL))
             AND ($3::boolean OR status = 'queued')
           ORDER BY priority ASC, run_after ASC, id ASC
           LIMIT 1
           FOR UPDATE SKIP LOCKED)
        UPDATE transcode_private.room_versions rv
           SET status = CASE WHEN rv.status = 'queued' THEN 'transcoding'::room_version_status ELSE rv.status END,
               attempt = rv.attempt + 1, lease_id = gen_random_uuid(), locked_by = $1,
               locked_at = now(), heartbeat_at = now(), lease_expires_at = now() + make_interval(secs => $2::double precision),
               transcode_phase = 'parsing', updated_at = now()
          FROM next WHERE rv.id = next.id
        RETURNING rv.id, rv.room_id, rv.status::text AS status, rv.attempt, rv.max_attempts, rv.lease_id,
                  (SELECT r.visibility::text FROM public.rooms r WHERE r.id = rv.room_id) AS room_visibility,
                  rv.source_usdz_path, rv.source_json_path, rv.source_rooms::text AS source_rooms, rv.source_bucket, rv.output_revision, rv.event_seq,
                  rv.plan_units, rv.plan_locale, rv.manifest_path, rv.output_bucket, rv.reprocess_full,
                  (rv.reprocess_requested_at IS NOT NULL) AS is_reprocess,
                  extract(epoch FROM (now() - coalesce(rv.enqueued_at, rv.run_after))) AS wait_seconds
        """

    /// Claims the most urgent runnable version (lowest priority number, then oldest), or nil.
    ///
    /// - Parameters:
    ///   - workerId: recorded in `locked_by`.
    ///   - leaseSeconds: the lease length; heartbeats extend it.
    ///   - includeReprocess: false claims only queued versions (the worker's batch slots are full).
    public func claim(workerId: String, leaseSeconds: Double, includeReprocess: Bool = true) throws(DatabaseError) -> ClaimedJob? {
        guard let row = try connection.query(Self.claimSQL, [workerId, String(leaseSeconds), includeReprocess ? "true" : "false"]).first
        else { return nil }
        return try ClaimedJob(row: row)
    }

    static let heartbeatSQL = """
        UPDATE transcode_private.room_versions
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

    /// The retry policy, once: `min(max, base·3^(attempt−1))` seconds × U(0.9, 1.1) from now, for
    /// the attempt column `attempt` with the delays in the parameters `base` and `max`.
    static func backoffSQL(attempt: String, base: String, max: String) -> String {
        "now() + least(\(max)::double precision, \(base)::double precision * power(3, \(attempt) - 1))"
            + " * (0.9 + random() * 0.2) * interval '1 second'"
    }

    static let retryLaterSQL = """
        UPDATE transcode_private.room_versions
           SET status = CASE WHEN status = 'transcoding' THEN 'queued'::room_version_status ELSE status END,
               run_after = \(backoffSQL(attempt: "attempt", base: "$6", max: "$5")),
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
        UPDATE transcode_private.room_versions
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
        return FinalizeOutcome(ok: obj.member("ok")?.boolValue ?? false, status: obj.member("status")?.stringValue,
                               outputRevision: obj.member("output_revision")?.intValue,
                               idempotentReplay: obj.member("idempotent_replay")?.boolValue ?? false,
                               error: obj.member("error")?.stringValue)
    }

    // MARK: Rescuer

    static let rescueSQL = """
        WITH stuck AS (
          SELECT id FROM transcode_private.room_versions
           WHERE lease_id IS NOT NULL AND lease_expires_at < now() AND attempt < least(max_attempts, $3::integer)
           FOR UPDATE SKIP LOCKED)
        UPDATE transcode_private.room_versions rv
           SET status = CASE WHEN rv.status = 'transcoding' THEN 'queued'::room_version_status ELSE rv.status END,
               run_after = \(backoffSQL(attempt: "rv.attempt", base: "$1", max: "$2")),
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
          SELECT id FROM transcode_private.room_versions
           WHERE lease_id IS NOT NULL AND lease_expires_at < now() AND attempt >= least(max_attempts, $2::integer)
           FOR UPDATE SKIP LOCKED)
        UPDATE transcode_private.room_versions rv
           SET lease_id = gen_random_uuid(), locked_by = $1, locked_at = now(), heartbeat_at = now(),
               lease_expires_at = now() + interval '2 minutes', updated_at = now()
          FROM dead WHERE rv.id = dead.id
        RETURNING rv.id, rv.room_id, rv.status::text AS status, rv.attempt, rv.max_attempts, rv.lease_id,
                  (SELECT r.visibility::text FROM public.rooms r WHERE r.id = rv.room_id) AS room_visibility,
                  rv.source_usdz_path, rv.source_json_path, rv.source_rooms::text AS source_rooms, rv.source_bucket, rv.output_revision, rv.event_seq,
                  rv.plan_units, rv.plan_locale,
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

    // MARK: Helpers

    /// A canonical textual UUID (so a malformed id is "not found", not a SQL error).
    public static func isUUID(_ s: String) -> Bool {
        UUID(uuidString: s) != nil
    }

    /// A function's JSON result (`.null` when there is none or it is not JSON).
    static func object(_ text: String?) -> ParsedJSON {
        guard let text, let parsed = try? JSONReader.parse(Array(text.utf8), limits: .smallDocument) else { return .null }
        return parsed
    }
}
