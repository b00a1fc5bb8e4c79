import FloorPlan
import Thumbnailer
import USDParse
import GLBWriter
import WorkerCore

/// Everything one conversion needs, already in memory (the caller did the IO).
public struct PipelineInput: Sendable {
    /// A USD source: the file name (used as the root layer identifier and in the manifest) and its
    /// bytes, plus where sibling files of a loose `.usda`/`.usdc` are found.
    public struct USDSource: Sendable {
        public var name: String
        public var bytes: ByteView
        public var siblings: (any AssetProvider)?
        public init(name: String, bytes: ByteView, siblings: (any AssetProvider)? = nil) {
            self.name = name
            self.bytes = bytes
            self.siblings = siblings
        }
    }

    /// A replacement (face-blurred) texture: its path relative to the redaction folder, and bytes.
    public struct RedactedTexture: Sendable {
        public var relativePath: String
        public var bytes: [UInt8]
        public init(relativePath: String, bytes: [UInt8]) {
            self.relativePath = relativePath
            self.bytes = bytes
        }
    }

    public var usd: USDSource?
    /// More rooms' USD files in the same world frame as `usd` (rooms of one home exported one by
    /// one), read and merged with it into one scene (`Scene.merging`). Redacted textures apply to
    /// a single USD only.
    public var moreUSD: [USDSource] = []
    /// The RoomPlan CapturedRoom JSON: file name and bytes.
    public var roomPlanJSON: (name: String, bytes: [UInt8])?
    public var redactedTextures: [RedactedTexture]
    /// The `redactions` rows per texture, keyed like `RedactedTexture.relativePath` (the path the
    /// rows name). Every area is blurred before anything reads the texture; a row whose texture is
    /// not in the package fails the conversion with `REDACTION_INVALID`.
    public var redactionAreas: [String: [JobInput.Redaction]] = [:]
    /// Rows per texture (`redactionAreas`' counts): the manifest's `redactions[].regions`.
    public var redactionRegions: [String: Int] { redactionAreas.mapValues(\.count) }
    /// `room_versions.id` and `rooms.id` when run by the worker (nil offline).
    public var versionId: String?
    public var roomId: String?
    public var limits: ParseLimits
    /// Thumbnails to render (nil: none). Default: every view at its default size, WebP quality 75.
    public var thumbnails: ThumbnailOptions?
    /// How the model's geometry is stored. Default `.meshopt` (EXT_meshopt_compression); `.none`
    /// for tools without a meshopt decoder.
    public var glbCompression: GLBCompression = .meshopt
    /// How the model embeds textures: `.webp` (default; re-encoded, `EXT_texture_webp`) or
    /// `.original` (the PNG/JPEG bytes as they are).
    public var textureFormat: TextureFormat = .webp
    /// With `.webp`: the longest side a texture keeps, pixels (larger ones are scaled down).
    public var maxTextureSize = 2048

    /// The model's colours: `.palette` (default; untextured RoomPlan materials take their
    /// category's colour, as the thumbnails do) or `.source` (the scan's own materials).
    public var materials: MaterialStyle = .palette
    /// The vector floor plan (`plan.svg`, `plan.pdf`, `plan.dxf`, and `thumbs/plan.webp` drawn from
    /// it): units, language and wall thickness; nil writes no plan files.
    public var plan: PlanOptions? = PlanOptions()
    /// The previous revision's outputs, for a reprocess: groups whose key is unchanged are taken
    /// from here instead of being made again (nil: everything is made).
    public var previous: PreviousOutputs?

    /// How the model embeds textures.
    public enum TextureFormat: String, Sendable, CaseIterable {
        case webp, original
    }

    /// Where the model's colours come from.
    public enum MaterialStyle: String, Sendable, CaseIterable {
        case palette, source
    }

    public init(
        usd: USDSource? = nil, roomPlanJSON: (name: String, bytes: [UInt8])? = nil,
        redactedTextures: [RedactedTexture] = [], versionId: String? = nil, roomId: String? = nil,
        limits: ParseLimits = .default, thumbnails: ThumbnailOptions? = ThumbnailOptions()
    ) {
        self.usd = usd
        self.roomPlanJSON = roomPlanJSON
        self.redactedTextures = redactedTextures
        self.versionId = versionId
        self.roomId = roomId
        self.limits = limits
        self.thumbnails = thumbnails
    }
}
