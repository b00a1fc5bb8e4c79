/// The versions whose storage the output collector looks at.
extension QueueStore {
    /// Versions changed within `$1` seconds (NULL: any), after id `$2`, in id order, `$3` at most.
    static let collectorTargetsSQL = """
        SELECT id, room_id, glb_path, lease_id FROM transcode_private.room_versions
         WHERE ($1::double precision IS NULL OR updated_at >= now() - $1::double precision * interval '1 second')
           AND id > $2::uuid
         ORDER BY id LIMIT $3::integer
        """
    static let collectorTargetSQL = "SELECT id, room_id, glb_path, lease_id FROM transcode_private.room_versions WHERE id = $1::uuid"
    /// One sweeper at a time across replicas: a session advisory lock ("gc" + "transcode").
    static let collectorLockKey = "7310582754083516774"
    static let collectorTryLockSQL = "SELECT pg_try_advisory_lock($1::bigint) AS locked"
    static let collectorUnlockSQL = "SELECT pg_advisory_unlock($1::bigint)"

    /// One page of sweep targets: versions changed within `lookbackSeconds` (nil: every version)
    /// with an id after `after` (nil: from the start). Throws `DatabaseError`.
    public func collectorTargets(lookbackSeconds: Double?, after: String?, limit: Int) throws(DatabaseError) -> [CollectorTarget] {
        try connection.query(Self.collectorTargetsSQL, [lookbackSeconds.map { String($0) }, after ?? "00000000-0000-0000-0000-000000000000",
                                                       String(limit)]).compactMap(Self.target)
    }

    /// The sweep target of one version, nil when there is no such version. Throws `DatabaseError`.
    public func collectorTarget(versionId: String) throws(DatabaseError) -> CollectorTarget? {
        guard Self.isUUID(versionId) else { return nil }
        return try connection.query(Self.collectorTargetSQL, [versionId]).first.flatMap(Self.target)
    }

    /// Takes the sweeper's advisory lock on this session; false when another session holds it.
    public func tryLockCollector() throws(DatabaseError) -> Bool {
        try connection.query(Self.collectorTryLockSQL, [Self.collectorLockKey]).first?.bool("locked") == true
    }

    /// Gives the sweeper's advisory lock back.
    public func unlockCollector() throws(DatabaseError) {
        try connection.query(Self.collectorUnlockSQL, [Self.collectorLockKey])
    }

    private static func target(_ row: PGRow) -> CollectorTarget? {
        guard let id = row["id"], let room = row["room_id"] else { return nil }
        return CollectorTarget(versionId: id, roomId: room, glbPath: row["glb_path"], leaseId: row["lease_id"])
    }
}

/// Event delivery settings kept in the database.
extension QueueStore {
    static let realtimePrivateSQL = "SELECT transcode_realtime_private() AS private"

    /// Whether Realtime events go to private channels (`transcode.realtime_private`, migration 6;
    /// false by default). Throws `DatabaseError`.
    public func realtimePrivate() throws(DatabaseError) -> Bool {
        try connection.query(Self.realtimePrivateSQL).first?.bool("private") ?? false
    }
}
