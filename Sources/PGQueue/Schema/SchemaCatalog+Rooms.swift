/// Migration 8: rooms as the CrowdRoom apps read them.
///
/// - `rooms` gains, where absent, the columns the apps read: `title`, `visibility` (text, default
///   `private`, no check constraint: the backend's values decide), `owner_id`,
///   `current_version_id` (a `room_versions` id, cleared when that version is deleted),
///   `thumbnail_path` and `quality_grade`. On a backend whose `rooms` already has them, these
///   statements change nothing; the worker never drops, renames or retypes a backend column.
/// - `room_versions` gains `quality_grade` (the worker's grade, `A` best, from the manifest's
///   `quality.grade`; NULL when the input was not graded) and `app_quality_grade` (the app's own
///   grade of the capture, filled at upload; NULL when it gave none).
/// - `transcode_finalize`, on `ready`, in the same transaction: stores the grade given in
///   `p_outputs->>'quality_grade'` on the version, and moves the room forward only: the room's
///   `current_version_id` becomes this version when the room has none, or its current version
///   was created no later than this one (a reprocess of an older version never takes the room
///   back). Only then are `rooms.thumbnail_path` (the path of the `card` thumbnail, 512×384, from
///   `p_outputs->'thumbnails'`; NULL when there is none) and `rooms.quality_grade` (the worse of
///   the version's two grades; letters compare in order, so `C` is worse than `A`) set.
/// - The `ready` event carries `quality_grade` (the worker's grade, or null).
///
/// `transcode-worker migrate` then checks that the `rooms` columns the finalize writes exist with
/// types it can write (`Migrator.roomColumnProblems`).
extension SchemaCatalog {
    static let roomsShape: String = {
        let columns = """
            ALTER TABLE rooms
              ADD COLUMN IF NOT EXISTS title              text,
              ADD COLUMN IF NOT EXISTS visibility         text NOT NULL DEFAULT 'private',
              ADD COLUMN IF NOT EXISTS owner_id           uuid,
              ADD COLUMN IF NOT EXISTS current_version_id uuid REFERENCES room_versions(id) ON DELETE SET NULL,
              ADD COLUMN IF NOT EXISTS thumbnail_path     text,
              ADD COLUMN IF NOT EXISTS quality_grade      text;
            ALTER TABLE room_versions
              ADD COLUMN IF NOT EXISTS quality_grade     text,
              ADD COLUMN IF NOT EXISTS app_quality_grade text;

            """
        let replacements: [(String, String)] = [
            // The worker's grade on the version.
            ("      manifest_schema_version = (p_outputs->>'manifest_schema_version')::integer,\n",
             "      manifest_schema_version = (p_outputs->>'manifest_schema_version')::integer,\n"
                + "      quality_grade = nullif(p_outputs->>'quality_grade', ''),\n"),
            // The room moves forward only; its card thumbnail and grade follow its current version.
            ("""
                WHERE id = p_version_id RETURNING * INTO r;
                ev := jsonb_build_object('topic', 'room:' || r.room_id, 'event', 'ready',
            """, """
                WHERE id = p_version_id RETURNING * INTO r;
                UPDATE rooms SET current_version_id = r.id,
                  thumbnail_path = (SELECT t->>'path' FROM jsonb_array_elements(r.thumbnail_paths) t
                                     WHERE t->>'kind' = 'card' LIMIT 1),
                  quality_grade = greatest(r.quality_grade, r.app_quality_grade)
                 WHERE rooms.id = r.room_id
                   AND (rooms.current_version_id IS NULL OR rooms.current_version_id = r.id
                        OR NOT EXISTS (SELECT 1 FROM room_versions c
                                        WHERE c.id = rooms.current_version_id AND c.created_at > r.created_at));
                ev := jsonb_build_object('topic', 'room:' || r.room_id, 'event', 'ready',
            """),
            // The ready event names the grade.
            ("      'reprocess', was_reprocess, 'seq', r.event_seq,\n",
             "      'reprocess', was_reprocess, 'seq', r.event_seq, 'quality_grade', r.quality_grade,\n"),
        ]
        var body = appEvents
        let start = body.range(of: "CREATE OR REPLACE FUNCTION transcode_finalize(")!.lowerBound
        let end = body.range(of: "CREATE OR REPLACE FUNCTION transcode_cancel(")!.lowerBound
        body = String(body[start..<end])
        for (old, new) in replacements {
            precondition(body.contains(old), "migration 6 text changed: \(old)")
            body = body.replacingOccurrences(of: old, with: new)
        }
        return columns + body
    }()
}
