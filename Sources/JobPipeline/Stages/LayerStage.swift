import Layering
import SceneModel

/// Layering: the RoomPlan identity joined to the scene, synthesized geometry, the layers, metrics
/// and the quality grade (`RoomLayering`).
enum LayerStage {
    /// Runs the stage as the `layering` phase, and adds the scene's warnings and then the
    /// layering's to `run`.
    /// - Throws: `PipelineError` with Layering's `ROOMPLAN_*` codes.
    static func run(_ parsed: ParseStage.Output, input: PipelineInput, in run: inout PipelineRun)
        throws(PipelineError) -> LayeredScene
    {
        let layered = try run.phase(.layering) {
            try RoomLayering.layer(scene: parsed.scene, capturedRoomJSON: input.roomPlanJSON?.bytes)
        }
        run.warnings += (parsed.scene?.warnings ?? []) + layered.warnings
        return layered
    }
}
