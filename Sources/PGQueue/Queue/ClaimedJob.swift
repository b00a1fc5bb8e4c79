import JSONCore
/// A version this worker holds a lease on. Every later write about it is fenced by `leaseId`.
public struct ClaimedJob: Sendable, Equatable {
    public var versionId: String
    public var roomId: String
    /// `transcoding` for a fresh job, `ready` for a reprocess of a ready version.
    public var status: String
    /// 1-based attempt number of this claim.
    public var attempt: Int
    public var maxAttempts: Int
    public var leaseId: String
    public var sourceUSDZPath: String?
    public var sourceJSONPath: String?
    /// `source_bucket`: the bucket the app uploaded the sources to (nil: not recorded). It must be
    /// the bucket of the store sources are read from.
    public var sourceBucket: String?
    /// The revision of the outputs currently published; this attempt writes `outputRevision + 1`.
    public var outputRevision: Int
    public var isReprocess: Bool
    /// `plan_units` and `plan_locale` (migration 11): the version's floor-plan labelling; nil:
    /// the worker's defaults.
    public var planUnits: String?
    public var planLocale: String?
    /// `room_versions.event_seq` after the claim: this attempt's progress events are numbered
    /// `eventSeq - SchemaCatalog.eventSeqBlock + 1 … eventSeq` (migration 6), below the next
    /// terminal event's. 0 on a database without migration 6.
    public var eventSeq: Int64
    /// The row's `manifest_path` and `output_bucket` at the claim: the published revision, whose
    /// outputs a reprocess may reuse (nil for a version never made ready).
    public var previousManifestPath: String?
    public var previousOutputBucket: String?
    /// `reprocess_full` (migration 13): the reprocess must redo everything.
    public var reprocessFull: Bool
    /// The room's `visibility` at the claim (`public`, `private`, …; nil when unknown), which
    /// picks the `Cache-Control` of the outputs.
    public var roomVisibility: String?

    /// Storage prefix of this attempt's outputs: `rooms/{room}/versions/{version}/r{rev}-{lease8}/`.
    /// Unique per lease, so a stale worker can never overwrite the files of the attempt that won.
    public var outputPrefix: String {
        "rooms/\(roomId)/versions/\(versionId)/r\(outputRevision + 1)-\(leaseId.prefix(8))/"
    }

    /// One room of a home named in `source_rooms` (migration 22): its RoomPlan JSON and, when
    /// uploaded, its USDZ (storage keys).
    public struct SourceRoom: Sendable, Equatable {
        public var jsonPath: String
        public var usdzPath: String?
        public init(jsonPath: String, usdzPath: String?) {
            self.jsonPath = jsonPath
            self.usdzPath = usdzPath
        }
    }

    /// `source_rooms`: every room of a home, in merge order (nil: the single source of
    /// `sourceUSDZPath` / `sourceJSONPath`). A value the database holds but that does not read as
    /// the list its check constraint allows is `[]`, which the worker refuses.
    public var sourceRooms: [SourceRoom]?

    /// The rooms of a `source_rooms` value (`[]` when it is not the allowed shape).
    static func rooms(_ text: String?) -> [SourceRoom]? {
        guard let text else { return nil }
        guard let parsed = try? JSONReader.parse(Array(text.utf8), limits: .smallDocument),
              let items = parsed.arrayValue else { return [] }
        var rooms: [SourceRoom] = []
        for item in items {
            guard let json = item.member("json_path")?.stringValue else { return [] }
            rooms.append(SourceRoom(jsonPath: json, usdzPath: item.member("usdz_path")?.stringValue))
        }
        return rooms
    }

    init(row: PGRow) throws(DatabaseError) {
        versionId = try row.required("id")
        roomId = try row.required("room_id")
        status = try row.required("status")
        attempt = row.int("attempt") ?? 1
        maxAttempts = row.int("max_attempts") ?? 1
        leaseId = try row.required("lease_id")
        sourceUSDZPath = row["source_usdz_path"]
        sourceJSONPath = row["source_json_path"]
        sourceBucket = row["source_bucket"]
        sourceRooms = Self.rooms(row["source_rooms"])
        outputRevision = row.int("output_revision") ?? 0
        isReprocess = row.bool("is_reprocess") ?? false
        planUnits = row["plan_units"]
        planLocale = row["plan_locale"]
        eventSeq = row["event_seq"].flatMap { Int64($0) } ?? 0
        previousManifestPath = row["manifest_path"]
        previousOutputBucket = row["output_bucket"]
        reprocessFull = row.bool("reprocess_full") ?? false
        roomVisibility = row["room_visibility"]
    }
}
