/// Migration 21: retention of what was uploaded and what was marked.
///
/// With `TRANSCODE_SOURCE_RETENTION_DAYS` or `TRANSCODE_REDACTION_RETENTION_DAYS` set, the worker
/// deletes a ready version's uploaded sources (the unblurred scan, its JSON, the app's replacement
/// textures) or its redaction rows and their crops that many days after it became ready, and
/// records it here, so a later re-transcode fails at once instead of publishing from nothing or
/// without its blur: `sources_erased_at`, `redactions_erased_at` on the worker's table.
extension SchemaCatalog {
    static let retention = """
        ALTER TABLE transcode_private.room_versions
          ADD COLUMN IF NOT EXISTS sources_erased_at    timestamptz,
          ADD COLUMN IF NOT EXISTS redactions_erased_at timestamptz;
        CREATE INDEX IF NOT EXISTS room_versions_ready_at_idx ON transcode_private.room_versions (transcoded_at)
          WHERE status = 'ready';
        """
}
