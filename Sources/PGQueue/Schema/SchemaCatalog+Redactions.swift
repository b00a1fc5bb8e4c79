extension SchemaCatalog {
    /// Migration 9: `redactions` rows as the apps write them, `{texture_ref, kind, region, method}`,
    /// with the face-blurred replacement texture an optional extra.
    ///
    /// - `texture_ref text`: the app's name for the texture's path inside the package; the worker
    ///   reads `coalesce(texture_ref, texture_path)`, so rows written with either name keep working.
    ///   `texture_path` becomes NULLable; `redactions_texture_named` requires one of the two.
    /// - `kind text`: `face` or `manual` (`redactions_kind_check`); NULL is allowed, and rows written
    ///   before this migration keep their NULL kind.
    /// - `region jsonb`: the blurred area as a normalised box `{"x":…,"y":…,"w":…,"h":…}`, every value
    ///   a number in 0…1 with `x + w` and `y + h` at most 1 (plus 1e-6 for rounding in the app's
    ///   floating point; `redactions_region_check`); NULL allowed.
    /// - `method text`: how the area was blurred, free text for the app (for example `gaussian`).
    /// - `redacted_path` becomes NULLable: a row without it only records that the texture shows a
    ///   redacted area; a row with it names the replacement the worker embeds instead of the texture.
    ///
    /// The kind and region checks are added `NOT VALID`, so a table the app filled before the worker
    /// migrated is not rejected; every row written afterwards is checked. Row level security and the
    /// revokes of migration 5 are table-level and cover the new columns. Idempotent.
    static let appRedactions = """
        ALTER TABLE redactions
          ADD COLUMN IF NOT EXISTS texture_ref text,
          ADD COLUMN IF NOT EXISTS kind        text,
          ADD COLUMN IF NOT EXISTS region      jsonb,
          ADD COLUMN IF NOT EXISTS method      text;
        ALTER TABLE redactions ALTER COLUMN texture_path DROP NOT NULL;
        ALTER TABLE redactions ALTER COLUMN redacted_path DROP NOT NULL;
        DO $$ BEGIN
          IF NOT EXISTS (SELECT 1 FROM pg_constraint
                          WHERE conrelid = 'redactions'::regclass AND conname = 'redactions_texture_named') THEN
            ALTER TABLE redactions ADD CONSTRAINT redactions_texture_named
              CHECK (coalesce(texture_ref, texture_path) IS NOT NULL);
          END IF;
          IF NOT EXISTS (SELECT 1 FROM pg_constraint
                          WHERE conrelid = 'redactions'::regclass AND conname = 'redactions_kind_check') THEN
            ALTER TABLE redactions ADD CONSTRAINT redactions_kind_check
              CHECK (kind IN ('face', 'manual')) NOT VALID;
          END IF;
          IF NOT EXISTS (SELECT 1 FROM pg_constraint
                          WHERE conrelid = 'redactions'::regclass AND conname = 'redactions_region_check') THEN
            ALTER TABLE redactions ADD CONSTRAINT redactions_region_check CHECK (
              region IS NULL OR CASE
                WHEN jsonb_typeof(region) = 'object'
                 AND jsonb_typeof(region -> 'x') = 'number' AND jsonb_typeof(region -> 'y') = 'number'
                 AND jsonb_typeof(region -> 'w') = 'number' AND jsonb_typeof(region -> 'h') = 'number'
                THEN (region ->> 'x')::numeric BETWEEN 0 AND 1 AND (region ->> 'y')::numeric BETWEEN 0 AND 1
                 AND (region ->> 'w')::numeric BETWEEN 0 AND 1 AND (region ->> 'h')::numeric BETWEEN 0 AND 1
                 AND (region ->> 'x')::numeric + (region ->> 'w')::numeric <= 1.000001
                 AND (region ->> 'y')::numeric + (region ->> 'h')::numeric <= 1.000001
                ELSE false
              END) NOT VALID;
          END IF;
        END $$;
        """
}
