import JSONCore

/// The statements of the upload sweep (`UploadSweeper`): versions still `uploading` long after
/// they were last changed.
extension QueueStore {
    /// A version the upload sweep looks at, locked by the caller's open transaction.
    public struct StaleUpload: Sendable, Equatable {
        public var versionId: String
        public var roomId: String
        public var sourceUSDZPath: String?
        public var sourceJSONPath: String?
        /// Every key of `source_rooms` (migration 22), JSON and USDZ of each room in order.
        public var roomKeys: [String] = []
        /// `source_bucket`: the bucket the sources were uploaded to, when the row says.
        public var sourceBucket: String?
        /// Seconds since the row's `updated_at` (its last change), by the database clock.
        public var quietSeconds: Double
        /// `updated_at` as the database prints it (the keyset of the next lookup).
        public var updatedAt: String
    }

    /// The oldest unleased `uploading` version unchanged for at least `$1` seconds whose
    /// `(updated_at, id)` comes after `($2, $3)`, locked; rows another session holds are skipped.
    /// Every key of a `source_rooms` value (`column`), one per line (`''` for none).
    static func roomKeysSQL(_ column: String) -> String {
        """
        coalesce((SELECT array_to_string(array_agg(k), chr(10))
                    FROM jsonb_array_elements(coalesce(\(column), '[]'::jsonb)) e,
                         LATERAL unnest(ARRAY[e ->> 'json_path', e ->> 'usdz_path']) k
                   WHERE k IS NOT NULL), '')
        """
    }

    static let nextStaleUploadSQL = """
        SELECT id, room_id, source_usdz_path, source_json_path, source_bucket, updated_at::text AS updated_at_text,
               \(roomKeysSQL("source_rooms")) AS room_keys,
               extract(epoch FROM (now() - updated_at)) AS quiet_seconds
          FROM transcode_private.room_versions
         WHERE status = 'uploading' AND lease_id IS NULL
           AND updated_at <= now() - $1::double precision * interval '1 second'
           AND (updated_at, id) > ($2::timestamptz, $3::uuid)
         ORDER BY updated_at, id
         LIMIT 1
         FOR UPDATE SKIP LOCKED
        """

    /// Inside an open transaction: the next stale upload after `after` (nil: from the oldest),
    /// locked until the transaction ends, or nil. Throws `DatabaseError`.
    ///
    /// - Parameter quietSeconds: how long the row must have been unchanged, seconds.
    public func nextStaleUpload(quietSeconds: Double, after: (updatedAt: String, versionId: String)?) throws(DatabaseError) -> StaleUpload? {
        let params = [String(quietSeconds), after?.updatedAt ?? "-infinity", after?.versionId ?? "00000000-0000-0000-0000-000000000000"]
        guard let row = try connection.query(Self.nextStaleUploadSQL, params).first,
              let id = row["id"], let room = row["room_id"], let at = row["updated_at_text"] else { return nil }
        return StaleUpload(versionId: id, roomId: room, sourceUSDZPath: row["source_usdz_path"], sourceJSONPath: row["source_json_path"],
                           roomKeys: (row["room_keys"] ?? "").split(separator: "\n").map(String.init),
                           sourceBucket: row["source_bucket"], quietSeconds: row["quiet_seconds"].flatMap(Double.init) ?? 0, updatedAt: at)
    }

    /// Queues an `uploading` version whose sources are in storage: the statement of `enqueue`,
    /// fenced on `status = 'uploading'` and no lease, so a concurrent enqueue changes nothing
    /// twice. The wake-up trigger announces it on commit. True when this call queued it.
    /// Throws `DatabaseError`.
    public func requeueUpload(versionId: String) throws(DatabaseError) -> Bool {
        try !connection.query(Self.enqueueSQL, [versionId]).isEmpty
    }

    static let expireUploadSQL = "SELECT transcode_expire_upload($1::uuid)::text AS result"

    /// Fails an `uploading` version with reason `UPLOAD_EXPIRED` and sends its `failed` event
    /// (`transcode_expire_upload`, migration 7). True when this call failed it; false when it
    /// was gone or no longer `uploading`. Throws `DatabaseError`.
    public func expireUpload(versionId: String) throws(DatabaseError) -> Bool {
        let result = Self.object(try connection.query(Self.expireUploadSQL, [versionId]).first?["result"])
        return result.member("ok")?.boolValue == true
    }
}
