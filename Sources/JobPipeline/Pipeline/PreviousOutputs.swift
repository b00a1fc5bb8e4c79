import FoundationEssentials
import JSONCore
import Manifest
import SceneModel
import Thumbnailer
import WorkerCore
import SourceFiles

/// The previous revision's outputs a reprocess may reuse: its `layer_manifest.json` and the files
/// of its thumbnail and plan groups, by path. Nothing here is trusted: a group is reused only
/// when the manifest is of this schema, its key equals the new one, and every file of the group is
/// present with the size and SHA-256 the manifest records; otherwise the group is made again.
public struct PreviousOutputs: Sendable {
    public var manifest: [UInt8]
    public var files: [String: [UInt8]]

    public init(manifest: [UInt8], files: [String: [UInt8]]) {
        self.manifest = manifest
        self.files = files
    }

    /// What a reprocess may take from the previous revision, once checked. Each group is taken
    /// whole or not at all.
    struct Reusable {
        var thumbnails: (views: [ThumbnailView], warnings: [SceneWarning])?
        var planFiles: [(path: String, bytes: [UInt8])]?
        /// A room's plan thumbnail (drawn with the plan, in the plan group), with `planFiles`.
        var planThumbnail: ThumbnailView?
        /// The previous model's SHA-256 when its key equals the new one.
        var modelSHA256: String?
    }

    /// Reads a previous revision from `directory`: its `layer_manifest.json` and the thumbnail and
    /// plan files it names (each at most `maxBytes`; missing or unreadable ones are left out, so
    /// their group is made again). Nil when there is no readable manifest.
    public static func read(directory: String, maxBytes: Int) -> PreviousOutputs? {
        let root = URL(fileURLWithPath: directory)
        guard let manifest = try? FileReader.read(root.appendingPathComponent("layer_manifest.json").path, maxBytes: maxBytes),
              let m = try? JSONReader.parse(manifest, limits: .manifest) else { return nil }
        var names: [String] = []
        if case .array(let thumbs)? = m.member("thumbnails") { names += thumbs.compactMap { text($0.member("path")) } }
        if case .array(let files)? = m.member("plan")?.member("files") { names += files.compactMap { text($0.member("path")) } }
        var files: [String: [UInt8]] = [:]
        for name in names where OutputDirectory.isPlainRelativePath(name) {
            if let data = try? FileReader.read(root.appendingPathComponent(name).path, maxBytes: maxBytes) { files[name] = data }
        }
        return PreviousOutputs(manifest: manifest, files: files)
    }

    /// The groups of `self` that `keys` allow to reuse (nothing when the manifest does not parse or
    /// is of another schema).
    func reusable(_ keys: ArtifactKeys) -> Reusable {
        var out = Reusable()
        guard let m = try? JSONReader.parse(manifest, limits: .manifest),
              Self.number(m.member("schema_version")) == Double(ManifestBuilder.schemaVersion),
              case .object? = m.member("artifacts") else { return out }
        let artifacts = m.member("artifacts")
        func group(_ name: String, key: String) -> [String]? {
            guard let g = artifacts?.member(name), Self.text(g.member("key")) == key,
                  case .array(let files)? = g.member("files") else { return nil }
            let paths = files.compactMap(Self.text)
            return paths.count == files.count ? paths : nil
        }
        func verified(_ path: String, bytes: Double?, sha256: String?) -> [UInt8]? {
            guard let data = files[path], let sha256, bytes == Double(data.count),
                  Digest.hex(Digest.sha256(data)) == sha256 else { return nil }
            return data
        }
        if group("model", key: keys.model) != nil { out.modelSHA256 = Self.text(m.member("glb")?.member("sha256")) }
        var records: [ParsedJSON] = []
        if case .array(let list)? = m.member("thumbnails") { records = list }
        /// The thumbnail recorded at `path`, its bytes checked; nil when it is not all there.
        func view(_ r: ParsedJSON) -> ThumbnailView? {
            guard let path = Self.text(r.member("path")), let kind = Self.text(r.member("kind")).flatMap(ThumbnailView.Kind.init),
                  let width = Self.number(r.member("width")), let height = Self.number(r.member("height")),
                  let camera = Self.camera(r.member("camera")),
                  let data = verified(path, bytes: Self.number(r.member("bytes")), sha256: Self.text(r.member("sha256")))
            else { return nil }
            return ThumbnailView(kind: kind, path: path, width: Int(width), height: Int(height), webp: data, camera: camera,
                                 room: Self.text(r.member("room")))
        }
        if let paths = group("thumbnails", key: keys.thumbnails) {
            let mine = records.filter { Self.text($0.member("path")).map(paths.contains) ?? false }
            let views = mine.compactMap(view)
            if views.count == mine.count, Set(views.map(\.path)) == Set(paths) {
                out.thumbnails = (views, Self.warnings(artifacts?.member("thumbnails")?.member("warnings")))
            }
        }
        if var paths = group("plan", key: keys.plan) {
            var thumbnail: ThumbnailView?
            let wantsThumbnail = paths.contains(Self.planThumbnailPath)
            if wantsThumbnail {
                paths.removeAll { $0 == Self.planThumbnailPath }
                thumbnail = records.first { Self.text($0.member("path")) == Self.planThumbnailPath }.flatMap(view)
            }
            var reused: [(path: String, bytes: [UInt8])] = []
            if case .array(let files)? = m.member("plan")?.member("files") {
                for r in files {
                    guard let path = Self.text(r.member("path")),
                          let data = verified(path, bytes: Self.number(r.member("bytes")), sha256: Self.text(r.member("sha256")))
                    else { reused = []; break }
                    reused.append((path, data))
                }
            }
            let order = ["plan.svg", "plan.pdf", "plan.dxf"]
            reused.sort { (order.firstIndex(of: $0.path) ?? order.count, $0.path) < (order.firstIndex(of: $1.path) ?? order.count, $1.path) }
            if Set(reused.map(\.path)) == Set(paths), !paths.isEmpty, !wantsThumbnail || thumbnail != nil {
                out.planFiles = reused
                out.planThumbnail = thumbnail
            }
        }
        return out
    }

    /// Where a room's plan thumbnail is (in the plan group).
    static let planThumbnailPath = "thumbs/plan.webp"

    static func text(_ v: ParsedJSON?) -> String? {
        if case .string(let s)? = v { return s }
        return nil
    }

    static func number(_ v: ParsedJSON?) -> Double? {
        if case .number(let n)? = v { return Double(n) }
        return nil
    }

    static func vector(_ v: ParsedJSON?) -> SIMD3<Double>? {
        guard case .array(let a)? = v, a.count == 3, let x = number(a[0]), let y = number(a[1]), let z = number(a[2]) else { return nil }
        return SIMD3(x, y, z)
    }

    static func camera(_ v: ParsedJSON?) -> ViewCamera? {
        guard let v, let position = vector(v.member("position")), let target = vector(v.member("target")),
              let up = vector(v.member("up")) else { return nil }
        let fov = number(v.member("fov_degrees")), ortho = number(v.member("ortho_half_extent"))
        guard (fov == nil) != (ortho == nil) else { return nil }
        return ViewCamera(position: position, target: target, up: up, fovDegrees: fov, orthoHalfExtent: ortho)
    }

    static func warnings(_ v: ParsedJSON?) -> [SceneWarning] {
        guard case .array(let items)? = v else { return [] }
        return items.compactMap { w in
            guard let code = text(w.member("code")), let message = text(w.member("message")) else { return nil }
            return SceneWarning(code: code, message: message, primPath: text(w.member("prim_path")))
        }
    }
}
