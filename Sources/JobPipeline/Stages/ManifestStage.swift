import Manifest
import SceneModel
import WorkerCore

/// The manifest, last: the inputs, the model, the thumbnails, the plan, the redactions and each
/// output group's key (`ArtifactRecord`), serialised by `ManifestBuilder`. Every output is hashed
/// here once; the child reports these digests.
enum ManifestStage {
    /// What the earlier stages made, as the manifest records it.
    struct Input {
        var pipeline: PipelineInput
        var digests: InputDigests
        var keys: ArtifactKeys
        var parsed: ParseStage.Output
        var layered: LayeredScene
        var model: ModelStage.Output
        var plan: PlanStage.Output
        var previews: PreviewStage.Output
    }

    /// What the manifest stage hands on.
    struct Output {
        /// The manifest as typed values.
        var document: ManifestDocument
        /// `layer_manifest.json`: `document.bytes`.
        var bytes: [UInt8]
        /// The thumbnails as listed.
        var thumbnails: [Thumbnail]
        /// Lowercase hexadecimal SHA-256 of the model, the thumbnails and the plan files, by path.
        var digests: [String: String]
    }

    /// Runs the stage as the `manifest` phase, with `run`'s warnings as the manifest's.
    /// - Throws: `PipelineError` with the builder's `MANIFEST_*` codes.
    static func run(_ m: Input, in run: inout PipelineRun) throws(PipelineError) -> Output {
        let thumbnails = m.previews.views.map { v in
            Thumbnail(kind: v.kind.rawValue, path: v.path, width: v.width, height: v.height, bytes: v.webp.count,
                      sha256: Digest.hex(Digest.sha256(v.webp)), camera: v.camera, room: v.room)
        }
        var digests = [OutputName.model: m.model.sha256]
        for t in thumbnails { digests[t.path] = t.sha256 }
        for f in m.plan.files { digests[f.path] = Digest.hex(Digest.sha256(f.bytes)) }
        let glb = m.model.glb
        let warnings = run.warnings
        let (document, bytes) = try run.phase(.manifest) { () throws -> (ManifestDocument, [UInt8]) in
            let document = try ManifestBuilder.document(ManifestInput(
                layered: m.layered, generator: TranscodePipeline.generatorName,
                generatorVersion: TranscodePipeline.generatorVersion, versionId: m.pipeline.versionId,
                roomId: m.pipeline.roomId, inputs: inputFiles(m), glb: artifact(m.model),
                glbNodeIndex: glb.nodeIndex, thumbnails: thumbnails, redactions: m.parsed.redaction.records,
                stats: Stats(meshes: glb.meshCount, triangles: glb.triangleCount, vertices: glb.vertexCount,
                             materials: glb.materialCount, textures: glb.textureCount, glbBytes: glb.bytes.count),
                warnings: warnings, layerPalette: m.model.palette, plan: planRecord(m, digests: digests),
                artifacts: artifacts(m)))
            return (document, document.bytes)
        }
        return Output(document: document, bytes: bytes, thumbnails: thumbnails, digests: digests)
    }

    /// The manifest's `inputs`: each USD file, the RoomPlan JSON, the app's replacement textures.
    static func inputFiles(_ m: Input) -> [InputFile] {
        var inputs: [InputFile] = []
        let format = m.layered.scene.metadata.sourceFormat
        if let usd = m.pipeline.usd {
            for (i, file) in ([usd] + m.pipeline.moreUSD).enumerated() {
                inputs.append(InputFile(role: "usd", name: file.name, format: format, bytes: file.bytes.count,
                                        sha256: m.digests.usdFiles[i]))
            }
        }
        if let json = m.pipeline.roomPlanJSON {
            inputs.append(InputFile(role: "roomplan_json", name: json.name, format: "json", bytes: json.bytes.count,
                                    sha256: m.digests.json ?? ""))
        }
        return inputs + m.parsed.redaction.inputs
    }

    /// The model's record.
    static func artifact(_ model: ModelStage.Output) -> Artifact {
        Artifact(path: OutputName.model, bytes: model.glb.bytes.count, sha256: model.sha256,
                 compression: model.glb.compression.rawValue, extensionsRequired: model.glb.extensionsRequired)
    }

    /// Each output group with its key, stage version, files and warnings.
    static func artifacts(_ m: Input) -> [ArtifactRecord] {
        let planThumbnail = m.plan.thumbnail?.path
        var out = [ArtifactRecord(name: "model", key: m.keys.model, stageVersion: ArtifactStages.model,
                                  files: [OutputName.model], warnings: m.model.glb.warnings)]
        if m.pipeline.thumbnails != nil {
            out.append(ArtifactRecord(name: "thumbnails", key: m.keys.thumbnails, stageVersion: ArtifactStages.render,
                                      files: m.previews.views.map(\.path).filter { $0 != planThumbnail },
                                      warnings: m.previews.warnings))
        }
        if m.pipeline.plan != nil {
            out.append(ArtifactRecord(name: "plan", key: m.keys.plan, stageVersion: ArtifactStages.plan,
                                      files: m.plan.files.map(\.path) + (planThumbnail.map { [$0] } ?? [])))
        }
        return out
    }

    /// The plan's record, when a plan was asked for.
    static func planRecord(_ m: Input, digests: [String: String]) -> PlanRecord? {
        m.pipeline.plan.map { options in
            PlanRecord(
                files: m.plan.files.map { f in
                    PlanRecord.File(path: f.path, mediaType: PlanRecord.File.mediaTypes[f.path] ?? "application/octet-stream",
                                    bytes: f.bytes.count, sha256: digests[f.path] ?? "")
                },
                units: options.units.rawValue, locale: options.locale.rawValue, wallThickness: options.wallThickness,
                sheets: m.plan.stories, note: m.plan.note, rooms: m.plan.rooms, openings: m.plan.openings)
        }
    }
}
