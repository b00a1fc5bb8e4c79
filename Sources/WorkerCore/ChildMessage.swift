import FoundationEssentials
import JSONCore

/// One line of the `job-exec` protocol: the child process writes one JSON object per line on its
/// standard output, and the parent (`JobRunner`) reads them as they come.
///
/// ```
/// {"event":"phase","phase":"parsing"}
/// {"event":"done","files":[{"path":"model.glb","bytes":41288,"sha256":"…"},…],"summary":{…}}
/// {"event":"error","code":"USD_TRUNCATED","message":"…","phase":"parsing","retryable":false,"class":"usd"}
/// ```
///
/// `done` or `error` is the last line; the summary is a `JobSummary`.
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
    /// Every output is written; `files` in write order (the manifest last). `summary` is nil when
    /// the line's summary is not a `JobSummary` (a broken child: the daemon refuses the attempt).
    case done(files: [File], summary: JobSummary?)
    /// The conversion failed with a pipeline error code, of `errorClass` (nil when the line names
    /// none, or one that is no `JobErrorClass`: the daemon then goes by the phase).
    case error(code: String, message: String, phase: JobPhase, retryable: Bool, errorClass: JobErrorClass?)

    /// The message as one line of JSON (no newline).
    public var line: String {
        switch self {
        case .phase(let p):
            return JSONValue.object(["event": .string("phase"), "phase": .string(p.rawValue)]).serialized()
        case .done(let files, let summary):
            let list = files.map { f in
                JSONValue.object(["path": .string(f.path), "bytes": .int(Int64(f.bytes)), "sha256": .string(f.sha256)])
            }
            return JSONValue.object(["event": .string("done"), "files": .array(list), "summary": summary?.json ?? .null])
                .serialized()
        case .error(let code, let message, let phase, let retryable, let errorClass):
            var fields: [String: JSONValue] = ["event": .string("error"), "code": .string(code), "message": .string(message),
                                               "phase": .string(phase.rawValue), "retryable": .bool(retryable)]
            if let errorClass { fields["class"] = .string(errorClass.rawValue) }
            return JSONValue.object(fields).serialized()
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
            self = .done(files: files, summary: obj.member("summary").flatMap { JobSummary(json: $0.jsonValue) })
        case "error":
            guard let code = obj.member("code")?.stringValue else { return nil }
            self = .error(code: code, message: obj.member("message")?.stringValue ?? "",
                          phase: obj.member("phase")?.stringValue.flatMap(JobPhase.init(rawValue:)) ?? .parsing,
                          retryable: obj.member("retryable")?.boolValue ?? false,
                          errorClass: obj.member("class")?.stringValue.flatMap(JobErrorClass.init(rawValue:)))
        default:
            return nil
        }
    }
}
