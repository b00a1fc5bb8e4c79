/// A rendered preview image of the room, as the manifest's `thumbnails` list records it.
public struct Thumbnail: Hashable, Sendable {
    /// `hero` (the 3/4 view), `card` (the feed card: the hero's view at the card size, by default
    /// the same image), `card_small` (the card at half its size, for grids and notifications),
    /// `orbit` (one of the 360° frames), `plan` (the top-down plan) or `room_card` (a top-down
    /// card of one room of a home).
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
    /// The room a `room_card` shows (`StructureRoom.name`, as the model's elements name their
    /// room); nil for the other kinds.
    public var room: String?

    /// A thumbnail record; `Thumbnail.kinds` lists the accepted kinds.
    public init(
        kind: String, path: String, width: Int, height: Int, bytes: Int, sha256: String? = nil, camera: Camera,
        room: String? = nil
    ) {
        self.kind = kind
        self.path = path
        self.width = width
        self.height = height
        self.bytes = bytes
        self.sha256 = sha256
        self.camera = camera
        self.room = room
    }

    /// The accepted kinds, in the order the manifest lists thumbnails.
    public static let kinds = ["hero", "card", "card_small", "orbit", "plan", "room_card"]
}
