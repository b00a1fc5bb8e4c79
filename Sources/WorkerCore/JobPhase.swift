/// The phases of one conversion in the job child, in the order they run: the names `job-exec`
/// reports on its `phase` and `error` lines (`ChildMessage`), the pipeline's errors carry and the
/// child's summary times (`phase_ms`). The daemon folds them onto its steps (`JobStep`).
public enum JobPhase: String, Sendable, CaseIterable {
    /// Reading the input files from disk (before anything is parsed).
    case reading
    /// Parsing the USD and the RoomPlan JSON.
    case parsing
    /// Building the layered scene.
    case layering
    /// Writing the `.glb`.
    case writing
    /// The floor plan files.
    case plan
    /// The thumbnails.
    case preview
    /// The manifest, and writing every output into the output folder.
    case manifest
    /// The conversion report (`report.html`).
    case report

    /// The share of the whole job done when this phase starts (0…1), for progress events; the
    /// daemon's own steps (download, upload, completion) take the rest.
    public var progressAtStart: Double {
        switch self {
        case .reading: return 0
        case .parsing: return 0.1
        case .layering: return 0.4
        case .writing: return 0.55
        case .plan: return 0.62
        case .preview: return 0.7
        case .manifest, .report: return 0.85
        }
    }
}
