/// A texture of the source package that the worker replaced (privacy redaction) before writing the
/// GLB, as the manifest's `redactions` list records it.
public struct TextureSubstitution: Hashable, Sendable {
    /// Path of the original texture inside the source package, e.g. `0/texture_3.png`.
    public var texturePath: String
    /// File name of the replacement image that was embedded instead.
    public var replacementName: String
    /// SHA-256 of the replacement bytes, 64 hex digits (upper case is accepted and written in lower case).
    public var replacementSHA256: String

    /// A redaction record.
    public init(texturePath: String, replacementName: String, replacementSHA256: String) {
        self.texturePath = texturePath
        self.replacementName = replacementName
        self.replacementSHA256 = replacementSHA256
    }
}
