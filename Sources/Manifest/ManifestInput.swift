import SceneModel

/// Everything `ManifestBuilder` needs to describe one transcode job's outputs. Pure values: the
/// composer gathers them (hashes, sizes, the GLB writer's node map, the thumbnails' cameras) and
/// the builder turns them into `layer_manifest.json` bytes.
public struct ManifestInput: Hashable, Sendable {
    /// The layered room the GLB was written from (source units come from `layered.scene.metadata`).
    public var layered: LayeredScene
    /// Name of the producing program, e.g. `crowdroom-transcode-worker`.
    public var generator: String
    /// Version of the producing program, e.g. `0.1.0`.
    public var generatorVersion: String
    /// `room_versions.id` (a UUID); nil for offline conversions.
    public var versionId: String?
    /// `rooms.id` (a UUID); nil for offline conversions.
    public var roomId: String?
    /// The source files read (any order; the manifest sorts them).
    public var inputs: [InputFile]
    /// The written `.glb`.
    public var glb: Artifact
    /// glTF node index of each scene node the GLB writer wrote (layer and element nodes at least).
    public var glbNodeIndex: [NodeIndex: Int]
    /// Rendered thumbnails with their cameras (any order; may be empty).
    public var thumbnails: [Thumbnail]
    /// Textures replaced by redaction (any order).
    public var redactions: [TextureSubstitution]
    /// Figures of the written GLB.
    public var stats: Stats
    /// Every warning of the pipeline (parse, layering, writing, rendering), in order.
    public var warnings: [SceneWarning]
    /// The colour (sRGB hex) the model's untextured materials of each layer took, when the
    /// category palette was applied; layers not listed have none.
    public var layerPalette: [LayerID: UInt32]
    /// The floor plan: its files, options and rooms; nil when no plan was asked for.
    public var plan: PlanRecord?
    /// The output groups keyed by what made them (any order; at most one per name).
    public var artifacts: [ArtifactRecord] = []

    /// The input of one manifest; lists may be given in any order (the manifest sorts them).
    public init(
        layered: LayeredScene, generator: String = "crowdroom-transcode-worker", generatorVersion: String,
        versionId: String? = nil, roomId: String? = nil, inputs: [InputFile] = [], glb: Artifact,
        glbNodeIndex: [NodeIndex: Int], thumbnails: [Thumbnail] = [], redactions: [TextureSubstitution] = [],
        stats: Stats, warnings: [SceneWarning] = [], layerPalette: [LayerID: UInt32] = [:], plan: PlanRecord? = nil,
        artifacts: [ArtifactRecord] = []
    ) {
        self.plan = plan
        self.artifacts = artifacts
        self.layerPalette = layerPalette
        self.layered = layered
        self.generator = generator
        self.generatorVersion = generatorVersion
        self.versionId = versionId
        self.roomId = roomId
        self.inputs = inputs
        self.glb = glb
        self.glbNodeIndex = glbNodeIndex
        self.thumbnails = thumbnails
        self.redactions = redactions
        self.stats = stats
        self.warnings = warnings
    }

    /// The source's up axis and metres per unit, as read from `layered.scene.metadata`.
    public var sourceUnits: (upAxis: SceneMetadata.UpAxis, metersPerUnit: Double) {
        (layered.scene.metadata.sourceUpAxis, layered.scene.metadata.sourceMetersPerUnit)
    }
}
