import FloorPlan
import FoundationEssentials
import Thumbnailer
import WorkerCore

/// The versions of the stages that write each output group. A version is part of its group's key,
/// so a change that alters a stage's output bytes must bump it: then a reprocess makes the group
/// again, and leaves the others as they are. `SampleOutputGoldenTests` holds every version beside
/// the pinned hashes of the files it makes and fails when hashes change under the same version.
public enum ArtifactStages {
    /// Reading the USD and the RoomPlan JSON, and layering: the scene every group is made from.
    /// 2: a `CapturedStructure` is read with its rooms (every `coreModel` skipped, elements
    /// assigned to rooms), and several rooms of one frame are merged into one structure. 3: a
    /// home's room floors levelled within each story, its walls scanned from both sides counted
    /// once (and in the model each cut back to the centre line between the two faces), and each
    /// room graded.
    public static let scene = 3
    /// The `.glb` writer (`model`). 2: node names that loaders keep (`NodeName`: `layer_walls`
    /// instead of `layer:walls`, only `A–Z a–z 0–9 _ -`, unique). 3: an element of a structure
    /// names its room in its extras (`room`). 4: the copies of one catalog model that each object
    /// of a `.model` export composes, each with its own copy of the model's material, are stored as
    /// one mesh (meshes were compared by scene material instead of the glTF material written), and
    /// the position grid keeps the 1 mm bound as each mesh is drawn (a catalog model in centimetres
    /// drawn at 0.01 on a grid 64 times coarser, a mesh drawn enlarged on a finer one); a wall of a home
    /// scanned from both sides names the other room's wall (`sharedWith`), and the rooms' floors sit
    /// at their story's level.
    public static let model = 4
    /// The thumbnail renderer and its WebP encoding (`thumbnails`, and the plan thumbnail of a
    /// room, which is in the `plan` group). 2: adaptive supersampling. 3: one WebP segment at
    /// quality 75 by default, eight occlusion samples per pixel. 4: a magnified texture's
    /// variation no longer sends pixels to the full sample rate. 5: a home's views frame every room
    /// with its walls cut low (a dollhouse), and each of its rooms gets a top-down card. 6: the
    /// card and the orbit frames at 1320 × 990 (the hero is the card), a small card, and views
    /// over 1024 pixels a side drawn with 2 × 2 samples at edges and occlusion at a quarter of
    /// their resolution.
    public static let render = 6
    /// The floor plan: its geometry, the SVG, PDF and DXF writers and a room's plan thumbnail
    /// (`plan`). 2: labels kept from covering one another. 3: sheets turned square to the walls.
    /// 4: dimension texts kept off footprints, walls and windows where they can be. 5: vertical
    /// texts read from the bottom up. 6: dimension texts kept off door leaves and the other
    /// dimensions' lines too, and from moving onto another dimension's text. 7: a dimension text
    /// may turn over to the other side of its line. 8: a wall's dimension is drawn on the other
    /// side of the wall when its text has no clear place or its line crosses a shape or a label,
    /// and the other side is clear. 9: a structure's rooms are its RoomPlan room floors, each
    /// outlined and named (numbered when repeated), instead of one floor cut between sections.
    /// 10: a single room's plan changes too: doors wider than 1.2 m get two leaves (over 2.4 m
    /// an open passage), a leaf whose swing would cross furniture is hinged or swung the other
    /// way, openings under 0.1 m are not drawn; a home gets one wall where two rooms meet, its
    /// rooms' sizes in their labels, overall dimensions and a schedule page.
    public static let plan = 10
}

/// The key of each output group: SHA-256 over a canonical text of everything the group's bytes
/// depend on (input hashes, redactions, ids, options and stage versions), one `name=value` line
/// each. Equal keys mean equal bytes for the same build.
struct ArtifactKeys: Equatable {
    var model: String
    var thumbnails: String
    var plan: String

    /// The keys of `input` whose USD and JSON hash to `usdSHA256` and `jsonSHA256`.
    static func compute(_ input: PipelineInput, usdSHA256: String?, jsonSHA256: String?) -> ArtifactKeys {
        var common = [
            "scene=\(ArtifactStages.scene)",
            "usd=\(([input.usd].compactMap { $0 } + input.moreUSD).map(\.name).joined(separator: "+"))|\(usdSHA256 ?? "")",
            "json=\(input.roomPlanJSON?.name ?? "")|\(jsonSHA256 ?? "")",
            "version=\(input.versionId ?? "")", "room=\(input.roomId ?? "")",
        ]
        for t in input.redactedTextures.sorted(by: { $0.relativePath < $1.relativePath }) {
            common.append("redacted=\(t.relativePath)|\(Digest.hex(Digest.sha256(t.bytes)))")
        }
        for (path, n) in input.redactionRegions.sorted(by: { $0.key < $1.key }) { common.append("regions=\(path)|\(n)") }
        // The areas the worker blurs change the texture every output shows.
        for (path, rows) in input.redactionAreas.sorted(by: { $0.key < $1.key }) {
            for row in rows where row.regionJSON != nil {
                common.append("area=\(path)|\(row.id)|\(row.regionJSON ?? "")|\(row.fromBottom ? "bottom_left" : "top_left")|\(TextureRedactor.stageVersion)")
            }
        }
        let model = common + [
            "model=\(ArtifactStages.model)", "compression=\(input.glbCompression.rawValue)",
            "textures=\(input.textureFormat.rawValue)|\(input.maxTextureSize)", "materials=\(input.materials.rawValue)",
        ]
        // A room's plan thumbnail is drawn with the plan (cairo) and belongs to the plan group, so
        // its size, quality and encoder count there; the other views never depend on the plan's
        // options, only on whether the plan draws the plan view (else the renderer does).
        var planThumbnail = "none"
        if let o = input.thumbnails, o.views.contains(.plan) {
            let size = o.sizes[.plan]
            planThumbnail = "\(size.width)x\(size.height)|\(o.webpQuality)|\(o.webpSegments)|render=\(ArtifactStages.render)"
        }
        let plan = common + ["plan=\(ArtifactStages.plan)", "plan-options=\(describe(input.plan))", "plan-thumbnail=\(planThumbnail)"]
        let thumbnails = common + ["render=\(ArtifactStages.render)", "thumbnail-options=\(describe(input.thumbnails))",
                                   "plan-drawn=\(input.plan != nil)"]
        return ArtifactKeys(model: hash("model", model), thumbnails: hash("thumbnails", thumbnails), plan: hash("plan", plan))
    }

    static func hash(_ group: String, _ lines: [String]) -> String {
        Digest.hex(Digest.sha256(Array(([group] + lines).joined(separator: "\n").utf8)))
    }

    static func describe(_ o: PlanOptions?) -> String {
        guard let o else { return "none" }
        return "\(o.units.rawValue)|\(o.locale.rawValue)|\(o.wallThickness)|\(o.minimumDimensionedWall)"
    }

    static func describe(_ o: ThumbnailOptions?) -> String {
        guard let o else { return "none" }
        let sizes = [o.sizes.hero, o.sizes.card, o.sizes.orbit, o.sizes.plan, o.sizes.roomCard, o.sizes.cardSmall]
            .map { "\($0.width)x\($0.height)" }
        return [o.views.map(\.rawValue).sorted().joined(separator: ","), "\(o.webpQuality)", "\(o.supersampling)",
                sizes.joined(separator: ","), "\(o.webpMethod)", "\(o.textureMemoryBudget)", "\(o.maxWorkingTextureSize)",
                o.adaptiveSupersampling ? "adaptive" : "full-rate", "segments=\(o.webpSegments)"]
            .joined(separator: "|")
    }
}
