/// Migration 10: every stored path comes with its bucket, so that the backend can serve it
/// (`storage.from(bucket)`), and outputs can live in a bucket of their own (for example a public,
/// CDN-served one) apart from the private uploads.
///
/// - `room_versions.output_bucket text`: the bucket of `glb_path`, `manifest_path`,
///   `thumbnail_path` and every `thumbnail_paths[].path`, set by `transcode_finalize` on `ready`
///   from `p_outputs->>'bucket'` (the worker's output store, `ObjectStore.bucket`). NULL for a
///   version made before this migration. Readable by signed-in clients, like the paths.
/// - `room_versions.source_bucket text`: the bucket the app uploaded `source_usdz_path`,
///   `source_json_path` and the redacted textures to, written by the backend (NULL: not
///   recorded). When set, it must be the bucket the worker reads sources from, else the version
///   fails with `SOURCE_KEY_REFUSED`. Not readable by clients.
/// - `rooms.thumbnail_bucket text`, added when absent: the bucket of `rooms.thumbnail_path`, set
///   with it when the room moves to a new current version.
///
/// Paths stay relative to the bucket (with an `s3://bucket/prefix` store, the object's key in the
/// bucket is the prefix followed by the path).
extension SchemaCatalog {
    /// The `room_versions` columns migration 10 lets signed-in clients read (the worker's grade,
    /// added by migration 8, is granted here too).
    static let clientReadableColumnsOfBuckets = ["output_bucket", "quality_grade"]

    static let storageBuckets: String = {
        let columns = """
            ALTER TABLE room_versions
              ADD COLUMN IF NOT EXISTS output_bucket text,
              ADD COLUMN IF NOT EXISTS source_bucket text;
            ALTER TABLE rooms
              ADD COLUMN IF NOT EXISTS thumbnail_bucket text;
            DO $$ BEGIN
              IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'authenticated') THEN
                GRANT SELECT (\(clientReadableColumnsOfBuckets.joined(separator: ", "))) ON room_versions TO authenticated;
              END IF;
            END $$;

            """
        let replacements: [(String, String)] = [
            ("      quality_grade = nullif(p_outputs->>'quality_grade', ''),\n",
             "      quality_grade = nullif(p_outputs->>'quality_grade', ''),\n"
                + "      output_bucket = nullif(p_outputs->>'bucket', ''),\n"),
            ("      quality_grade = greatest(r.quality_grade, r.app_quality_grade)\n",
             "      thumbnail_bucket = r.output_bucket,\n"
                + "      quality_grade = greatest(r.quality_grade, r.app_quality_grade)\n"),
        ]
        var body = roomsShape
        body = String(body[body.range(of: "CREATE OR REPLACE FUNCTION transcode_finalize(")!.lowerBound...])
        for (old, new) in replacements {
            precondition(body.contains(old), "migration 8 text changed: \(old)")
            body = body.replacingOccurrences(of: old, with: new)
        }
        return columns + body
    }()
}
