/// An output file of the job (the `.glb`), as the manifest's `glb` object records it.
public struct Artifact: Hashable, Sendable {
    /// Path relative to the folder holding `layer_manifest.json`, e.g. `model.glb`.
    public var path: String
    /// Size in bytes.
    public var bytes: Int
    /// SHA-256 of the bytes, 64 hex digits (upper case is accepted and written in lower case).
    public var sha256: String

    /// An output file record.
    public init(path: String, bytes: Int, sha256: String) {
        self.path = path
        self.bytes = bytes
        self.sha256 = sha256
    }
}
