/// Migration 14: console sign-outs that hold on every replica.
///
/// - `transcode_console_signouts`: the nonce of each console session an operator signed out of,
///   until the session would have expired anyway (`expires_at`, at most
///   `ConsoleSession.lifetimeSeconds` ahead). Every console request signed by a cookie is
///   refused when its session's nonce is here, so a copied cookie stops working at sign-out, not
///   8 hours later. Rows past their expiry are deleted by the next sign-out.
///
/// Client roles get nothing on it (row level security on, no policy, every privilege revoked);
/// the worker, as the table's owner, reads and writes it.
extension SchemaCatalog {
    static let consoleSignOuts = """
        CREATE TABLE IF NOT EXISTS transcode_console_signouts (
          nonce      text        PRIMARY KEY CHECK (nonce ~ '^[0-9a-f]{32}$'),
          expires_at timestamptz NOT NULL
        );
        CREATE INDEX IF NOT EXISTS transcode_console_signouts_expiry_idx ON transcode_console_signouts (expires_at);
        ALTER TABLE transcode_console_signouts ENABLE ROW LEVEL SECURITY;
        REVOKE ALL ON TABLE transcode_console_signouts FROM PUBLIC;
        DO $$ DECLARE r text; BEGIN
          FOREACH r IN ARRAY ARRAY['anon', 'authenticated'] LOOP
            IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r) THEN
              EXECUTE format('REVOKE ALL ON TABLE transcode_console_signouts FROM %I', r);
            END IF;
          END LOOP;
        END $$;
        """
}
