import WorkerCore

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

    /// The child's phases folded onto the steps: `reading` belongs to parsing, `writing` to
    /// layering, `plan`, `manifest` and `report` to preview.
    public init(_ phase: JobPhase) {
        switch phase {
        case .reading, .parsing: self = .parsing
        case .layering, .writing: self = .layering
        case .preview, .plan, .manifest, .report: self = .preview
        }
    }
}
