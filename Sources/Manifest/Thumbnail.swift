/// A rendered preview image of the room, as the manifest's `thumbnails` list records it.
public struct Thumbnail: Hashable, Sendable {
    /// `hero` (the large card image), `card` (a small card image), `orbit` (one of the 360° frames)
    /// or `plan` (the top-down plan).
    public var kind: String
    /// Path relative to the folder holding `layer_manifest.json`, e.g. `thumbs/hero.webp`.
    public var path: String
    /// Width in pixels, ≥ 1.
    public var width: Int
    /// Height in pixels, ≥ 1.
    public var height: Int
    /// File size in bytes.
    public var bytes: Int
    /// SHA-256 of the file (64 lowercase hex digits); nil writes JSON null.
    public var sha256: String?
    /// The camera the image was rendered with.
    public var camera: Camera

    /// A thumbnail record; `Thumbnail.kinds` lists the accepted kinds.
    public init(kind: String, path: String, width: Int, height: Int, bytes: Int, sha256: String? = nil, camera: Camera) {
        self.kind = kind
        self.path = path
        self.width = width
        self.height = height
        self.bytes = bytes
        self.sha256 = sha256
        self.camera = camera
    }

    /// The accepted kinds, in the order the manifest lists thumbnails.
    public static let kinds = ["hero", "card", "orbit", "plan"]
}
