/// The work the replicas must serve, for autoscaling: the same number the Kubernetes KEDA trigger
/// (`deploy/kubernetes/keda-scaledobject.yaml`) reads with this very statement, and the worker's
/// `transcode_queue_demand` gauge for an HPA on Prometheus metrics.
extension QueueStore {
    /// Versions runnable now (unleased, due, queued or asked to reprocess) plus versions leased by a
    /// worker. Each half is answered by a partial index (`room_versions_claimable_idx` for the
    /// first, whose predicate it repeats; `room_versions_leased_idx` for the second), so the count
    /// stays cheap on a table of millions of ready rows. Versions waiting out a retry backoff are
    /// not counted: no replica could take them yet.
    public static let demandSQL = """
        SELECT (SELECT count(*) FROM transcode_private.room_versions WHERE lease_id IS NULL AND (status = 'queued' OR (status = 'ready' AND reprocess_requested_at IS NOT NULL)) AND run_after <= now()) + (SELECT count(*) FROM transcode_private.room_versions WHERE lease_id IS NOT NULL) AS demand
        """

    /// `demandSQL`'s count.
    public func demand() throws(DatabaseError) -> Int {
        try connection.query(Self.demandSQL).first?.int("demand") ?? 0
    }
}
