import JSONCore

/// What a re-transcode reads of the previous revision's `layer_manifest.json`, typed, in one
/// place: the daemon (which files to fetch and offer), `convert --previous` (which files to read)
/// and the pipeline (which output groups to reuse) all read it through this type. Nothing in it
/// is trusted: every member is optional, a member of the wrong kind reads as absent, and the
/// pipeline checks each reused file's size and SHA-256 against what it fetched.
public struct PreviousManifest: Sendable, Equatable {
    /// An output file as recorded: path relative to the revision, size in bytes, SHA-256.
    public struct File: Sendable, Equatable {
        public var path: String
        public var bytes: Double?
        public var sha256: String?
    }

    /// A view's camera as recorded: world metres, and either a vertical field of view in degrees
    /// or an orthographic half height in metres.
    public struct Camera: Sendable, Equatable {
        public var position: SIMD3<Double>
        public var target: SIMD3<Double>
        public var up: SIMD3<Double>
        public var fovDegrees: Double?
        public var orthoHalfExtent: Double?
    }

    /// A thumbnail as recorded.
    public struct Thumbnail: Sendable, Equatable {
        public var file: File
        public var kind: String?
        public var width: Double?
        public var height: Double?
        /// Nil when it is not a complete camera of exactly one kind.
        public var camera: Camera?
        public var room: String?
    }

    /// A finding recorded with an output group.
    public struct Warning: Sendable, Equatable {
        public var code: String
        public var message: String
        public var primPath: String?
    }

    /// An output group (`artifacts.<name>`): its key and files (nil when any is not a string).
    public struct Group: Sendable, Equatable {
        public var key: String?
        public var files: [String]?
        public var warnings: [Warning]
    }

    /// `schema_version`.
    public var schemaVersion: Double?
    /// `glb`: the model.
    public var model: File?
    public var thumbnails: [Thumbnail] = []
    /// `plan.files`; empty when any of them has no path (the plan is then made again).
    public var planFiles: [File] = []
    /// `artifacts` by group name; nil when the manifest has no `artifacts` object.
    public var groups: [String: Group]?

    /// Reads `manifest` (under `JSONReader.Limits.manifest`); nil when it is not JSON.
    public init?(_ manifest: [UInt8]) {
        guard let m = try? JSONReader.parse(manifest, limits: .manifest) else { return nil }
        schemaVersion = Self.number(m.member("schema_version"))
        model = m.member("glb").flatMap(Self.file)
        if case .array(let list)? = m.member("thumbnails") { thumbnails = list.compactMap(Self.thumbnail) }
        if case .array(let list)? = m.member("plan")?.member("files") {
            let files = list.compactMap(Self.file)
            planFiles = files.count == list.count ? files : []
        }
        if case .object(let members)? = m.member("artifacts") {
            var groups: [String: Group] = [:]
            for member in members { groups[member.key] = Self.group(member.value) }
            self.groups = groups
        }
    }

    /// The files a reuse may take, in the manifest's order, once each: the model, the
    /// thumbnails, the plan files.
    public var fileNames: [String] {
        var names: [String] = []
        for path in (model.map { [$0.path] } ?? []) + thumbnails.map(\.file.path) + planFiles.map(\.path)
        where !names.contains(path) {
            names.append(path)
        }
        return names
    }

    static func text(_ v: ParsedJSON?) -> String? {
        if case .string(let s)? = v { return s }
        return nil
    }

    static func number(_ v: ParsedJSON?) -> Double? {
        if case .number(let n)? = v { return Double(n) }
        return nil
    }

    static func file(_ v: ParsedJSON) -> File? {
        guard let path = text(v.member("path")) else { return nil }
        return File(path: path, bytes: number(v.member("bytes")), sha256: text(v.member("sha256")))
    }

    static func thumbnail(_ v: ParsedJSON) -> Thumbnail? {
        guard let file = file(v) else { return nil }
        return Thumbnail(file: file, kind: text(v.member("kind")), width: number(v.member("width")),
                         height: number(v.member("height")), camera: camera(v.member("camera")), room: text(v.member("room")))
    }

    static func vector(_ v: ParsedJSON?) -> SIMD3<Double>? {
        guard case .array(let a)? = v, a.count == 3, let x = number(a[0]), let y = number(a[1]), let z = number(a[2]) else { return nil }
        return SIMD3(x, y, z)
    }

    static func camera(_ v: ParsedJSON?) -> Camera? {
        guard let v, let position = vector(v.member("position")), let target = vector(v.member("target")),
              let up = vector(v.member("up")) else { return nil }
        let fov = number(v.member("fov_degrees")), ortho = number(v.member("ortho_half_extent"))
        guard (fov == nil) != (ortho == nil) else { return nil }
        return Camera(position: position, target: target, up: up, fovDegrees: fov, orthoHalfExtent: ortho)
    }

    static func group(_ v: ParsedJSON) -> Group {
        var files: [String]?
        if case .array(let list)? = v.member("files") {
            let paths = list.compactMap { text($0) }
            files = paths.count == list.count ? paths : nil
        }
        var warnings: [Warning] = []
        if case .array(let items)? = v.member("warnings") {
            warnings = items.compactMap { w in
                guard let code = text(w.member("code")), let message = text(w.member("message")) else { return nil }
                return Warning(code: code, message: message, primPath: text(w.member("prim_path")))
            }
        }
        return Group(key: text(v.member("key")), files: files, warnings: warnings)
    }
}
