import SceneModel

/// One group of outputs keyed by what made it, as the manifest's `artifacts` records it: the
/// `model` (`model.glb`), the `thumbnails` (`thumbs/*.webp`) or the `plan` (`plan.svg`,
/// `plan.pdf`, `plan.dxf`). A reprocess whose key for a group equals the previous revision's
/// reuses that group's files instead of making them again.
public struct ArtifactRecord: Hashable, Sendable {
    /// `model`, `thumbnails` or `plan` (`ArtifactRecord.names`).
    public var name: String
    /// SHA-256 (64 lowercase hex digits) of everything the group's bytes depend on: the input
    /// files, redactions, options, and the versions of the stages that make it.
    public var key: String
    /// The version of the stage that writes the group (the model writer, the renderer, the plan
    /// writers), also part of `key`.
    public var stageVersion: Int
    /// The group's files, paths relative to the manifest's folder (any order; sorted on output).
    public var files: [String]
    /// The warnings the group's stage added to the manifest's `warnings`, in order.
    public var warnings: [SceneWarning]

    public init(name: String, key: String, stageVersion: Int, files: [String], warnings: [SceneWarning] = []) {
        self.name = name
        self.key = key
        self.stageVersion = stageVersion
        self.files = files
        self.warnings = warnings
    }

    /// The accepted group names, in the order the manifest lists them.
    public static let names = ["model", "thumbnails", "plan"]
}
