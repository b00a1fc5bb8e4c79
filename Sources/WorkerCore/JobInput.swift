import JSONCore

/// What the daemon tells the job child about one job, as one document (`in/job.json`, handed to
/// `job-exec --job`): the ids, the input files, the redaction rows, the previous revision and the
/// options, typed. `document` encodes it and `init(document:)` decodes it, side by side;
/// `job-exec`'s flags, for a run by hand, are parsed into the same type.
///
/// ```
/// {"version_id":"…","room_id":"…","usd":["/w/in/scan.usdz"],"roomplan":["/w/in/room.json"],
///  "redacted_textures":"/w/redacted","previous":"/w/in/previous.pack","thumbnails":true,
///  "redactions":{"0/tex.png":[{"id":"…","kind":"face","region_json":"{…}","origin":"bottom_left",
///                              "replaced":false}]},
///  "options":{"glb-compression":"meshopt","texture-format":"webp","plan-units":"metric",
///             "plan-locale":"en","orbit-size":"1320x990","card-size":"1320x990","report":true}}
/// ```
public struct JobInput: Sendable, Equatable {
    /// One `redactions` row of a texture: the child blurs its area before anything reads the
    /// texture, whether or not the app also sent a blurred replacement.
    public struct Redaction: Sendable, Equatable {
        /// The row's id (recorded in the manifest; never the area itself).
        public var id: String
        /// `face`, `manual` or nil.
        public var kind: String?
        /// The area as stored, `{"x","y","w","h"}` text; nil for a row without one.
        public var regionJSON: String?
        /// Whether `y` is measured from the bottom edge (`bottom_left`, the app's and Vision's).
        public var fromBottom: Bool
        /// Whether the row names the app's blurred replacement.
        public var replaced: Bool

        public init(id: String, kind: String? = nil, regionJSON: String?, fromBottom: Bool = true, replaced: Bool = false) {
            self.id = id
            self.kind = kind
            self.regionJSON = regionJSON
            self.fromBottom = fromBottom
            self.replaced = replaced
        }
    }

    /// `room_versions.id` and `rooms.id` (recorded in the manifest).
    public var versionId: String?
    public var roomId: String?
    /// The USD files and the RoomPlan JSON files: one room's, or several rooms' of one home in
    /// merge order (one JSON per USD when both are given).
    public var usd: [String] = []
    public var roomPlan: [String] = []
    /// The folder of the app's blurred replacement textures.
    public var redactedTextures: String?
    /// The version's `redactions` rows by the texture path they name.
    public var redactions: [String: [Redaction]] = [:]
    /// The previous revision's pack (`PreviousPack`), for a re-transcode.
    public var previous: String?
    /// Whether thumbnails are drawn.
    public var thumbnails = true
    public var options = JobOptions()

    /// The largest document the child reads, bytes.
    public static let maxDocumentBytes = 1 << 20

    public init() {}

    /// The document.
    public var document: [UInt8] {
        func text(_ s: String?) -> JSONValue { s.map(JSONValue.string) ?? .null }
        var rows: [String: JSONValue] = [:]
        for (path, list) in redactions {
            rows[path] = .array(list.map { r in
                .object(["id": .string(r.id), "kind": text(r.kind), "region_json": text(r.regionJSON),
                         "origin": .string(r.fromBottom ? "bottom_left" : "top_left"), "replaced": .bool(r.replaced)])
            })
        }
        var opts: [String: JSONValue] = [
            JobOptions.Key.glbCompression.rawValue: .string(options.glbCompression.rawValue),
            JobOptions.Key.textureFormat.rawValue: .string(options.textureFormat.rawValue),
            JobOptions.Key.planUnits.rawValue: .string(options.planUnits.rawValue),
            JobOptions.Key.planLocale.rawValue: .string(options.planLocale.rawValue),
            "report": .bool(options.report),
        ]
        if let s = options.orbitSize { opts[JobOptions.Key.orbitSize.rawValue] = .string(s.description) }
        if let s = options.cardSize { opts[JobOptions.Key.cardSize.rawValue] = .string(s.description) }
        let object: [String: JSONValue] = [
            "version_id": text(versionId), "room_id": text(roomId),
            "usd": .array(usd.map(JSONValue.string)), "roomplan": .array(roomPlan.map(JSONValue.string)),
            "redacted_textures": text(redactedTextures), "redactions": .object(rows), "previous": text(previous),
            "thumbnails": .bool(thumbnails), "options": .object(opts),
        ]
        return Array(JSONValue.object(object).serialized().utf8)
    }

    /// Decodes a document (at most `maxDocumentBytes`, read under `JSONReader.Limits.smallDocument`).
    /// Every member is optional except that what is present must be of its kind.
    /// - Throws: `UsageError` naming the first member that is not (an option's value with
    ///   `JobOptions`' own message).
    public init(document bytes: [UInt8]) throws(UsageError) {
        guard bytes.count <= Self.maxDocumentBytes,
              let parsed = try? JSONReader.parse(bytes, limits: .smallDocument), case .object = parsed else {
            throw UsageError("the job document is not a JSON object of at most \(Self.maxDocumentBytes) bytes")
        }
        func wrong(_ member: String, _ kind: String) -> UsageError { UsageError("the job document's \(member) is not \(kind)") }
        func text(_ v: ParsedJSON?, _ member: String) throws(UsageError) -> String? {
            guard let v, !Self.isNull(v) else { return nil }
            guard let s = v.stringValue else { throw wrong(member, "a string") }
            return s
        }
        func texts(_ member: String) throws(UsageError) -> [String] {
            guard let v = parsed.member(member) else { return [] }
            guard let list = v.arrayValue else { throw wrong(member, "a list of strings") }
            var out: [String] = []
            for item in list {
                guard let s = item.stringValue else { throw wrong(member, "a list of strings") }
                out.append(s)
            }
            return out
        }
        versionId = try text(parsed.member("version_id"), "version_id")
        roomId = try text(parsed.member("room_id"), "room_id")
        usd = try texts("usd")
        roomPlan = try texts("roomplan")
        redactedTextures = try text(parsed.member("redacted_textures"), "redacted_textures")
        previous = try text(parsed.member("previous"), "previous")
        if let t = parsed.member("thumbnails") {
            guard let b = t.boolValue else { throw wrong("thumbnails", "true or false") }
            thumbnails = b
        }
        redactions = try Self.rows(parsed.member("redactions"))
        try decodeOptions(parsed.member("options"))
    }

    private static func isNull(_ v: ParsedJSON) -> Bool {
        if case .null = v { return true }
        return false
    }

    /// The `redactions` member: texture path → its rows.
    private static func rows(_ v: ParsedJSON?) throws(UsageError) -> [String: [Redaction]] {
        guard let v, !isNull(v) else { return [:] }
        guard case .object(let members) = v else { throw UsageError("the job document's redactions is not an object") }
        var out: [String: [Redaction]] = [:]
        for m in members {
            guard let rows = m.value.arrayValue else { throw UsageError("the job document's redactions of \(m.key) is not a list") }
            var list: [Redaction] = []
            for row in rows {
                guard let id = row.member("id")?.stringValue else {
                    throw UsageError("a redaction of \(m.key) in the job document has no id")
                }
                list.append(Redaction(id: id, kind: row.member("kind")?.stringValue,
                                      regionJSON: row.member("region_json")?.stringValue,
                                      fromBottom: row.member("origin")?.stringValue != "top_left",
                                      replaced: row.member("replaced")?.boolValue ?? false))
            }
            out[m.key] = list
        }
        return out
    }

    /// The `options` member, each value through `JobOptions.set`.
    private mutating func decodeOptions(_ v: ParsedJSON?) throws(UsageError) {
        guard let v, !Self.isNull(v) else { return }
        guard case .object(let members) = v else { throw UsageError("the job document's options is not an object") }
        for m in members {
            if m.key == "report" {
                guard let b = m.value.boolValue else { throw UsageError("the job document's options.report is not true or false") }
                options.report = b
            } else if let key = JobOptions.Key(rawValue: m.key) {
                guard let s = m.value.stringValue else { throw UsageError("the job document's options.\(m.key) is not a string") }
                try options.set(key, to: s, givenAs: "options.\(m.key)")
            } else {
                throw UsageError("the job document names an unknown option \(JobOptions.shown(m.key))")
            }
        }
    }
}
