/// One rendered, encoded thumbnail image.
public struct ThumbnailView: Sendable, Hashable {
    /// The kinds of view the thumbnailer renders.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// A 3/4 perspective view from the most open side of the room (dollhouse cutaway).
        case hero
        /// The feed card: the hero view at the card size (the same image as the hero when the
        /// two sizes are equal, as by default).
        case card
        /// The card at half its size, for grids and notifications (`thumbs/card-small.webp`),
        /// downsampled from the card's pixels.
        case cardSmall = "card_small"
        /// Eight perspective frames every 45° around the room (`orbit-00` … `orbit-07`).
        case orbit
        /// The orthographic top-down floor plan.
        case plan
        /// A small top-down card of one room of a home (`room-01` …, in the structure's room
        /// order); none for a single room.
        case roomCard = "room_card"
    }

    public var kind: Kind
    /// Output-relative path: `thumbs/hero.webp`, `thumbs/card.webp`, `thumbs/card-small.webp`,
    /// `thumbs/orbit-00.webp` …
    /// `thumbs/orbit-07.webp`, `thumbs/plan.webp`, `thumbs/room-01.webp` ….
    public var path: String
    /// The room a room card shows (`StructureRoom.name`); nil for the other kinds.
    public var room: String?
    /// Image size in pixels.
    public var width: Int
    public var height: Int
    /// The lossy WebP file, owned by the value.
    public var webp: [UInt8]
    /// The camera the image was rendered with, in the scene's frame (metres, +Y up).
    public var camera: ThumbnailCamera

    public init(
        kind: Kind, path: String, width: Int, height: Int, webp: [UInt8], camera: ThumbnailCamera, room: String? = nil
    ) {
        self.kind = kind
        self.path = path
        self.room = room
        self.width = width
        self.height = height
        self.webp = webp
        self.camera = camera
    }
}

/// An uncompressed rendered frame (RGBA8, rows top to bottom, no padding).
public struct ThumbnailImage: Sendable, Hashable {
    public var width: Int
    public var height: Int
    /// `width × height × 4` bytes, sRGB, alpha 255 everywhere (the background is opaque).
    public var rgba: [UInt8]
    /// Pixels where at least one sample hit geometry (the rest is background).
    public var coveredPixels: Int
    /// The camera the frame was rendered with.
    public var camera: ThumbnailCamera

    public init(width: Int, height: Int, rgba: [UInt8], coveredPixels: Int, camera: ThumbnailCamera) {
        self.width = width
        self.height = height
        self.rgba = rgba
        self.coveredPixels = coveredPixels
        self.camera = camera
    }
}
