/// Migration 11: how a version's floor plan is labelled, chosen per version by the backend (for
/// example from the uploader's app language).
///
/// - `room_versions.plan_units text`: `metric` or `imperial`; NULL: the worker's
///   `TRANSCODE_PLAN_UNITS` (default `metric`).
/// - `room_versions.plan_locale text`: `en` or `zh-Hans`; NULL: the worker's `TRANSCODE_PLAN_LOCALE`
///   (default `en`).
///
/// Both are checked by constraints, so a hostile value never reaches the worker. Not readable by
/// app clients (the manifest's `plan.units` and `plan.locale` say what was used).
extension SchemaCatalog {
    static let planOptions = """
        ALTER TABLE room_versions
          ADD COLUMN IF NOT EXISTS plan_units text,
          ADD COLUMN IF NOT EXISTS plan_locale text;
        DO $$ BEGIN
          IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'room_versions_plan_units_check') THEN
            ALTER TABLE room_versions ADD CONSTRAINT room_versions_plan_units_check
              CHECK (plan_units IS NULL OR plan_units IN ('metric', 'imperial'));
          END IF;
          IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'room_versions_plan_locale_check') THEN
            ALTER TABLE room_versions ADD CONSTRAINT room_versions_plan_locale_check
              CHECK (plan_locale IS NULL OR plan_locale IN ('en', 'zh-Hans'));
          END IF;
        END $$;
        """
}
