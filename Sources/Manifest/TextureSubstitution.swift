/// A texture of the source package that the worker replaced (privacy redaction) before writing the
/// GLB, as the manifest's `redactions` list records it.
public struct TextureSubstitution: Hashable, Sendable {
    /// Path of the original texture inside the source package, e.g. `0/texture_3.png`.
    public var texturePath: String
    /// File name of the replacement image that was embedded instead.
    public var replacementName: String
    /// SHA-256 of the replacement bytes, 64 hex digits (upper case is accepted and written in lower case).
    public var replacementSHA256: String
    /// How many redacted areas the backend recorded for this texture (its `redactions` rows; 0 when
    /// the replacement came without a record). A count only: where the areas are is never written.
    public var regions: Int

    /// A redaction record; `regions` ≥ 0 (the manifest builder refuses a negative count).
    public init(texturePath: String, replacementName: String, replacementSHA256: String, regions: Int = 0) {
        self.texturePath = texturePath
        self.replacementName = replacementName
        self.replacementSHA256 = replacementSHA256
        self.regions = regions
    }
}
