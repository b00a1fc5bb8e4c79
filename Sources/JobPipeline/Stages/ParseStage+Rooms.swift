import SceneModel
import USDParse

/// Several rooms' USD files as one scene.
extension ParseStage {
    /// Each source read as its own stage (with its own memory budget) and the scenes merged.
    /// - Throws: `PipelineError` `REDACTION_INVALID` when redacted textures are given (they
    ///   apply to one USD); the reader's errors.
    static func mergedScene(_ sources: [PipelineInput.USDSource], input: PipelineInput) throws -> Scene {
        guard input.redactedTextures.isEmpty else {
            throw PipelineError(code: PipelineError.Code.redactionInvalid,
                                message: "redacted textures apply to one USD file; \(sources.count) were given", phase: .parsing)
        }
        var scenes: [Scene] = []
        for usd in sources {
            let budget = MemoryBudget(limits: input.limits)
            let opened = try USDParser.openStage(
                usd.bytes, name: usd.name, limits: input.limits, budget: budget, siblings: usd.siblings)
            let provider = opened.provider
            var scene = try SceneBuilder.build(
                stage: opened.stage, sourceFormat: opened.format.rawValue, limits: input.limits, budget: budget,
                loadAsset: { path, layer in
                    guard let resolved = provider.resolve(path, anchor: layer) else { return nil }
                    return try? provider.data(at: resolved).array
                })
            for w in opened.containerWarnings {
                scene.warnings.append(SceneWarning(code: "USD_CONTAINER_WARNING", message: "\(usd.name): \(w)"))
            }
            for w in opened.stage.warnings {
                scene.warnings.append(SceneWarning(code: w.code, message: "\(usd.name): \(w.message)", primPath: w.path))
            }
            scenes.append(scene)
        }
        return Scene.merging(scenes)
    }
}
