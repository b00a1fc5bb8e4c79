/// The names of a job's outputs, relative to its output folder: what the job child writes and
/// reports, and what the daemon checks, uploads, copies from a previous revision and reports.
/// Written here once for both sides.
public enum OutputName {
    /// The layered model.
    public static let model = "model.glb"
    /// The manifest, always written and uploaded last.
    public static let manifest = "layer_manifest.json"
    /// The conversion report (`TRANSCODE_JOB_REPORT`).
    public static let report = "report.html"
    /// The floor plan's files.
    public static let planSVG = "plan.svg"
    public static let planPDF = "plan.pdf"
    public static let planDXF = "plan.dxf"
    /// The plan files in the order they are written.
    public static let planFiles = [planSVG, planPDF, planDXF]
    /// The folder of the thumbnails.
    public static let thumbnailFolder = "thumbs/"
    /// A room's plan thumbnail, drawn with the plan.
    public static let planThumbnail = "thumbs/plan.webp"
    /// The folder of the privacy crops, stored privately (never published).
    public static let privacyFolder = "privacy/"
}
