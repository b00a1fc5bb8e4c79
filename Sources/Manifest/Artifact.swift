/// An output file of the job (the `.glb`), as the manifest's `glb` object records it.
public struct Artifact: Hashable, Sendable {
    /// Path relative to the folder holding `layer_manifest.json`, e.g. `model.glb`.
    public var path: String
    /// Size in bytes.
    public var bytes: Int
    /// SHA-256 of the bytes, 64 hex digits (upper case is accepted and written in lower case).
    public var sha256: String
    /// How the model's geometry is stored: `meshopt` (EXT_meshopt_compression) or `none`.
    public var compression: String
    /// glTF extensions a loader must support to read the model (sorted when written).
    public var extensionsRequired: [String]

    /// An output file record.
    public init(
        path: String, bytes: Int, sha256: String, compression: String = "none", extensionsRequired: [String] = []
    ) {
        self.path = path
        self.bytes = bytes
        self.sha256 = sha256
        self.compression = compression
        self.extensionsRequired = extensionsRequired
    }
}
