/// Console sessions signed out of (`transcode_console_signouts`, migration 14).
extension QueueStore {
    static let recordSignOutSQL = """
        WITH gone AS (DELETE FROM transcode_console_signouts WHERE expires_at < now())
        INSERT INTO transcode_console_signouts (nonce, expires_at)
        VALUES ($1, now() + make_interval(secs => $2::integer))
        ON CONFLICT (nonce) DO UPDATE SET expires_at = greatest(transcode_console_signouts.expires_at, excluded.expires_at)
        """

    /// Records that the console session with `nonce` (32 lowercase hex digits) was signed out,
    /// for `seconds` (its remaining life at most), and deletes the records that have expired.
    /// Throws `DatabaseError` (a malformed nonce breaks the table's check).
    public func recordConsoleSignOut(nonce: String, seconds: Int) throws(DatabaseError) {
        _ = try connection.query(Self.recordSignOutSQL, [nonce, String(max(0, seconds))])
    }

    static let isSignedOutSQL = "SELECT 1 AS hit FROM transcode_console_signouts WHERE nonce = $1 AND expires_at >= now()"

    /// True when the console session with `nonce` was signed out and would still be alive.
    public func isConsoleSignedOut(nonce: String) throws(DatabaseError) -> Bool {
        try !connection.query(Self.isSignedOutSQL, [nonce]).isEmpty
    }
}
