import SceneModel
import WorkerCore

/// The bookkeeping of one conversion that every stage shares: the progress callback, each phase's
/// time and the warnings in the order the stages found them. A stage times its work with `phase`,
/// which also turns any module's error into a `PipelineError` of that phase.
struct PipelineRun {
    /// Called with each phase as it starts.
    let progress: (JobPhase) -> Void
    /// Milliseconds per phase that ran to its end, in the order they ran.
    var timings: [(phase: JobPhase, ms: Double)] = []
    /// Every stage's warnings, in the order found: the scene's, the layering's, the model's
    /// (textures kept, then the writer's), the renderer's.
    var warnings: [SceneWarning] = []
    /// Output paths whose bytes are the previous revision's (see `PipelineResult.reused`).
    var reused: [String] = []

    /// Runs `body` as `name`: reports it, times it, and wraps what it throws (`PipelineError.wrap`).
    mutating func phase<T>(_ name: JobPhase, _ body: () throws -> T) throws(PipelineError) -> T {
        progress(name)
        let t0 = Clock.now()
        do {
            let value = try body()
            timings.append((name, Clock.ms(t0, Clock.now())))
            return value
        } catch {
            throw PipelineError.wrap(error, phase: name)
        }
    }
}
