import Foundation
import JSONCore

/// The operator actions: retry, reprocess and cancel, one version or many.
extension QueueStore {
    // MARK: Operator actions

    static let retryOneSQL = """
        UPDATE transcode_private.room_versions
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
        UPDATE transcode_private.room_versions
           SET status = 'queued', attempt = 0, run_after = now(), priority = 10, enqueued_at = now(),
               last_error_code = NULL, last_error = NULL, cancel_requested_at = NULL, updated_at = now()
         WHERE status = 'failed' AND lease_id IS NULL
           AND ($1::timestamptz IS NULL OR updated_at >= $1::timestamptz)
           AND ($2::uuid IS NULL OR room_id = $2::uuid)
        RETURNING id
        """
    static let retryManyDrySQL = """
        SELECT id FROM transcode_private.room_versions
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
        return CancelOutcome(ok: obj.member("ok")?.boolValue ?? false, running: obj.member("running")?.boolValue ?? false,
                             status: obj.member("status")?.stringValue, error: obj.member("error")?.stringValue)
    }

    static let reprocessSQL = """
        WITH pick AS (
          SELECT id FROM transcode_private.room_versions
           WHERE status = 'ready' AND coalesce(manifest_schema_version, 0) < $1::integer
             AND reprocess_requested_at IS NULL AND lease_id IS NULL
           ORDER BY id LIMIT $2::integer FOR UPDATE SKIP LOCKED)
        UPDATE transcode_private.room_versions rv
           SET reprocess_requested_at = now(), priority = 20, attempt = 0, run_after = now(), updated_at = now(),
               reprocess_full = $3::boolean
          FROM pick WHERE rv.id = pick.id
        RETURNING rv.id
        """
    static let reprocessDrySQL = """
        SELECT id FROM transcode_private.room_versions
         WHERE status = 'ready' AND coalesce(manifest_schema_version, 0) < $1::integer
           AND reprocess_requested_at IS NULL AND lease_id IS NULL
         ORDER BY id LIMIT $2::integer
        """

    /// Marks up to `limit` ready versions whose outputs are older than manifest schema
    /// `belowSchema` for re-transcoding at batch priority (20, after fresh uploads). They stay
    /// `ready` on their old outputs until the new ones are in. Returns the ids marked (or, with
    /// `dryRun`, that would be). With `force`, their re-transcodes redo every output instead of
    /// reusing the unchanged ones.
    public func markReprocess(belowSchema: Int, limit: Int, dryRun: Bool = false, force: Bool = false) throws(DatabaseError) -> [String] {
        if dryRun { return try connection.query(Self.reprocessDrySQL, [String(belowSchema), String(limit)]).compactMap { $0["id"] }.sorted() }
        return try connection.query(Self.reprocessSQL, [String(belowSchema), String(limit), force ? "true" : "false"])
            .compactMap { $0["id"] }.sorted()
    }

    static let reprocessOneSQL = """
        UPDATE transcode_private.room_versions
           SET reprocess_requested_at = now(), priority = 20, attempt = 0, run_after = now(), updated_at = now(),
               reprocess_full = $2::boolean
         WHERE id = $1::uuid AND status = 'ready' AND lease_id IS NULL AND reprocess_requested_at IS NULL
        RETURNING id
        """

    /// Marks one ready version for re-transcoding (with `force`, redoing every output). False
    /// when it is not `ready` and idle.
    public func markReprocess(versionId: String, force: Bool = false) throws(DatabaseError) -> Bool {
        guard Self.isUUID(versionId) else { return false }
        return !(try connection.query(Self.reprocessOneSQL, [versionId, force ? "true" : "false"])).isEmpty
    }
}
