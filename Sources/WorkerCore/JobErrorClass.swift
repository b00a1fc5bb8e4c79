/// What kind of failure a job child's error is, in the terms the contract's failure reasons sort
/// them: decided by the child where the error is made (from the module error type it came as),
/// sent on its `error` line (`ChildMessage.error`, `"class"`), and turned into the version's
/// failure reason by the daemon with one exhaustive switch (`FailureReason.pipeline`). The daemon
/// never reads the kind out of the code's spelling.
public enum JobErrorClass: String, Sendable, CaseIterable {
    /// The USD could not be read (`USD_*`): `USDZ_PARSE_ERROR`.
    case usd
    /// The RoomPlan JSON could not be read or joined (`ROOMPLAN_*`): `ROOMPLAN_JSON_INVALID`.
    case roomPlan = "roomplan"
    /// The model or the manifest could not be made (`GLB_*`, `MANIFEST_*`): `LAYERING_FAILED`.
    case model
    /// A picture could not be made: thumbnails, the plan's drawing, the report (`THUMB_*`,
    /// `PLAN_*`, `REPORT_*`): `PREVIEW_FAILED`.
    case preview
    /// A redaction cannot be applied (`REDACTION_INVALID`): `REDACTION_INVALID`, never retried.
    case redaction
    /// An input is over its size limit (`IO_TOO_LARGE`): `FILE_TOO_LARGE`, never retried.
    case tooLarge = "too_large"
    /// No input to convert (`INPUT_MISSING`): `SOURCE_NOT_FOUND`, never retried.
    case missingInput = "missing_input"
    /// A fault inside the pipeline (`INTERNAL_ERROR`): `INTERNAL`, retried as the child says.
    case `internal`
    /// The child could not read or write its own work files or set itself up (`IO_*`,
    /// `CHILD_SETUP_FAILED`): `INTERNAL`, always worth another attempt.
    case workFiles = "work_files"
}
