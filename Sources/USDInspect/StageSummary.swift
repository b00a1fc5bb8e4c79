import USDParse
import JSONCore

/// Counts on a composed stage, made the way Pixar's `usd-core` analysis counts them: Mesh prims
/// (instance proxies included), summed `points` and `faceVertexCounts` lengths, Material prims,
/// and the sorted set of texture asset paths (`inputs:file` values). Values are read at the
/// default time code, as usd-core's `Get()` does: an attribute authored only as time samples
/// has no value there and is not counted (the scene reads it at `startTimeCode` instead).
public struct StageSummary {
    public private(set) var primTypes: [String: Int] = [:]
    public private(set) var meshes = 0
    public private(set) var points = 0
    public private(set) var faces = 0
    public private(set) var materials = 0
    public private(set) var textures: [String] = []
    public private(set) var instanceable = 0
    public private(set) var pointInstancers = 0

    /// Counts `stage`, as described above.
    public init(_ stage: UsdStage) {
        var tex: Set<String> = []
        for prim in stage.prims.dropFirst() {
            primTypes[prim.typeName.isEmpty ? "(none)" : prim.typeName, default: 0] += 1
            switch prim.typeName {
            case "Mesh":
                meshes += 1
                if let (_, st, _) = prim.attributes["points"]?.defaultTimeValue?.typed { points += st.count / 3 }
                if let (_, st, _) = prim.attributes["faceVertexCounts"]?.defaultTimeValue?.typed { faces += st.count }
            case "Material": materials += 1
            case "PointInstancer": pointInstancers += 1
            default: break
            }
            if prim.metadata["instanceable"]?.bool == true { instanceable += 1 }
            if let file = prim.attributes["inputs:file"]?.defaultTimeValue {
                switch file {
                case .scalar(.asset, .string(let s)): s.forEach { if !$0.isEmpty { tex.insert($0) } }
                default: break
                }
            }
        }
        textures = tex.sorted()
    }

    /// The counts as `inspect --json` prints them under `usd`.
    public var json: JSONValue {
        .object([
            "prim_types": .object(primTypes.mapValues { .int(Int64($0)) }),
            "meshes": .int(Int64(meshes)),
            "points": .int(Int64(points)),
            "faces": .int(Int64(faces)),
            "materials": .int(Int64(materials)),
            "textures": .array(textures.map(JSONValue.string)),
            "instanceable": .int(Int64(instanceable)),
            "point_instancers": .int(Int64(pointInstancers)),
        ])
    }
}
