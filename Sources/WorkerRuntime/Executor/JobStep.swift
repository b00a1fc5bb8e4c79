/// The steps of one attempt, as the contract names them: a running version's `transcode_phase`,
/// the `step` of its progress events, and the `phase` of a failure.
public enum JobStep: String, Sendable, CaseIterable {
    case downloading
    case parsing
    case layering
    case preview
    case uploadingOutputs = "uploading_outputs"
    case completing
    /// Not an attempt's step: the rescuer failed a version whose attempts were used up by workers
    /// that stopped heartbeating.
    case rescue

    /// The pipeline's own phase names folded onto the steps: `reading` belongs to parsing,
    /// `writing` to layering, `plan`, `manifest` and `report` to preview. A name the pipeline does not use
    /// (a broken child) counts as parsing, where the child starts.
    public init(pipelinePhase: String) {
        switch pipelinePhase {
        case "reading", "parsing": self = .parsing
        case "layering", "writing": self = .layering
        case "preview", "plan", "manifest", "report": self = .preview
        default: self = JobStep(rawValue: pipelinePhase) ?? .parsing
        }
    }
}
