import FoundationEssentials
import JSONCore

/// One line of the `job-exec` protocol: the child process writes one JSON object per line on its
/// standard output, and the parent (`JobRunner`) reads them as they come.
///
/// ```
/// {"event":"phase","phase":"parsing"}
/// {"event":"done","files":[{"path":"model.glb","bytes":41288,"sha256":"…"},…],"summary":{…}}
/// {"event":"error","code":"USD_TRUNCATED","message":"…","phase":"parsing","retryable":false}
/// ```
///
/// `done` or `error` is the last line. The summary holds `phase_ms` (milliseconds per pipeline
/// phase), `layers`, `elements`, `triangles`, `vertices`, `warnings` and `quality_grade`.
public enum ChildMessage: Sendable, Equatable {
    /// An output file as written into the output directory.
    public struct File: Sendable, Equatable {
        /// Relative to the output directory, `/`-separated.
        public var path: String
        /// Size in bytes.
        public var bytes: Int
        /// Lowercase hexadecimal SHA-256 of the bytes.
        public var sha256: String

        public init(path: String, bytes: Int, sha256: String) {
            self.path = path
            self.bytes = bytes
            self.sha256 = sha256
        }
    }

    /// A pipeline phase started.
    case phase(JobPhase)
    /// Every output is written; `files` in write order (the manifest last).
    case done(files: [File], summary: JSONValue)
    /// The conversion failed with a pipeline error code.
    case error(code: String, message: String, phase: JobPhase, retryable: Bool)

    /// The message as one line of JSON (no newline).
    public var line: String {
        switch self {
        case .phase(let p):
            return JSONValue.object(["event": .string("phase"), "phase": .string(p.rawValue)]).serialized()
        case .done(let files, let summary):
            let list = files.map { f in
                JSONValue.object(["path": .string(f.path), "bytes": .int(Int64(f.bytes)), "sha256": .string(f.sha256)])
            }
            return JSONValue.object(["event": .string("done"), "files": .array(list), "summary": summary]).serialized()
        case .error(let code, let message, let phase, let retryable):
            return JSONValue.object(["event": .string("error"), "code": .string(code), "message": .string(message),
                                     "phase": .string(phase.rawValue), "retryable": .bool(retryable)]).serialized()
        }
    }

    /// Parses one line (under `JSONReader.Limits.smallDocument`: the child may be compromised);
    /// nil when it is not a message of this protocol.
    public init?(line: String) {
        guard let obj = try? JSONReader.parse(Array(line.utf8), limits: .smallDocument),
              let event = obj.member("event")?.stringValue else { return nil }
        switch event {
        case "phase":
            guard let name = obj.member("phase")?.stringValue, let p = JobPhase(rawValue: name) else { return nil }
            self = .phase(p)
        case "done":
            guard let list = obj.member("files")?.arrayValue else { return nil }
            var files: [File] = []
            for f in list {
                guard let path = f.member("path")?.stringValue, let bytes = f.member("bytes")?.intValue,
                      let sha = f.member("sha256")?.stringValue else { return nil }
                files.append(File(path: path, bytes: bytes, sha256: sha))
            }
            self = .done(files: files, summary: obj.member("summary")?.jsonValue ?? .null)
        case "error":
            guard let code = obj.member("code")?.stringValue else { return nil }
            self = .error(code: code, message: obj.member("message")?.stringValue ?? "",
                          phase: obj.member("phase")?.stringValue.flatMap(JobPhase.init(rawValue:)) ?? .parsing,
                          retryable: obj.member("retryable")?.boolValue ?? false)
        default:
            return nil
        }
    }

    /// What the daemon needs from a `done` summary to report the attempt, typed, so that it never
    /// parses the manifest it uploads.
    public struct Result: Sendable, Equatable {
        /// The manifest's `schema_version`.
        public var manifestSchemaVersion: Int
        /// Layers in the model.
        public var layerCount: Int
        /// Paths relative to the output directory, with kind and size in pixels.
        public var thumbnails: [Thumbnail]
        /// The quality grade (`A` best); nil when the input was not graded.
        public var qualityGrade: String?

        public struct Thumbnail: Sendable, Equatable {
            public var path: String
            public var kind: String
            public var width: Int
            public var height: Int
        }
    }

    /// The typed result of a `done` summary: `manifest_schema_version` (a positive integer),
    /// `layers` (a count), `thumbnails` (`path`, `kind`, `width`, `height` each) and
    /// `quality_grade` (a string or null); nil when any is missing or of the wrong type.
    public static func result(_ summary: JSONValue) -> Result? {
        guard case .object(let o) = summary, case .int(let schema)? = o["manifest_schema_version"], schema > 0,
              case .int(let layers)? = o["layers"], layers >= 0, case .array(let list)? = o["thumbnails"] else { return nil }
        var thumbnails: [Result.Thumbnail] = []
        for item in list {
            guard case .object(let t) = item, case .string(let path)? = t["path"], case .string(let kind)? = t["kind"],
                  case .int(let w)? = t["width"], case .int(let h)? = t["height"], w >= 0, h >= 0,
                  w <= 1 << 16, h <= 1 << 16 else { return nil }
            thumbnails.append(.init(path: path, kind: kind, width: Int(w), height: Int(h)))
        }
        let grade: String?
        switch o["quality_grade"] {
        case .string(let g)?: grade = g
        case .null?, nil: grade = nil
        default: return nil
        }
        return Result(manifestSchemaVersion: Int(schema), layerCount: Int(layers), thumbnails: thumbnails, qualityGrade: grade)
    }

    /// Milliseconds per pipeline phase from a `done` summary.
    public static func phaseMilliseconds(_ summary: JSONValue) -> [String: Double] {
        guard case .object(let o) = summary, case .object(let phases)? = o["phase_ms"] else { return [:] }
        var out: [String: Double] = [:]
        for (k, v) in phases {
            switch v {
            case .int(let i): out[k] = Double(i)
            case .double(let d): out[k] = d
            default: break
            }
        }
        return out
    }
}
