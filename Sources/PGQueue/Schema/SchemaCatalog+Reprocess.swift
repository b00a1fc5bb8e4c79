/// Migration 13: re-transcodes that redo only what changed.
///
/// - `room_versions.reprocess_full boolean` (default false): set with a reprocess request when
///   the operator asked to redo everything (`reprocess --force`); a plain request clears it. A
///   reprocess claim reads it: when false, the worker hands the previous revision's outputs to the
///   job, which reuses every output group whose key (recorded in the manifest's `artifacts`) is
///   unchanged, and copies those files in storage instead of uploading them again.
extension SchemaCatalog {
    static let reprocessFull = """
        ALTER TABLE room_versions ADD COLUMN IF NOT EXISTS reprocess_full boolean NOT NULL DEFAULT false;
        """
}
