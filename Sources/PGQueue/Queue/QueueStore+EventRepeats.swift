/// Terminal events sent again for subscribers who joined late (migration 16).
extension QueueStore {
    static let repeatDueEventsSQL = "SELECT transcode_repeat_due_events(now(), $1::integer) AS sent"

    /// Sends again every `ready` and `failed` whose next repeat is due (at most `limit`), drops
    /// the repeats a newer event or status has superseded, and returns how many were sent. Replicas
    /// may call it at once: each due repeat is taken by one of them (`SKIP LOCKED`). Throws
    /// `DatabaseError` (nothing is sent then).
    public func repeatDueEvents(limit: Int = 200) throws(DatabaseError) -> Int {
        let rows = try connection.query(Self.repeatDueEventsSQL, [String(max(1, limit))])
        return rows.first?.int("sent") ?? 0
    }
}
