import WorkerCore

/// The one composer of a conversion, as a list of stages, each a function from typed input to
/// typed output in its own file (`Stages/`): parse → layer → model (`.glb`) → plan → preview →
/// manifest. (`job-exec --report` and `convert --report` add the report, `ReportBuilder`.)
/// `convert` and the job child both run exactly this. Pure apart from the progress callback:
/// inputs are bytes, outputs are bytes; the caller reads and writes files.
public enum TranscodePipeline {
    public static let generatorName = "crowdroom-transcode-worker"
    public static var generatorVersion: String { WorkerVersion.string }

    /// Runs the conversion.
    ///
    /// - Parameter progress: called with each phase (`parsing`, `layering`, `writing`, `plan`,
    ///   `preview`, `manifest`) as it starts; `plan` only when the plan is drawn, `preview` only
    ///   when the renderer draws views.
    /// - Throws: `PipelineError` with the phase and a stable code (the parser's `USD_*` codes,
    ///   Layering's `ROOMPLAN_*` codes, `GLB_*`, `PLAN_RENDER_FAILED`, `THUMB_*`, `MANIFEST_*`,
    ///   `INPUT_MISSING`, `REDACTION_INVALID` when a replacement texture matches no texture or more
    ///   than one, `INTERNAL_ERROR`).
    public static func run(_ input: PipelineInput, progress: @escaping (JobPhase) -> Void = { _ in }) throws(PipelineError) -> PipelineResult {
        guard input.usd != nil || input.roomPlanJSON != nil else {
            throw PipelineError(code: PipelineError.Code.inputMissing, message: "a USD file, a RoomPlan JSON or both are needed",
                                phase: .reading)
        }
        var run = PipelineRun(progress: progress)
        // What each output group depends on, and what a reprocess may take from the previous revision.
        let digests = InputDigests(input)
        let keys = ArtifactKeys.compute(input, usdSHA256: digests.usd, jsonSHA256: digests.json)
        let reusable = input.previous?.reusable(keys) ?? PreviousOutputs.Reusable()

        let parsed = try ParseStage.run(input, in: &run)
        let layered = try LayerStage.run(parsed, input: input, in: &run)
        // Textures decoded for the model are decoded once: the renderer takes them.
        var model = try ModelStage.run(
            layered, input: input, shareDecodes: PreviewStage.sharedDecodeCapacity(input, reusable: reusable), in: &run)
        if reusable.modelSHA256 == model.sha256 { run.reused.append(OutputName.model) }
        let plan = try PlanStage.run(layered, input: input, reusable: reusable, in: &run)
        let previews = try PreviewStage.run(
            layered, input: input, plan: plan, reusable: reusable, sharing: model.takeDecodes(), in: &run)
        let manifest = try ManifestStage.run(ManifestStage.Input(
            pipeline: input, digests: digests, keys: keys, parsed: parsed, layered: layered, model: model,
            plan: plan, previews: previews), in: &run)

        let files: [(path: String, bytes: [UInt8])] =
            [(OutputName.model, model.glb.bytes)] + previews.views.map { ($0.path, $0.webp) } + plan.files
            + parsed.redaction.crops.map { (OutputName.privacyFolder + $0.redactionId + ".webp", $0.webp) }
            + [(OutputName.manifest, manifest.bytes)]
        return PipelineResult(files: files, summary: PipelineSummary(run: run, layered: layered, model: model, manifest: manifest),
                              reused: Set(run.reused), digests: manifest.digests, manifest: manifest.document)
    }
}
