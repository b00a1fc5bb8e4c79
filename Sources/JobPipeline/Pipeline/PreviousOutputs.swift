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
        guard let manifest = try? FileReader.read(root.appendingPathComponent(OutputName.manifest).path, maxBytes: maxBytes),
              let m = PreviousManifest(manifest) else { return nil }
        var files: [String: [UInt8]] = [:]
        for name in m.thumbnails.map(\.file.path) + m.planFiles.map(\.path) where OutputDirectory.isPlainRelativePath(name) {
            if let data = try? FileReader.read(root.appendingPathComponent(name).path, maxBytes: maxBytes) { files[name] = data }
        }
        return PreviousOutputs(manifest: manifest, files: files)
    }

    /// The groups of `self` that `keys` allow to reuse (nothing when the manifest does not parse or
    /// is of another schema).
    func reusable(_ keys: ArtifactKeys) -> Reusable {
        var out = Reusable()
        guard let m = PreviousManifest(manifest), m.schemaVersion == Double(ManifestBuilder.schemaVersion),
              let groups = m.groups else { return out }
        func group(_ name: String, key: String) -> [String]? {
            guard let g = groups[name], g.key == key else { return nil }
            return g.files
        }
        func verified(_ file: PreviousManifest.File) -> [UInt8]? {
            guard let data = files[file.path], let sha256 = file.sha256, file.bytes == Double(data.count),
                  Digest.hex(Digest.sha256(data)) == sha256 else { return nil }
            return data
        }
        if group("model", key: keys.model) != nil { out.modelSHA256 = m.model?.sha256 }
        /// The thumbnail recorded, its bytes checked; nil when it is not all there.
        func view(_ r: PreviousManifest.Thumbnail) -> ThumbnailView? {
            guard let kind = r.kind.flatMap(ThumbnailView.Kind.init), let width = r.width, let height = r.height,
                  let c = r.camera, let data = verified(r.file) else { return nil }
            let camera = ViewCamera(position: c.position, target: c.target, up: c.up, fovDegrees: c.fovDegrees,
                                    orthoHalfExtent: c.orthoHalfExtent)
            return ThumbnailView(kind: kind, path: r.file.path, width: Int(width), height: Int(height), webp: data, camera: camera,
                                 room: r.room)
        }
        if let paths = group("thumbnails", key: keys.thumbnails) {
            let mine = m.thumbnails.filter { paths.contains($0.file.path) }
            let views = mine.compactMap(view)
            if views.count == mine.count, Set(views.map(\.path)) == Set(paths) {
                let warnings = (groups["thumbnails"]?.warnings ?? []).map {
                    SceneWarning(code: $0.code, message: $0.message, primPath: $0.primPath)
                }
                out.thumbnails = (views, warnings)
            }
        }
        if var paths = group("plan", key: keys.plan) {
            var thumbnail: ThumbnailView?
            let wantsThumbnail = paths.contains(OutputName.planThumbnail)
            if wantsThumbnail {
                paths.removeAll { $0 == OutputName.planThumbnail }
                thumbnail = m.thumbnails.first { $0.file.path == OutputName.planThumbnail }.flatMap(view)
            }
            var reused: [(path: String, bytes: [UInt8])] = []
            for f in m.planFiles {
                guard let data = verified(f) else { reused = []; break }
                reused.append((f.path, data))
            }
            let order = [OutputName.planSVG, OutputName.planPDF, OutputName.planDXF]
            reused.sort { (order.firstIndex(of: $0.path) ?? order.count, $0.path) < (order.firstIndex(of: $1.path) ?? order.count, $1.path) }
            if Set(reused.map(\.path)) == Set(paths), !paths.isEmpty, !wantsThumbnail || thumbnail != nil {
                out.planFiles = reused
                out.planThumbnail = thumbnail
            }
        }
        return out
    }

}
