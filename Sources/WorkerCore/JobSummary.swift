import JSONCore

/// The summary on the child's `done` line (`ChildMessage.done`): what the daemon needs to check
/// the outputs and report the attempt, typed, so that it never parses the manifest it uploads;
/// plus counts for the logs. Encoded by `json` and decoded by `init(json:)`, next to each other.
///
/// ```
/// {"phase_ms":{"parsing":12.5,…},"layers":9,"elements":41,"triangles":5210,"vertices":9876,
///  "warnings":2,"quality_grade":"B","manifest_schema_version":10,"reused":["thumbs/hero.webp"],
///  "thumbnails":[{"path":"thumbs/hero.webp","kind":"hero","width":1320,"height":990},…]}
/// ```
public struct JobSummary: Sendable, Equatable {
    /// A thumbnail the manifest lists: path relative to the output directory, kind, size in pixels.
    public struct Thumbnail: Sendable, Equatable {
        public var path: String
        public var kind: String
        public var width: Int
        public var height: Int

        public init(path: String, kind: String, width: Int, height: Int) {
            self.path = path
            self.kind = kind
            self.width = width
            self.height = height
        }
    }

    /// Milliseconds per phase that ran.
    public var phaseMilliseconds: [JobPhase: Double]
    /// Layers in the model.
    public var layers: Int
    /// Elements, triangles and vertices of the model, and warnings of the conversion (for logs).
    public var elements: Int, triangles: Int, vertices: Int, warnings: Int
    /// The quality grade (`A` best); nil when the input was not graded.
    public var qualityGrade: String?
    /// The manifest's `schema_version`.
    public var manifestSchemaVersion: Int
    /// Output paths whose bytes are the previous revision's, sorted.
    public var reused: [String]
    public var thumbnails: [Thumbnail]

    /// The largest thumbnail side a summary may state, pixels.
    public static let maxThumbnailSide = 1 << 16

    public init(phaseMilliseconds: [JobPhase: Double], layers: Int, elements: Int, triangles: Int, vertices: Int,
                warnings: Int, qualityGrade: String?, manifestSchemaVersion: Int, reused: [String], thumbnails: [Thumbnail]) {
        self.phaseMilliseconds = phaseMilliseconds
        self.layers = layers
        self.elements = elements
        self.triangles = triangles
        self.vertices = vertices
        self.warnings = warnings
        self.qualityGrade = qualityGrade
        self.manifestSchemaVersion = manifestSchemaVersion
        self.reused = reused
        self.thumbnails = thumbnails
    }

    /// The summary as the child writes it.
    public var json: JSONValue {
        var phases: [String: JSONValue] = [:]
        for (phase, ms) in phaseMilliseconds { phases[phase.rawValue] = .double(ms) }
        return .object([
            "phase_ms": .object(phases),
            "layers": .int(Int64(layers)),
            "elements": .int(Int64(elements)),
            "triangles": .int(Int64(triangles)),
            "vertices": .int(Int64(vertices)),
            "warnings": .int(Int64(warnings)),
            "quality_grade": qualityGrade.map(JSONValue.string) ?? .null,
            "manifest_schema_version": .int(Int64(manifestSchemaVersion)),
            "reused": .array(reused.map(JSONValue.string)),
            "thumbnails": .array(thumbnails.map { t in
                .object(["path": .string(t.path), "kind": .string(t.kind), "width": .int(Int64(t.width)),
                         "height": .int(Int64(t.height))])
            }),
        ])
    }

    /// Decodes a summary as the daemon reads it from a child that may be compromised. Required:
    /// `manifest_schema_version` (a positive integer), `layers` (a count), `thumbnails` (`path`,
    /// `kind`, `width`, `height` each, sides at most `maxThumbnailSide`) and `quality_grade` (a
    /// string, null or absent); nil when any is missing or of the wrong type. Lenient, because
    /// only logs read them: `phase_ms` (entries that are not a known phase with a number are left
    /// out), `reused` (non-strings left out) and the counts (0 when absent or not a count).
    public init?(json: JSONValue) {
        guard case .object(let o) = json, case .int(let schema)? = o["manifest_schema_version"], schema > 0,
              case .int(let layers)? = o["layers"], layers >= 0, case .array(let list)? = o["thumbnails"] else { return nil }
        var thumbnails: [Thumbnail] = []
        for item in list {
            guard case .object(let t) = item, case .string(let path)? = t["path"], case .string(let kind)? = t["kind"],
                  case .int(let w)? = t["width"], case .int(let h)? = t["height"], w >= 0, h >= 0,
                  w <= Self.maxThumbnailSide, h <= Self.maxThumbnailSide else { return nil }
            thumbnails.append(Thumbnail(path: path, kind: kind, width: Int(w), height: Int(h)))
        }
        let grade: String?
        switch o["quality_grade"] {
        case .string(let g)?: grade = g
        case .null?, nil: grade = nil
        default: return nil
        }
        var phases: [JobPhase: Double] = [:]
        if case .object(let timed)? = o["phase_ms"] {
            for (name, value) in timed {
                guard let phase = JobPhase(rawValue: name) else { continue }
                switch value {
                case .int(let i): phases[phase] = Double(i)
                case .double(let d): phases[phase] = d
                default: break
                }
            }
        }
        var reused: [String] = []
        if case .array(let paths)? = o["reused"] { for case .string(let p) in paths { reused.append(p) } }
        func count(_ key: String) -> Int {
            if case .int(let n)? = o[key], n >= 0 { return Int(n) }
            return 0
        }
        self.init(phaseMilliseconds: phases, layers: Int(layers), elements: count("elements"), triangles: count("triangles"),
                  vertices: count("vertices"), warnings: count("warnings"), qualityGrade: grade,
                  manifestSchemaVersion: Int(schema), reused: reused, thumbnails: thumbnails)
    }
}
