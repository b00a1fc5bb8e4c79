import GLBWriter
import Layering
import Manifest
import SceneModel
import Thumbnailer
import USDParse
import WorkerCore

/// The one composer of the conversion: parse → layer → write the `.glb` → draw the floor plan →
/// render the thumbnails → build the manifest.
/// `convert` and the queue worker both run exactly this. Pure apart from the progress callback:
/// inputs are bytes, outputs are bytes; the caller reads and writes files.
public enum TranscodePipeline {
    public static let generatorName = "crowdroom-transcode-worker"
    public static var generatorVersion: String { WorkerVersion.string }

    /// Runs the conversion.
    ///
    /// - Parameter progress: called with each phase (`parsing`, `layering`, `writing`, `plan`,
    ///   `preview`, `manifest`) as it starts; `plan` only when the plan is drawn, `preview` only
    ///   when the renderer draws views. (`job-exec --report` adds `report`.)
    /// - Throws: `PipelineError` with the phase and a stable code (the parser's `USD_*` codes,
    ///   Layering's `ROOMPLAN_*` codes, `GLB_*`, `MANIFEST_*`, `INPUT_MISSING`, `REDACTION_INVALID`
    ///   when a replacement texture matches no texture or more than one, `INTERNAL_ERROR`).
    public static func run(_ input: PipelineInput, progress: (JobPhase) -> Void = { _ in }) throws(PipelineError) -> PipelineResult {
        var timings: [(String, Double)] = []
        var warnings: [SceneWarning] = []
        func phase<T>(_ name: JobPhase, _ body: () throws -> T) throws(PipelineError) -> T {
            progress(name)
            let t0 = Clock.now()
            do {
                let v = try body()
                timings.append((name.rawValue, Clock.ms(t0, Clock.now())))
                return v
            } catch {
                throw PipelineError.wrap(error, phase: name)
            }
        }
        guard input.usd != nil || input.roomPlanJSON != nil else {
            throw PipelineError(code: "INPUT_MISSING", message: "a USD file, a RoomPlan JSON or both are needed",
                                phase: .reading)
        }

        // What each output group depends on, and what a reprocess may take from the previous revision.
        let usdSHA256 = input.usd.map { Self.usdDigest([$0] + input.moreUSD) }
        let jsonSHA256 = input.roomPlanJSON.map { Digest.hex(Digest.sha256($0.bytes)) }
        let keys = ArtifactKeys.compute(input, usdSHA256: usdSHA256, jsonSHA256: jsonSHA256)
        let reusable = input.previous?.reusable(keys) ?? PreviousOutputs.Reusable()
        var reused: [String] = []

        // Parsing: container, layers, composition, stage → scene (with redacted textures swapped in).
        var redactions: [TextureSubstitution] = []
        var redactionInputs: [InputFile] = []
        var privacyCrops: [(redactionId: String, webp: [UInt8])] = []
        let scene: Scene? = try phase(.parsing) { () throws -> Scene? in
            guard let usd = input.usd else { return nil }
            if !input.moreUSD.isEmpty { return try Self.mergedScene([usd] + input.moreUSD, input: input) }
            let budget = MemoryBudget(limits: input.limits)
            let opened = try USDParser.openStage(
                usd.bytes, name: usd.name, limits: input.limits, budget: budget, siblings: usd.siblings)
            var entries: [String] = []
            if let package = opened.provider as? USDZPackage {
                entries = package.entryNames
            } else {
                let named = input.redactedTextures.map(\.relativePath) + input.redactionAreas.keys.sorted()
                entries = named.compactMap { opened.provider.resolve($0, anchor: usd.name) }
            }
            let redaction = try Self.redact(input, entries: entries, data: { try? opened.provider.data(at: $0).array })
            redactions = redaction.records
            redactionInputs = redaction.inputs
            privacyCrops = redaction.crops
            let provider = RedactingAssetProvider(base: opened.provider, replacements: redaction.replacements)
            var scene = try SceneBuilder.build(
                stage: opened.stage, sourceFormat: opened.format.rawValue, limits: input.limits, budget: budget,
                loadAsset: { path, layer in
                    guard let resolved = provider.resolve(path, anchor: layer) else { return nil }
                    return try? provider.data(at: resolved).array
                })
            for w in opened.containerWarnings { scene.warnings.append(SceneWarning(code: "USD_CONTAINER_WARNING", message: w)) }
            for w in opened.stage.warnings {
                scene.warnings.append(SceneWarning(code: w.code, message: w.message, primPath: w.path))
            }
            return scene
        }

        // Layering: RoomPlan identity, synthesized geometry, layers, metrics, quality.
        let layered = try phase(.layering) {
            try RoomLayering.layer(scene: scene, capturedRoomJSON: input.roomPlanJSON?.bytes)
        }
        warnings = (scene?.warnings ?? []) + warnings + layered.warnings

        // Writing the .glb (its textures re-encoded as WebP unless asked not to; the thumbnails and
        // the manifest keep using the scene's own).
        var layerPalette: [LayerID: UInt32] = [:]
        let glb = try phase(.writing) {
            var forGLB = layered
            if input.materials == .palette { layerPalette = Self.applyPalette(&forGLB) }
            if input.textureFormat == .webp {
                warnings += Self.reencodeTextures(&forGLB.scene, maxSide: input.maxTextureSize)
            }
            return try GLBWriter.write(
                forGLB,
                options: GLBOptions(
                    generator: "CrowdRoom transcode-worker \(generatorVersion)", compression: input.glbCompression))
        }
        warnings += glb.warnings
        let modelWarnings = glb.warnings

        // The floor plan (rooms only): drawn before the thumbnails, because for a room its cairo
        // raster is the plan thumbnail.
        var plan = PlanOutputs()
        let planSize = input.thumbnails.flatMap { o in
            o.views.contains(.plan)
                ? (width: o.sizes[.plan].width, height: o.sizes[.plan].height, quality: o.webpQuality, segments: o.webpSegments)
                : nil
        }
        if let planOptions = input.plan {
            plan = try phase(.plan) { () throws(PipelineError) -> PlanOutputs in
                try Self.drawPlan(layered, options: planOptions, thumbnail: reusable.planThumbnail == nil ? planSize : nil,
                                  files: reusable.planFiles)
            }
            if reusable.planFiles != nil { reused += plan.files.map(\.path) }
            if let t = reusable.planThumbnail, planSize != nil, !plan.files.isEmpty {
                plan.thumbnail = (t.webp, t.camera)
                reused.append(t.path)
            }
        }

        // Thumbnails (hero, card, orbit, and the plan unless the floor plan drew it) in WebP. A
        // scene with nothing to draw gets none.
        var views: [ThumbnailView] = []
        var renderWarnings: [SceneWarning] = []
        if let previous = reusable.thumbnails {
            views = previous.views
            renderWarnings = previous.warnings
            warnings += renderWarnings
            reused += views.map(\.path)
        } else if var options = input.thumbnails, !options.views.isEmpty {
            if plan.thumbnail != nil { options.views.remove(.plan) }
            if !options.views.isEmpty {
                views = try phase(.preview) { () throws -> [ThumbnailView] in
                    do {
                        let rendered = try Thumbnailer.render(layered, options: options)
                        renderWarnings = rendered.warnings
                        warnings += rendered.warnings
                        return rendered.views
                    } catch let e as ThumbnailerError where e.code == "THUMB_EMPTY_SCENE" {
                        renderWarnings = [SceneWarning(code: "THUMB_SKIPPED", message: e.message)]
                        warnings += renderWarnings
                        return []
                    } catch let e as ThumbnailerError {
                        throw PipelineError(code: e.code, message: e.message, phase: .preview)
                    }
                }
            }
        }
        // A room's plan thumbnail, drawn with the plan (or taken with it from the previous revision).
        let planThumbnailPath = plan.thumbnail != nil && planSize != nil ? PreviousOutputs.planThumbnailPath : nil
        if let t = plan.thumbnail, let size = planSize {
            views.append(ThumbnailView(kind: .plan, path: PreviousOutputs.planThumbnailPath, width: size.width, height: size.height,
                                       webp: t.webp, camera: t.camera))
        }
        let thumbnails = views.map { v in
            Thumbnail(kind: v.kind.rawValue, path: v.path, width: v.width, height: v.height, bytes: v.webp.count,
                      sha256: Digest.hex(Digest.sha256(v.webp)), camera: v.camera, room: v.room)
        }

        // The manifest, last.
        var inputs: [InputFile] = []
        if let usd = input.usd {
            inputs.append(InputFile(role: "usd", name: usd.name, format: layered.scene.metadata.sourceFormat,
                                    bytes: usd.bytes.count, sha256: input.moreUSD.isEmpty ? usdSHA256 ?? "" : Digest.hex(Digest.sha256(usd.bytes))))
            for more in input.moreUSD {
                inputs.append(InputFile(role: "usd", name: more.name, format: layered.scene.metadata.sourceFormat,
                                        bytes: more.bytes.count, sha256: Digest.hex(Digest.sha256(more.bytes))))
            }
        }
        if let json = input.roomPlanJSON {
            inputs.append(InputFile(role: "roomplan_json", name: json.name, format: "json", bytes: json.bytes.count,
                                    sha256: jsonSHA256 ?? ""))
        }
        inputs += redactionInputs
        let glbSHA256 = Digest.hex(Digest.sha256(glb.bytes))
        if let previous = reusable.modelSHA256, previous == glbSHA256 { reused.append("model.glb") }
        var artifacts = [ArtifactRecord(name: "model", key: keys.model, stageVersion: ArtifactStages.model,
                                        files: ["model.glb"], warnings: modelWarnings)]
        if input.thumbnails != nil {
            artifacts.append(ArtifactRecord(name: "thumbnails", key: keys.thumbnails, stageVersion: ArtifactStages.render,
                                            files: views.map(\.path).filter { $0 != planThumbnailPath }, warnings: renderWarnings))
        }
        if input.plan != nil {
            artifacts.append(ArtifactRecord(name: "plan", key: keys.plan, stageVersion: ArtifactStages.plan,
                                            files: plan.files.map(\.path) + (planThumbnailPath.map { [$0] } ?? [])))
        }
        let glbArtifact = Artifact(
            path: "model.glb", bytes: glb.bytes.count, sha256: glbSHA256,
            compression: glb.compression.rawValue, extensionsRequired: glb.extensionsRequired)
        let stats = Stats(meshes: glb.meshCount, triangles: glb.triangleCount, vertices: glb.vertexCount,
                          materials: glb.materialCount, textures: glb.textureCount, glbBytes: glb.bytes.count)
        // Each output is hashed once: for the manifest here, and the child reports these digests.
        var digests = ["model.glb": glbSHA256]
        for t in thumbnails { digests[t.path] = t.sha256 }
        for f in plan.files { digests[f.path] = Digest.hex(Digest.sha256(f.bytes)) }
        let planRecord = input.plan.map { options in
            PlanRecord(
                files: plan.files.map { f in
                    PlanRecord.File(path: f.path, mediaType: PlanRecord.File.mediaTypes[f.path] ?? "application/octet-stream",
                                    bytes: f.bytes.count, sha256: digests[f.path] ?? "")
                },
                units: options.units.rawValue, locale: options.locale.rawValue, wallThickness: options.wallThickness,
                sheets: plan.stories, note: plan.note, rooms: plan.rooms, openings: plan.openings)
        }
        let manifestWarnings = warnings
        let manifest = try phase(.manifest) {
            try ManifestBuilder.build(ManifestInput(
                layered: layered, generator: generatorName, generatorVersion: generatorVersion,
                versionId: input.versionId, roomId: input.roomId, inputs: inputs, glb: glbArtifact,
                glbNodeIndex: glb.nodeIndex, thumbnails: thumbnails, redactions: redactions, stats: stats,
                warnings: manifestWarnings, layerPalette: layerPalette, plan: planRecord, artifacts: artifacts))
        }

        let summary = PipelineSummary(
            layers: layered.layers.map { ($0.id.rawValue, $0.elements.count) },
            elements: layered.elements.count,
            linkedElements: layered.linkedElements,
            synthesizedElements: layered.elements.filter { $0.geometry == .synthesized }.count,
            triangles: glb.triangleCount, vertices: glb.vertexCount, glbBytes: glb.bytes.count,
            manifestBytes: manifest.count, phaseMilliseconds: timings,
            warnings: warnings.map { ($0.code, $0.message, $0.primPath) }, qualityGrade: layered.quality.grade,
            manifestSchemaVersion: ManifestBuilder.schemaVersion,
            thumbnails: thumbnails.map { ($0.path, $0.kind, $0.width, $0.height) })
        let files: [(path: String, bytes: [UInt8])] =
            [("model.glb", glb.bytes)] + views.map { ($0.path, $0.webp) } + plan.files
            + privacyCrops.map { (Self.privacyFolder + $0.redactionId + ".webp", $0.webp) } + [("layer_manifest.json", manifest)]
        return PipelineResult(files: files, summary: summary, reused: Set(reused), digests: digests)
    }

    static func imageFormat(_ bytes: [UInt8]) -> String {
        switch Texture.sniffMIMEType(bytes) {
        case "image/png": return "png"
        case "image/jpeg": return "jpeg"
        case "image/webp": return "webp"
        default: return "unknown"
        }
    }
}
