import Foundation
import JSONCore

/// What the operator console reads (migration 12's tables), and the worker's attempt records.
/// Times come back as UTC text, `YYYY-MM-DD HH:MM:SS`.
extension QueueStore {
    /// One filter of the versions list; nil fields do not filter. Times are ISO 8601 text
    /// (checked by the caller); `before` is the keyset cursor `(created_at, id)` of the last row
    /// of the previous page.
    public struct VersionFilter: Sendable, Equatable {
        public var status: String?
        public var roomId: String?
        public var reason: String?
        public var createdFrom: String?
        public var createdUntil: String?
        public var before: (createdAt: String, id: String)?

        public init(status: String? = nil, roomId: String? = nil, reason: String? = nil, createdFrom: String? = nil,
                    createdUntil: String? = nil, before: (createdAt: String, id: String)? = nil) {
            self.status = status
            self.roomId = roomId
            self.reason = reason
            self.createdFrom = createdFrom
            self.createdUntil = createdUntil
            self.before = before
        }

        public static func == (a: VersionFilter, b: VersionFilter) -> Bool {
            a.status == b.status && a.roomId == b.roomId && a.reason == b.reason && a.createdFrom == b.createdFrom
                && a.createdUntil == b.createdUntil && a.before?.createdAt == b.before?.createdAt && a.before?.id == b.before?.id
        }
    }

    static let utc = "'YYYY-MM-DD HH24:MI:SS'"

    static let versionListSQL = """
        SELECT v.id, v.room_id, coalesce(r.title, r.name) AS room_name, v.status::text AS status, v.last_error_code,
               v.attempt, v.manifest_schema_version, v.reprocess_requested_at IS NOT NULL AS reprocess,
               to_char(v.created_at AT TIME ZONE 'UTC', \(utc)) AS created,
               to_char(v.updated_at AT TIME ZONE 'UTC', \(utc)) AS updated,
               to_char(v.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS cursor_at
          FROM transcode_private.room_versions v LEFT JOIN rooms r ON r.id = v.room_id
         WHERE ($1::text IS NULL OR v.status::text = $1)
           AND ($2::uuid IS NULL OR v.room_id = $2::uuid)
           AND ($3::text IS NULL OR v.last_error_code = $3)
           AND ($4::timestamptz IS NULL OR v.created_at >= $4::timestamptz)
           AND ($5::timestamptz IS NULL OR v.created_at < $5::timestamptz)
           AND ($6::timestamptz IS NULL OR (v.created_at, v.id) < ($6::timestamptz, $7::uuid))
         ORDER BY v.created_at DESC, v.id DESC
         LIMIT $8::integer
        """

    /// Up to `limit` versions matching `filter`, newest first (keyset order `(created_at, id)`
    /// descending, answered by `room_versions_created_idx`).
    public func versions(_ filter: VersionFilter, limit: Int) throws(DatabaseError) -> [PGRow] {
        try connection.query(Self.versionListSQL, [
            filter.status, filter.roomId, filter.reason, filter.createdFrom, filter.createdUntil,
            filter.before?.createdAt, filter.before?.id, String(limit),
        ])
    }

    static let consoleVersionSQL = """
        SELECT v.id, v.room_id, coalesce(r.title, r.name) AS room_name, v.status::text AS status, v.attempt, v.max_attempts,
               v.priority, v.locked_by, v.transcode_phase, v.last_error_code, v.last_error, v.errors::text AS errors,
               v.output_bucket, v.glb_path, v.manifest_path, v.thumbnail_paths::text AS thumbnail_paths,
               v.output_revision, v.manifest_schema_version, v.failure_count, v.app_retry_count,
               v.reprocess_requested_at IS NOT NULL AS reprocess, v.cancel_requested_at IS NOT NULL AS cancel_requested,
               v.lease_id IS NOT NULL AS leased,
               to_char(v.locked_at AT TIME ZONE 'UTC', \(utc)) AS locked_at,
               to_char(v.run_after AT TIME ZONE 'UTC', \(utc)) AS run_after,
               to_char(v.created_at AT TIME ZONE 'UTC', \(utc)) AS created,
               to_char(v.updated_at AT TIME ZONE 'UTC', \(utc)) AS updated,
               to_char(v.transcoded_at AT TIME ZONE 'UTC', \(utc)) AS transcoded
          FROM transcode_private.room_versions v LEFT JOIN rooms r ON r.id = v.room_id WHERE v.id = $1::uuid
        """

    /// One version as the console shows it, nil when unknown.
    public func consoleVersion(_ versionId: String) throws(DatabaseError) -> PGRow? {
        guard Self.isUUID(versionId) else { return nil }
        return try connection.query(Self.consoleVersionSQL, [versionId]).first
    }

    static let attemptsSQL = """
        SELECT attempt, worker, reprocess, outcome, reason, timings_ms::text AS timings_ms,
               to_char(started_at AT TIME ZONE 'UTC', \(utc)) AS started,
               round(extract(epoch FROM finished_at - started_at) * 1000) AS duration_ms
          FROM transcode_attempts WHERE version_id = $1::uuid ORDER BY id DESC LIMIT 50
        """

    /// The version's last 50 finished attempts, newest first.
    public func attempts(versionId: String) throws(DatabaseError) -> [PGRow] {
        try connection.query(Self.attemptsSQL, [versionId])
    }

    static let eventLogSQL = """
        SELECT event, payload::text AS payload, to_char(at AT TIME ZONE 'UTC', \(utc)) AS at
          FROM transcode_event_log WHERE version_id = $1::uuid ORDER BY id DESC LIMIT 50
        """

    /// The version's last 50 terminal events, newest first.
    public func events(versionId: String) throws(DatabaseError) -> [PGRow] {
        try connection.query(Self.eventLogSQL, [versionId])
    }

    static let throughputSQL = """
        SELECT count(*) FILTER (WHERE finished_at > now() - interval '1 hour' AND outcome = 'ready') AS ready_hour,
               count(*) FILTER (WHERE finished_at > now() - interval '1 hour' AND outcome = 'failed') AS failed_hour,
               count(*) FILTER (WHERE finished_at > now() - interval '1 hour' AND outcome = 'retried') AS retried_hour,
               count(*) FILTER (WHERE outcome = 'ready') AS ready_day,
               count(*) FILTER (WHERE outcome = 'failed') AS failed_day,
               count(*) FILTER (WHERE outcome = 'retried') AS retried_day
          FROM transcode_attempts WHERE finished_at > now() - interval '1 day'
        """

    /// Attempts that ended ready, failed (finally) and retried over the last hour and day.
    public func throughput() throws(DatabaseError) -> PGRow? {
        try connection.query(Self.throughputSQL).first
    }

    static let batchProgressSQL = """
        SELECT count(*) FILTER (WHERE status = 'ready' AND coalesce(manifest_schema_version, 0) < $1::integer
                                  AND reprocess_requested_at IS NULL) AS below,
               count(*) FILTER (WHERE status = 'ready' AND reprocess_requested_at IS NOT NULL AND lease_id IS NULL) AS waiting,
               count(*) FILTER (WHERE status = 'ready' AND reprocess_requested_at IS NOT NULL AND lease_id IS NOT NULL) AS running,
               count(*) FILTER (WHERE status = 'ready' AND coalesce(manifest_schema_version, 0) >= $1::integer) AS current,
               (SELECT count(*) FROM transcode_attempts WHERE reprocess AND outcome IN ('failed', 'retried')
                   AND finished_at > now() - interval '1 day') AS failed_day
          FROM transcode_private.room_versions
        """

    /// A batch re-transcode's progress towards manifest schema `schema`: ready versions still
    /// below it and not marked, marked and waiting, running, already at or above it, and
    /// re-transcode attempts that failed over the last day.
    public func batchProgress(schema: Int) throws(DatabaseError) -> PGRow? {
        try connection.query(Self.batchProgressSQL, [String(schema)]).first
    }

    static let recordAttemptSQL = """
        INSERT INTO transcode_attempts (version_id, attempt, lease_id, worker, reprocess, started_at, outcome, reason, timings_ms)
        VALUES ($1::uuid, $2::integer, $3::uuid, $4, $5::boolean, now() - make_interval(secs => $6::double precision / 1000),
                $7, $8, $9::jsonb)
        """

    /// Records one finished attempt of `job` by `worker` (see migration 12): its outcome (`ready`,
    /// `retried`, `failed`, `released`, `lease_lost`), reason code, and milliseconds per phase,
    /// `total` included (the start is now minus `total`).
    public func recordAttempt(_ job: ClaimedJob, worker: String, outcome: String, reason: String?,
                              timingsMs: [String: Double]) throws(DatabaseError) {
        let timings = JSONValue.object(timingsMs.mapValues { .int(Int64($0.rounded())) }).serialized()
        try connection.query(Self.recordAttemptSQL, [
            job.versionId, String(job.attempt), job.leaseId, worker, job.isReprocess ? "true" : "false",
            String(timingsMs["total"] ?? 0), outcome, reason, timings,
        ])
    }
}
