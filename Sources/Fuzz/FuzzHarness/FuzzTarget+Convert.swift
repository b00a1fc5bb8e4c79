import Thumbnailer
import USDParse
import JobPipeline

extension FuzzTarget {
    /// The whole `convert` pipeline in memory: parse → layer → `.glb` → floor plan → small
    /// thumbnails → manifest. The input is split by `FuzzSections`: the first file is the USD input, unless it
    /// starts with `{` (then it is the RoomPlan JSON alone); a later file named `*.json` is the
    /// RoomPlan JSON, files under `redacted/` are redacted textures, the others sit beside the USD
    /// file.
    public static let convert = FuzzTarget(
        name: "convert", summary: "the convert pipeline in memory (input: USD bytes, FuzzSections for JSON and siblings)"
    ) { bytes in
        let files = FuzzSections.split(bytes)
        var usd: PipelineInput.USDSource? = nil
        var json: (name: String, bytes: [UInt8])? = nil
        var redacted: [PipelineInput.RedactedTexture] = []
        var siblings: [String: [UInt8]] = [:]
        for (i, f) in files.enumerated() {
            if i == 0 && f.bytes.first == UInt8(ascii: "{") {
                json = ("room.json", f.bytes)
            } else if i == 0 {
                usd = .init(name: f.name, bytes: ByteView(f.bytes))
            } else if f.name.hasSuffix(".json") {
                json = (f.name, f.bytes)
            } else if f.name.hasPrefix("redacted/") {
                redacted.append(.init(relativePath: String(f.name.dropFirst("redacted/".count)), bytes: f.bytes))
            } else {
                siblings[f.name] = f.bytes
            }
        }
        if !siblings.isEmpty, let root = usd {
            usd = .init(name: root.name, bytes: root.bytes, siblings: InMemoryAssetProvider(files: siblings))
        }
        let size = ThumbnailSize(width: 24, height: 16)
        let thumbnails = ThumbnailOptions(
            supersampling: 1, sizes: .init(hero: size, card: size, orbit: size, plan: size), webpMethod: 0)
        let input = PipelineInput(
            usd: usd, roomPlanJSON: json, redactedTextures: redacted,
            thumbnails: thumbnails)
        do {
            let result = try TranscodePipeline.run(input)
            return .accepted(
                summary: "\(result.files.count) files, \(result.summary.triangles) triangles, "
                    + "\(result.summary.warnings.count) warnings")
        } catch {
            return .refused(error)
        }
    }
}
