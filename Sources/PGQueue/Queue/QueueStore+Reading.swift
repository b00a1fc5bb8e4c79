import Foundation
import JSONCore

/// Reading a version's row and redactions, and submitting a version (the `submit` command).
extension QueueStore {
    // MARK: Reading

    static let showSQL = """
        SELECT id, room_id, status::text AS status, source_bucket, source_usdz_path, source_json_path, output_bucket,
               glb_path, manifest_path, thumbnail_path, thumbnail_paths::text AS thumbnail_paths, attempt, max_attempts, priority,
               run_after, enqueued_at, lease_id, locked_by, locked_at, lease_expires_at, heartbeat_at,
               transcode_phase, cancel_requested_at, reprocess_requested_at, last_error_code, last_error,
               errors::text AS errors, output_revision, manifest_schema_version, transcoded_at, created_at, updated_at
          FROM transcode_private.room_versions WHERE id = $1::uuid
        """

    /// The whole row of one version (text values; `errors` and `thumbnail_paths` as JSON text).
    public func show(versionId: String) throws(DatabaseError) -> PGRow? {
        guard Self.isUUID(versionId) else { return nil }
        return try connection.query(Self.showSQL, [versionId]).first
    }

    static let redactionsSQL = """
        SELECT id::text AS id, coalesce(texture_ref, texture_path) AS texture, redacted_path, kind,
               region::text AS region, region_origin FROM redactions
         WHERE room_version_id = $1::uuid AND coalesce(texture_ref, texture_path) IS NOT NULL
         ORDER BY 2, id
        """

    /// The redaction rows of a version, ordered by texture, then id: the path inside the package
    /// (`texture_ref`, else `texture_path`), the storage key of the app's blurred replacement (nil
    /// for a row that only marks an area), the kind, the area and its origin (migration 18).
    public func redactions(versionId: String) throws(DatabaseError) -> [RedactionRow] {
        try connection.query(Self.redactionsSQL, [versionId]).compactMap { row in
            guard let id = row["id"], let t = row["texture"] else { return nil }
            return RedactionRow(id: id, texturePath: t, storageKey: row["redacted_path"], kind: row["kind"],
                                regionJSON: row["region"], origin: row["region_origin"] ?? "bottom_left")
        }
    }

    static let countsSQL = "SELECT status::text AS status, count(*) AS n FROM transcode_private.room_versions GROUP BY status ORDER BY status"
    static let queueSQL = """
        SELECT count(*) FILTER (WHERE lease_id IS NULL AND (status = 'queued' OR reprocess_requested_at IS NOT NULL)) AS waiting,
               count(*) FILTER (WHERE lease_id IS NULL AND reprocess_requested_at IS NOT NULL) AS reprocess_waiting,
               count(*) FILTER (WHERE lease_id IS NOT NULL) AS in_flight,
               count(*) FILTER (WHERE lease_id IS NOT NULL AND lease_expires_at < now()) AS expired_leases,
               extract(epoch FROM now() - min(coalesce(enqueued_at, run_after))
                       FILTER (WHERE lease_id IS NULL AND status = 'queued')) AS oldest_queued_seconds
          FROM transcode_private.room_versions
        """
    static let leasesSQL = """
        SELECT id, room_id, locked_by, attempt, transcode_phase, locked_at,
               extract(epoch FROM lease_expires_at - now()) AS lease_remaining_seconds
          FROM transcode_private.room_versions WHERE lease_id IS NOT NULL ORDER BY locked_at LIMIT 100
        """
    static let failuresSQL = """
        SELECT coalesce(last_error_code, 'UNKNOWN') AS reason, count(*) AS n, max(updated_at) AS last_at
          FROM transcode_private.room_versions
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
        var status = QueueStatus(counts: counts, waiting: q?.int("waiting") ?? 0, reprocessWaiting: q?.int("reprocess_waiting") ?? 0,
                                 inFlight: q?.int("in_flight") ?? 0, expiredLeases: q?.int("expired_leases") ?? 0,
                                 oldestQueuedSeconds: q?.double("oldest_queued_seconds"), leases: leases,
                                 recentFailures: failures, failureWindowHours: failureWindowHours)
        status.demand = try demand()
        return status
    }

    static let idleSQL = """
        SELECT NOT EXISTS (
          SELECT 1 FROM transcode_private.room_versions
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
        INSERT INTO transcode_private.room_versions (id, room_id, status, source_usdz_path, source_json_path, max_attempts)
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
}

extension QueueStore {
    static let redactionAppliedSQL = """
        UPDATE redactions SET applied_methods = $3::text[], crop_path = $4, crop_bucket = $5, applied_at = now()
         WHERE id = $2::uuid AND room_version_id = $1::uuid
        """

    /// Records what was done with one `redactions` row of the version (`methods`: `app_replacement`,
    /// `server_blur`) and where its privacy crop is stored (nil: none). Throws `DatabaseError`.
    public func recordRedactionApplied(versionId: String, redactionId: String, methods: [String],
                                       cropPath: String?, cropBucket: String?) throws(DatabaseError) {
        let array = "{" + methods.map { "\"\($0)\"" }.joined(separator: ",") + "}"
        try connection.query(Self.redactionAppliedSQL, [versionId, redactionId, array, cropPath, cropBucket])
    }
}
