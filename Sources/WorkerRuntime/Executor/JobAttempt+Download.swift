import Foundation
import JSONCore
import ObjectStorage
import PGQueue
#if canImport(Glibc)
import Glibc
import WorkerCore
#endif

/// Step 1 of an attempt: the sources and redacted textures, from storage into the workspace.
extension JobAttempt {
    struct Inputs {
        var usd: String?
        var json: String?
        /// The other rooms of a home (`source_rooms`), in merge order after `usd` / `json`.
        var moreUSD: [String] = []
        var moreJSON: [String] = []
        var redactions: Int
        /// Redaction rows per texture path (with or without a replacement), as the child reads
        /// them in its job document (`JobInput.redactions`).
        var regions: [String: [JobInput.Redaction]] = [:]
        /// The version's `redactions` rows, for the privacy detail recorded after the upload.
        var rows: [RedactionRow] = []
    }

    /// Downloads the sources and the redacted textures into the workspace. Every key must lie
    /// below the version's source prefix, and a recorded `source_bucket` must be the source
    /// store's (`StorageConfinement`: `SOURCE_KEY_REFUSED`); redacted
    /// textures are the recorded rows that name a replacement (one per texture; two different keys
    /// for one texture: `REDACTION_INVALID`, permanent), then every object under
    /// `<prefix>redacted/`, at most `maxRedactions` of them and `maxRedactionBytes` in all
    /// (`REDACTION_INVALID`). Every row, with or without a replacement, counts as one redacted area
    /// of its texture; the rows (id, kind, area, origin) go to the child in its job document
    /// (`JobInput.redactions`), which blurs every area before anything reads the texture.
    func download(_ ws: JobWorkspace) throws(Interruption) -> Inputs {
        enter(.downloading)
        let t0 = Clock.now()
        defer { timings["download"] = Clock.ms(t0, Clock.now()) }
        var inputs = Inputs(usd: nil, json: nil, redactions: 0)
        guard job.sourceRooms != nil || job.sourceUSDZPath != nil || job.sourceJSONPath != nil else {
            throw .failed(FailureReason(reason: FailureReason.sourceNotFound, message: "SOURCE_MISSING: the version names no source file",
                                        phase: .downloading, isRetryable: false))
        }
        let prefix = StorageConfinement.prefix(config.sourcePrefixTemplate, roomId: job.roomId, versionId: job.versionId)
        func confined(_ key: String, _ what: String) throws(Interruption) {
            do { try StorageConfinement.check(key, under: prefix, what: what) } catch { throw .failed(error) }
        }
        if let rooms = job.sourceRooms {
            try Self.checkRooms(rooms)
            for room in rooms {
                try confined(room.jsonPath, "RoomPlan JSON")
                if let key = room.usdzPath { try confined(key, "source") }
            }
        } else {
            if let key = job.sourceUSDZPath { try confined(key, "source") }
            if let key = job.sourceJSONPath { try confined(key, "RoomPlan JSON") }
        }
        do { try StorageConfinement.check(bucket: job.sourceBucket, store: storage) } catch { throw .failed(error) }
        try checkRetention()
        let rows: [RedactionRow]
        switch database("read redactions", { (s) throws(DatabaseError) in try s.redactions(versionId: job.versionId) }) {
        case .success(let r): rows = r
        case .failure(let e): throw .failed(FailureReason(reason: FailureReason.sourceDownloadFailed,
                                                            message: "\(e.code): cannot read the redactions: \(e.message)",
                                                            phase: .downloading, isRetryable: true))
        }
        for row in rows { if let key = row.storageKey { try confined(key, "redacted texture") } }
        inputs.rows = rows
        let listed: [String]
        do {
            listed = try storage.list(prefix: prefix + "redacted/")
        } catch {
            throw .failed(FailureReason(reason: FailureReason.sourceDownloadFailed,
                                        message: "\(error.code): cannot list \(prefix)redacted/: \(error.message)",
                                        phase: .downloading, isRetryable: error.isRetryable))
        }
        let wanted = try redactedTextures(rows, listed: listed, prefix: prefix, regions: &inputs.regions)

        if let rooms = job.sourceRooms {
            try downloadRooms(rooms, into: &inputs, ws)
        } else {
            if let key = job.sourceUSDZPath {
                let bytes = try fetch(key, what: "source \(key)")
                inputs.usd = try written(bytes, to: Self.fileName(key, fallback: "source.usdz"), in: ws.inputDirectory + "/usd", ws)
            }
            if let key = job.sourceJSONPath {
                let bytes = try fetch(key, what: "source \(key)")
                inputs.json = try written(bytes, to: Self.fileName(key, fallback: "roomplan.json"), in: ws.inputDirectory + "/json", ws)
            }
        }
        var remaining = config.maxRedactionBytes
        for (relative, key) in wanted {
            try checkStop()
            let bytes = try fetch(key, what: "redacted texture \(relative)", maxBytes: min(config.maxSourceBytes, remaining),
                                  overBudget: remaining < config.maxSourceBytes)
            remaining -= bytes.count
            _ = try written(bytes, to: relative, in: ws.redactedDirectory, ws)
        }
        inputs.redactions = wanted.count
        return inputs
    }

    /// Fails the attempt, for good, when retention deleted what it needs: the sources, or the
    /// redactions (the blur cannot be made again). A failed read of the erasure record is not
    /// an error here.
    private func checkRetention() throws(Interruption) {
        // A re-transcode fails at once (the version, a reprocess, stays ready on the outputs it
        // has, made with the blur).
        if case .success(let erased) = database("read retention", { (s) throws(DatabaseError) in try s.erasure(versionId: job.versionId) }) {
            if erased.sources {
                throw .failed(FailureReason(reason: FailureReason.sourceNotFound,
                                            message: "SOURCE_EXPIRED: the sources were deleted by TRANSCODE_SOURCE_RETENTION_DAYS",
                                            phase: .downloading, isRetryable: false))
            }
            if erased.redactions {
                throw .failed(FailureReason(reason: FailureReason.redactionInvalid,
                                            message: "REDACTIONS_ERASED: the redactions were deleted by TRANSCODE_REDACTION_RETENTION_DAYS; the blur cannot be made again",
                                            phase: .downloading, isRetryable: false))
            }
        }
    }

    /// The redacted textures to download (texture path relative to the replacement tree, and
    /// key): the replacements the rows name, one per texture, then the objects listed under
    /// `<prefix>redacted/` for other textures. Records every row's area in `regions`.
    /// - Throws: `REDACTION_INVALID` for two replacements of one texture, or more textures than
    ///   `maxRedactions`.
    private func redactedTextures(
        _ rows: [RedactionRow], listed: [String], prefix: String, regions: inout [String: [JobInput.Redaction]]
    ) throws(Interruption) -> [(relative: String, key: String)] {
        var wanted: [(relative: String, key: String)] = []
        var seen: Set<String> = []
        // One replacement per texture: rows without a key only record a redacted area (counted in
        // `regions`); rows of one texture naming two different keys are refused.
        var chosen: [String: String] = [:]
        for row in rows {
            regions[row.texturePath, default: []].append(JobInput.Redaction(
                id: row.id, kind: row.kind, regionJSON: row.regionJSON, fromBottom: row.origin != "top_left",
                replaced: row.storageKey != nil))
            guard let key = row.storageKey else { continue }
            if let other = chosen[row.texturePath] {
                guard other == key else {
                    throw .failed(FailureReason(reason: FailureReason.redactionInvalid,
                                                message: "REDACTION_INVALID: texture \(row.texturePath) has two replacements, \(other) and \(key)",
                                                phase: .downloading, isRetryable: false))
                }
                continue
            }
            chosen[row.texturePath] = key
            seen.insert(row.texturePath)
            wanted.append((row.texturePath, key))
        }
        for key in listed {
            let relative = String(key.dropFirst(prefix.count + "redacted/".count))
            if !relative.isEmpty, seen.insert(relative).inserted { wanted.append((relative, key)) }
        }
        guard wanted.count <= config.maxRedactions else {
            throw .failed(FailureReason(reason: FailureReason.redactionInvalid,
                                        message: "REDACTION_LIMIT_EXCEEDED: \(wanted.count) redacted textures, more than TRANSCODE_MAX_REDACTIONS (\(config.maxRedactions))",
                                        phase: .downloading, isRetryable: false))
        }
        return wanted
    }

    /// Fetches one object of at most `maxBytes` (default `maxSourceBytes`). With `overBudget`,
    /// an object over the limit is `REDACTION_INVALID` (the redactions' total budget ran out)
    /// rather than `FILE_TOO_LARGE`.
    /// Fails the attempt (permanently) unless the child rendered the card and hero images.
    func requirePreview(_ report: ChildReport) throws(Interruption) {
        if let missing = Self.missingPreview(kinds: report.thumbnails.map(\.kind)) { throw .failed(missing) }
    }

    func fetch(_ key: String, what: String, maxBytes: Int? = nil, overBudget: Bool = false) throws(Interruption) -> [UInt8] {
        try checkStop()
        do {
            return try storage.get(key, maxBytes: maxBytes ?? config.maxSourceBytes)
        } catch {
            if overBudget && error.code == .tooLarge {
                throw .failed(FailureReason(reason: FailureReason.redactionInvalid,
                                            message: "REDACTION_LIMIT_EXCEEDED: the redacted textures exceed TRANSCODE_MAX_REDACTION_BYTES (\(config.maxRedactionBytes) bytes)",
                                            phase: .downloading, isRetryable: false))
            }
            throw .failed(FailureReason.download(error, what: what))
        }
    }

    func written(_ bytes: [UInt8], to relative: String, in directory: String, _ ws: JobWorkspace) throws(Interruption) -> String {
        do { return try ws.write(bytes, to: relative, in: directory) } catch { throw .failed(error) }
    }
}
