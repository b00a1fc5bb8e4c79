import Manifest
import SceneModel
import WorkerCore

/// What a conversion produced: the files to store (relative paths, manifest last) and a summary.
public struct PipelineResult: Sendable {
    /// Output files in write order; `layer_manifest.json` is last so that a visible manifest
    /// implies every other file is complete.
    public var files: [(path: String, bytes: [UInt8])]
    public var summary: PipelineSummary
    /// The paths of `files` taken unchanged from `PipelineInput.previous` (their bytes equal the
    /// previous revision's: the worker copies them in storage instead of uploading them).
    public var reused: Set<String> = []
    /// The lowercase hexadecimal SHA-256 of the files already hashed for the manifest, by path
    /// (the model, the thumbnails, the plan files), so that no output is hashed twice.
    public var digests: [String: String] = [:]
    /// The manifest as typed values (`layer_manifest.json`'s bytes are `manifest.bytes`); nil for a
    /// result put together by other means, which then has no report.
    public var manifest: ManifestDocument?
}

/// Counts, sizes, timings and warnings of one conversion.
public struct PipelineSummary: Sendable {
    public var layers: [(id: String, elements: Int)]
    public var elements: Int
    /// JSON elements joined to a USD element (`LayeredScene.linkedElements`), not elements with
    /// USD geometry: a USD element without a JSON one is not linked.
    public var linkedElements: Int
    public var synthesizedElements: Int
    public var triangles: Int
    public var vertices: Int
    public var glbBytes: Int
    public var manifestBytes: Int
    /// Milliseconds per phase, in phase order.
    public var phaseMilliseconds: [(phase: JobPhase, ms: Double)]
    public var warnings: [(code: String, message: String, path: String?)]
    public var qualityGrade: String?
    /// `schema_version` of the manifest written.
    public var manifestSchemaVersion: Int
    /// The thumbnails the manifest lists: path relative to the output directory, kind, pixels.
    public var thumbnails: [(path: String, kind: String, width: Int, height: Int)]
}

extension PipelineSummary {
    /// The summary of a run whose stages made `layered`, `model` and `manifest`.
    init(run: PipelineRun, layered: LayeredScene, model: ModelStage.Output, manifest: ManifestStage.Output) {
        let glb = model.glb
        self.init(
            layers: layered.layers.map { ($0.id.rawValue, $0.elements.count) },
            elements: layered.elements.count,
            linkedElements: layered.linkedElements,
            synthesizedElements: layered.elements.filter { $0.geometry == .synthesized }.count,
            triangles: glb.triangleCount, vertices: glb.vertexCount, glbBytes: glb.bytes.count,
            manifestBytes: manifest.bytes.count, phaseMilliseconds: run.timings,
            warnings: run.warnings.map { ($0.code, $0.message, $0.primPath) }, qualityGrade: layered.quality.grade,
            manifestSchemaVersion: ManifestBuilder.schemaVersion,
            thumbnails: manifest.thumbnails.map { ($0.path, $0.kind, $0.width, $0.height) })
    }
}

extension JobSummary {
    /// The `done` line's summary of `result`.
    public init(_ result: PipelineResult) {
        let s = result.summary
        var phases: [JobPhase: Double] = [:]
        for (phase, ms) in s.phaseMilliseconds where phases[phase] == nil { phases[phase] = ms }
        self.init(phaseMilliseconds: phases, layers: s.layers.count, elements: s.elements, triangles: s.triangles,
                  vertices: s.vertices, warnings: s.warnings.count, qualityGrade: s.qualityGrade,
                  manifestSchemaVersion: s.manifestSchemaVersion, reused: result.reused.sorted(),
                  thumbnails: s.thumbnails.map { Thumbnail(path: $0.path, kind: $0.kind, width: $0.width, height: $0.height) })
    }
}
