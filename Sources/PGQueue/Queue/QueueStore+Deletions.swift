import JSONCore

/// One row of `transcode_private.deletions` (migration 19): the stored objects of a deleted room
/// (`versionId` nil) or version still to delete.
public struct DeletionTarget: Sendable, Equatable {
    public var id: Int64
    /// `room_deleted` or `version_deleted`.
    public var reason: String
    public var roomId: String
    public var versionId: String?
    /// The buckets the deleted row recorded (`source_bucket`, `output_bucket`,
    /// `rooms.thumbnail_bucket`).
    public var buckets: [String]
    /// The keys the deleted rows named (sources, outputs, thumbnails, redacted textures).
    public var keys: [String]
    /// Failed passes so far.
    public var attempts: Int
    /// Seconds since the row was deleted.
    public var ageSeconds: Double
    /// True when a row with the same id exists again (the delete was undone by a restore, or the
    /// row never went): nothing may be deleted.
    public var rowExists: Bool

    public init(id: Int64, reason: String, roomId: String, versionId: String?, buckets: [String] = [], keys: [String] = [],
                attempts: Int = 0, ageSeconds: Double = 0, rowExists: Bool = false) {
        self.id = id
        self.reason = reason
        self.roomId = roomId
        self.versionId = versionId
        self.buckets = buckets
        self.keys = keys
        self.attempts = attempts
        self.ageSeconds = ageSeconds
        self.rowExists = rowExists
    }
}

/// The deletion queue and the rows the orphan sweep checks.
extension QueueStore {
    static let nextDeletionSQL = """
        SELECT d.id, d.reason, d.room_id, d.version_id, d.buckets::text AS buckets, d.keys::text AS keys, d.attempts,
               extract(epoch FROM (now() - d.enqueued_at)) AS age_seconds,
               CASE WHEN d.version_id IS NOT NULL
                    THEN EXISTS (SELECT 1 FROM transcode_private.room_versions v WHERE v.id = d.version_id)
                    ELSE EXISTS (SELECT 1 FROM public.rooms r WHERE r.id = d.room_id) END AS row_exists
          FROM transcode_private.deletions d
         WHERE d.next_at <= now()
         ORDER BY d.next_at, d.id
         LIMIT 1
         FOR UPDATE OF d SKIP LOCKED
        """

    /// The most overdue deletion no other connection holds, locked until the caller's transaction
    /// ends; nil when none is due. Call inside a transaction. Throws `DatabaseError`.
    public func nextDeletion() throws(DatabaseError) -> DeletionTarget? {
        guard let row = try connection.query(Self.nextDeletionSQL).first else { return nil }
        func strings(_ name: String) -> [String] {
            guard case .array(let items) = Self.object(row[name]) else { return [] }
            return items.compactMap { if case .string(let s) = $0 { return s } else { return nil } }
        }
        return DeletionTarget(id: Int64(try row.required("id")) ?? 0, reason: try row.required("reason"),
                              roomId: try row.required("room_id"), versionId: row["version_id"],
                              buckets: strings("buckets"), keys: strings("keys"), attempts: row.int("attempts") ?? 0,
                              ageSeconds: row.double("age_seconds") ?? 0, rowExists: row.bool("row_exists") == true)
    }

    static let finishDeletionSQL = "DELETE FROM transcode_private.deletions WHERE id = $1::bigint"

    /// Removes a deletion once storage holds nothing of it. Throws `DatabaseError`.
    public func finishDeletion(id: Int64) throws(DatabaseError) {
        try connection.query(Self.finishDeletionSQL, [String(id)])
    }

    static let postponeDeletionSQL = """
        UPDATE transcode_private.deletions
           SET attempts = attempts + 1, next_at = now() + make_interval(secs => $2::double precision), last_error = left($3, 1000)
         WHERE id = $1::bigint
        """

    /// Records a failed pass: `attempts + 1`, `last_error`, due again in `retryInSeconds`.
    /// Throws `DatabaseError`.
    public func postponeDeletion(id: Int64, retryInSeconds: Double, error: String) throws(DatabaseError) {
        try connection.query(Self.postponeDeletionSQL, [String(id), String(retryInSeconds), error])
    }

    static let pendingDeletionsSQL = """
        SELECT count(*) AS n, coalesce(extract(epoch FROM (now() - min(enqueued_at))), 0) AS oldest
          FROM transcode_private.deletions
        """

    /// How many deletions wait and the age of the oldest in seconds (0 when none). Throws
    /// `DatabaseError`.
    public func pendingDeletions() throws(DatabaseError) -> (count: Int, oldestSeconds: Double) {
        let row = try connection.query(Self.pendingDeletionsSQL).first
        return (row?.int("n") ?? 0, row?.double("oldest") ?? 0)
    }

    static let existingRoomsSQL = "SELECT id::text AS id FROM public.rooms WHERE id = ANY($1::uuid[])"
    static let existingVersionsSQL = "SELECT id::text AS id FROM transcode_private.room_versions WHERE id = ANY($1::uuid[])"
    static let queuedDeletionsSQL = """
        SELECT DISTINCT coalesce(version_id, room_id)::text AS id FROM transcode_private.deletions
         WHERE room_id = ANY($1::uuid[]) OR version_id = ANY($1::uuid[])
        """

    /// Which of `ids` (lowercase uuids) are rooms (`versions` false) or versions (true) that
    /// exist; ids that are not uuids are never returned. Throws `DatabaseError`.
    public func existing(_ ids: [String], versions: Bool) throws(DatabaseError) -> Set<String> {
        let valid = ids.filter(Self.isUUID)
        guard !valid.isEmpty else { return [] }
        let rows = try connection.query(versions ? Self.existingVersionsSQL : Self.existingRoomsSQL, ["{" + valid.joined(separator: ",") + "}"])
        return Set(rows.compactMap { $0["id"] })
    }

    /// Which of `ids` (room or version uuids) the deletion queue still holds. Throws `DatabaseError`.
    public func queuedForDeletion(_ ids: [String]) throws(DatabaseError) -> Set<String> {
        let valid = ids.filter(Self.isUUID)
        guard !valid.isEmpty else { return [] }
        let rows = try connection.query(Self.queuedDeletionsSQL, ["{" + valid.joined(separator: ",") + "}"])
        return Set(rows.compactMap { $0["id"] })
    }

    /// One orphan sweep at a time across replicas: a session advisory lock ("orphans").
    static let orphanLockKey = "7310582754083516775"

    /// Takes the orphan sweep's advisory lock on this session; false when another session holds it.
    public func tryLockOrphanSweep() throws(DatabaseError) -> Bool {
        try connection.query(Self.collectorTryLockSQL, [Self.orphanLockKey]).first?.bool("locked") == true
    }

    /// Gives the orphan sweep's advisory lock back.
    public func unlockOrphanSweep() throws(DatabaseError) {
        try connection.query(Self.collectorUnlockSQL, [Self.orphanLockKey])
    }
}
