/// Statements for running one named version now (`transcode-worker process`), and the timestamp
/// formatting the job runner needs.
extension QueueStore {
    /// What `claimForProcessing` did.
    public enum ProcessClaim: Sendable, Equatable {
        /// Claimed. `previousStatus` is the status before the claim; `tookOverExpiredLease` is
        /// true when a dead worker's expired lease was replaced.
        case claimed(ClaimedJob, previousStatus: String, tookOverExpiredLease: Bool)
        case notFound
        /// A worker holds a live lease on it.
        case leased(worker: String, leaseRemainingSeconds: Double, status: String)
    }

    static let claimOneSQL = """
        WITH target AS (
          SELECT id, status AS previous_status, lease_id AS previous_lease
            FROM transcode_private.room_versions
           WHERE id = $1::uuid AND (lease_id IS NULL OR lease_expires_at < now())
           FOR UPDATE)
        UPDATE transcode_private.room_versions rv
           SET status = CASE WHEN rv.status = 'ready' THEN rv.status ELSE 'transcoding'::room_version_status END,
               attempt = CASE WHEN rv.status = 'failed' OR (rv.status = 'ready' AND rv.reprocess_requested_at IS NULL)
                              THEN 1 ELSE rv.attempt + 1 END,
               priority = CASE WHEN rv.status = 'failed' THEN 10
                               WHEN rv.status = 'ready' AND rv.reprocess_requested_at IS NULL THEN 20
                               ELSE rv.priority END,
               reprocess_requested_at = CASE WHEN rv.status = 'ready' THEN coalesce(rv.reprocess_requested_at, now())
                                             ELSE rv.reprocess_requested_at END,
               enqueued_at = CASE WHEN rv.status IN ('uploading', 'failed') THEN now()
                                  ELSE coalesce(rv.enqueued_at, now()) END,
               last_error_code = CASE WHEN rv.status = 'failed' THEN NULL ELSE rv.last_error_code END,
               last_error = CASE WHEN rv.status = 'failed' THEN NULL ELSE rv.last_error END,
               run_after = now(), lease_id = gen_random_uuid(), locked_by = $2, locked_at = now(), heartbeat_at = now(),
               lease_expires_at = now() + make_interval(secs => $3::double precision),
               transcode_phase = 'parsing', cancel_requested_at = NULL, updated_at = now()
          FROM target WHERE rv.id = target.id
        RETURNING rv.id, rv.room_id, rv.status::text AS status, rv.attempt, rv.max_attempts, rv.lease_id,
                  (SELECT r.visibility::text FROM public.rooms r WHERE r.id = rv.room_id) AS room_visibility,
                  rv.source_usdz_path, rv.source_json_path, rv.source_rooms::text AS source_rooms, rv.source_bucket, rv.output_revision, rv.event_seq,
                  rv.plan_units, rv.plan_locale,
                  (rv.reprocess_requested_at IS NOT NULL) AS is_reprocess,
                  target.previous_status::text AS previous_status,
                  (target.previous_lease IS NOT NULL) AS took_over
        """
    static let leaseHolderSQL = """
        SELECT status::text AS status, locked_by, extract(epoch FROM lease_expires_at - now()) AS remaining
          FROM transcode_private.room_versions WHERE id = $1::uuid
        """

    /// Makes one version runnable and claims it, in one statement, whatever queue it sits in:
    /// `uploading` / `queued` (backoff ignored) as they are; `failed` with a fresh set of attempts
    /// (priority 10, like `retry`); `ready` as a reprocess (it keeps serving its outputs until the
    /// new ones are in; a pending reprocess request is used as is); a version whose worker died
    /// (expired lease) is taken over. A version a live worker holds is left alone (`.leased`).
    ///
    /// - Parameters:
    ///   - workerId: recorded in `locked_by`.
    ///   - leaseSeconds: the lease length; heartbeats extend it.
    public func claimForProcessing(versionId: String, workerId: String, leaseSeconds: Double) throws(DatabaseError) -> ProcessClaim {
        guard Self.isUUID(versionId) else { return .notFound }
        if let row = try connection.query(Self.claimOneSQL, [versionId, workerId, String(leaseSeconds)]).first {
            return .claimed(try ClaimedJob(row: row), previousStatus: row["previous_status"] ?? "",
                            tookOverExpiredLease: row.bool("took_over") ?? false)
        }
        guard let row = try connection.query(Self.leaseHolderSQL, [versionId]).first else { return .notFound }
        return .leased(worker: row["locked_by"] ?? "unknown", leaseRemainingSeconds: row.double("remaining") ?? 0,
                       status: row["status"] ?? "unknown")
    }

    static let utcTimestampSQL = """
        SELECT to_char($1::timestamptz AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at
        """

    /// A timestamp as the server printed it (`2026-11-29 17:15:08.579+01`) in RFC 3339 UTC with
    /// milliseconds (`2026-11-29T16:15:08.579Z`).
    public func utcTimestamp(_ text: String) throws(DatabaseError) -> String {
        try connection.query(Self.utcTimestampSQL, [text]).first?["at"] ?? text
    }
}
