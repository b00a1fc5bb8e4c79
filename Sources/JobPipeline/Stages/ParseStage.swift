import Manifest
import SceneModel
import USDParse

/// Parsing: the USD's container, layers and composition read into one scene (several rooms'
/// files merged), with the app's replacement textures swapped in and the `redactions` rows'
/// areas blurred before anything else reads a texture. A conversion of a RoomPlan JSON alone
/// has no scene.
enum ParseStage {
    /// What parsing hands on.
    struct Output {
        /// The scene, or nil when there is no USD.
        var scene: Scene?
        /// The redactions applied: the manifest's records and input files, and the privacy crops.
        var redaction = RedactionPlan()
    }

    /// Runs the stage as the `parsing` phase.
    /// - Throws: `PipelineError` with the reader's `USD_*` codes and `REDACTION_INVALID`.
    static func run(_ input: PipelineInput, in run: inout PipelineRun) throws(PipelineError) -> Output {
        try run.phase(.parsing) { () throws -> Output in
            guard let usd = input.usd else { return Output() }
            if !input.moreUSD.isEmpty { return Output(scene: try mergedScene([usd] + input.moreUSD, input: input)) }
            return try single(usd, input: input)
        }
    }

    /// One USD file: its stage opened under one memory budget, the redactions applied to its
    /// package entries (or, for a loose layer, to the files the rows name), then the scene built.
    static func single(_ usd: PipelineInput.USDSource, input: PipelineInput) throws -> Output {
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
        let redaction = try redact(input, entries: entries, data: { try? opened.provider.data(at: $0).array })
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
        return Output(scene: scene, redaction: redaction)
    }
}
