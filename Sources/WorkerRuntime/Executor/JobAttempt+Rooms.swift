import PGQueue
#if canImport(Glibc)
import WorkerCore
#endif

/// A version that names several rooms of one home (`source_rooms`, migration 22): every room's
/// files are checked and downloaded, each into a folder of its own, and handed to the child in
/// order (`--usd` and `--roomplan` once per room), which merges them into one structure.
extension JobAttempt {
    /// The rooms of a home together may be this many times `TRANSCODE_MAX_SOURCE_BYTES`.
    static let roomsSourceBudget = 4

    /// Refuses a room list the database should never hold (its check constraint has the same
    /// rule): none, more than `SchemaCatalog.maxSourceRooms`, or USDZ files for some rooms only.
    /// `SOURCE_NOT_FOUND` (`SOURCE_ROOMS_INVALID`), permanent.
    static func checkRooms(_ rooms: [ClaimedJob.SourceRoom]) throws(Interruption) {
        let withUSDZ = rooms.filter { $0.usdzPath != nil }.count
        let problem: String? = rooms.count < 2 || rooms.count > SchemaCatalog.maxSourceRooms
            ? "source_rooms names \(rooms.count) rooms; a home has 2 to \(SchemaCatalog.maxSourceRooms)"
            : withUSDZ != 0 && withUSDZ != rooms.count ? "source_rooms gives a USDZ for \(withUSDZ) of \(rooms.count) rooms; all or none"
            : nil
        if let problem {
            throw .failed(FailureReason(reason: FailureReason.sourceNotFound, message: "SOURCE_ROOMS_INVALID: \(problem)",
                                        phase: .downloading, isRetryable: false))
        }
    }

    /// Downloads each room's JSON (and USDZ) to `in/rooms/<n>/`, within `roomsSourceBudget` times
    /// the single-source limit in all (`FILE_TOO_LARGE` past it).
    func downloadRooms(_ rooms: [ClaimedJob.SourceRoom], into inputs: inout Inputs, _ ws: JobWorkspace) throws(Interruption) {
        var remaining = config.maxSourceBytes * Self.roomsSourceBudget
        func get(_ key: String, _ fallback: String, room n: Int) throws(Interruption) -> String {
            let bytes = try fetch(key, what: "room \(n) \(key)", maxBytes: min(config.maxSourceBytes, remaining))
            remaining -= bytes.count
            guard remaining > 0 else {
                throw .failed(FailureReason(reason: FailureReason.fileTooLarge,
                                            message: "FILE_TOO_LARGE: the rooms' files exceed \(Self.roomsSourceBudget) × TRANSCODE_MAX_SOURCE_BYTES",
                                            phase: .downloading, isRetryable: false))
            }
            return try written(bytes, to: "rooms/\(n)/" + Self.fileName(key, fallback: fallback), in: ws.inputDirectory, ws)
        }
        for (i, room) in rooms.enumerated() {
            let json = try get(room.jsonPath, "roomplan.json", room: i + 1)
            let usd = try room.usdzPath.map { (key) throws(Interruption) in try get(key, "source.usdz", room: i + 1) }
            if i == 0 {
                inputs.json = json
                inputs.usd = usd
            } else {
                inputs.moreJSON.append(json)
                if let usd { inputs.moreUSD.append(usd) }
            }
        }
    }
}
