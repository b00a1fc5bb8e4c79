/// The retention sweeps' statements (migration 21). Each runs in the caller's transaction.
extension QueueStore {
    static let eraseRedactionsSQL = """
        WITH due AS (
          SELECT v.id FROM transcode_private.room_versions v
           WHERE v.status = 'ready' AND v.lease_id IS NULL AND v.redactions_erased_at IS NULL
             AND v.transcoded_at < now() - make_interval(secs => $1::double precision)
             AND EXISTS (SELECT 1 FROM redactions r WHERE r.room_version_id = v.id)
           ORDER BY v.transcoded_at LIMIT $2::integer FOR UPDATE SKIP LOCKED),
        gone AS (DELETE FROM redactions r USING due WHERE r.room_version_id = due.id
                 RETURNING r.room_version_id, r.crop_path),
        marked AS (UPDATE transcode_private.room_versions v SET redactions_erased_at = now()
                     FROM due WHERE v.id = due.id RETURNING v.id, v.room_id)
        SELECT m.id::text AS version_id, m.room_id::text AS room_id, g.crop_path
          FROM marked m LEFT JOIN gone g ON g.room_version_id = m.id
        """

    /// Deletes the redaction rows of at most `limit` versions ready for longer than `olderThanSeconds`
    /// and marks the versions; returns each version with the crop keys to delete from storage.
    public func eraseRedactions(olderThanSeconds: Double, limit: Int) throws(DatabaseError)
        -> [(versionId: String, roomId: String, crops: [String])] {
        var out: [String: (roomId: String, crops: [String])] = [:]
        for row in try connection.query(Self.eraseRedactionsSQL, [String(olderThanSeconds), String(max(1, limit))]) {
            guard let v = row["version_id"], let room = row["room_id"] else { continue }
            var entry = out[v] ?? (room, [])
            if let crop = row["crop_path"] { entry.crops.append(crop) }
            out[v] = entry
        }
        return out.keys.sorted().map { ($0, out[$0]!.roomId, out[$0]!.crops) }
    }

    static let nextSourcesToEraseSQL = """
        SELECT v.id::text AS version_id, v.room_id::text AS room_id, v.source_usdz_path, v.source_json_path,
               \(roomKeysSQL("v.source_rooms")) AS room_keys,
               coalesce((SELECT array_to_string(array_agg(r.redacted_path), chr(10)) FROM redactions r
                          WHERE r.room_version_id = v.id AND r.redacted_path IS NOT NULL), '') AS replacements
          FROM transcode_private.room_versions v
         WHERE v.status = 'ready' AND v.lease_id IS NULL AND v.sources_erased_at IS NULL
           AND v.transcoded_at < now() - make_interval(secs => $1::double precision)
         ORDER BY v.transcoded_at LIMIT 1 FOR UPDATE OF v SKIP LOCKED
        """

    /// The next version whose sources are due for deletion, its row held until the caller's
    /// transaction ends; nil when none is due.
    public func nextSourcesToErase(olderThanSeconds: Double) throws(DatabaseError)
        -> (versionId: String, roomId: String, keys: [String])? {
        guard let row = try connection.query(Self.nextSourcesToEraseSQL, [String(olderThanSeconds)]).first,
              let v = row["version_id"], let room = row["room_id"] else { return nil }
        let keys = [row["source_usdz_path"], row["source_json_path"]].compactMap { $0 }
            + (row["room_keys"] ?? "").split(separator: "\n").map(String.init)
            + (row["replacements"] ?? "").split(separator: "\n").map(String.init)
        return (v, room, keys)
    }

    static let markSourcesErasedSQL = "UPDATE transcode_private.room_versions SET sources_erased_at = now() WHERE id = $1::uuid"

    /// Records that the version's sources were deleted.
    public func markSourcesErased(versionId: String) throws(DatabaseError) {
        try connection.query(Self.markSourcesErasedSQL, [versionId])
    }

    static let erasureSQL = """
        SELECT sources_erased_at IS NOT NULL AS sources, redactions_erased_at IS NOT NULL AS redactions
          FROM transcode_private.room_versions WHERE id = $1::uuid
        """

    /// Whether retention deleted the version's sources or its redactions (false, false when neither
    /// or the version is gone).
    public func erasure(versionId: String) throws(DatabaseError) -> (sources: Bool, redactions: Bool) {
        let row = try connection.query(Self.erasureSQL, [versionId]).first
        return (row?.bool("sources") ?? false, row?.bool("redactions") ?? false)
    }
}
