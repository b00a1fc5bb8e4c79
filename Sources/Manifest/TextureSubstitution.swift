/// A texture of the source package that was redacted before anything read it, as the manifest's
/// `redactions` list records it: replaced by the app's blurred image, blurred by the worker in the
/// areas the `redactions` rows mark, or both.
public struct TextureSubstitution: Hashable, Sendable {
    /// How one `redactions` row was applied.
    public enum Method: String, Hashable, Sendable {
        /// The app's blurred replacement image was embedded instead of the texture.
        case appReplacement = "app_replacement"
        /// The worker blurred the row's area of the texture (server side).
        case serverBlur = "server_blur"
    }

    /// One `redactions` row and how it was applied.
    public struct Applied: Hashable, Sendable {
        /// The row's id (the manifest never says where the area is).
        public var redactionId: String
        public var methods: [Method]
        public init(redactionId: String, methods: [Method]) {
            self.redactionId = redactionId
            self.methods = methods
        }
    }

    /// Path of the original texture inside the source package, e.g. `0/texture_3.png`.
    public var texturePath: String
    /// File name of the app's replacement embedded instead; nil when there was none.
    public var replacementName: String?
    /// SHA-256 of the replacement bytes, 64 hex digits; nil when there was no replacement.
    public var replacementSHA256: String?
    /// How many redacted areas the backend recorded for this texture (its `redactions` rows; 0 when
    /// the replacement came without a record). A count only: where the areas are is never written.
    public var regions: Int
    /// Each row of this texture and how it was applied, sorted by id.
    public var applied: [Applied]

    /// A redaction record; `regions` ≥ 0 (the manifest builder refuses a negative count).
    public init(texturePath: String, replacementName: String?, replacementSHA256: String?, regions: Int = 0,
                applied: [Applied] = []) {
        self.texturePath = texturePath
        self.replacementName = replacementName
        self.replacementSHA256 = replacementSHA256
        self.regions = regions
        self.applied = applied
    }
}
