/// What `Thumbnailer.render` produces and how.
///
/// All sizes are in pixels. Values outside the supported ranges are clamped when rendering
/// (supersampling to 0…4, image sides to 16…4096, WebP quality to 0…100, WebP method to 0…6,
/// WebP segments to 1…4).
public struct ThumbnailOptions: Sendable, Hashable {
    /// Views to render; default every kind. `.orbit` yields eight images, `.roomCard` one per room
    /// of a home (none for a single room), the others one each.
    public var views: Set<ThumbnailView.Kind>
    /// Lossy WebP quality, 0…100 (default 75: with one segment, the bytes and mean SSIM that
    /// quality 80 with libwebp's four segments gave on the corpus scans' views).
    public var webpQuality: Float
    /// Supersampling factor per axis: 3 renders 3×3 samples per pixel, box-filtered. 0 (the
    /// default) chooses by the view's size: 3 up to `ThumbnailOptions.denseSide` pixels a side,
    /// 2 above, where a pixel is small enough on the phone that 2×2 edges look as smooth.
    public var supersampling: Int
    /// Spend the full sample rate only on pixels near edges, silhouettes and colour changes
    /// (found from one sample per pixel); the others take their centre sample, which inside a
    /// smooth surface is the same colour. Default true; false renders every pixel at the full
    /// rate (on the corpus scans up to about 15 % more CPU for images within 0.001 of a code
    /// value on average).
    public var adaptiveSupersampling: Bool
    /// Output size of each view kind.
    public var sizes: Sizes
    /// libwebp's speed/size trade-off, 0 (fast) … 6 (small); default 2. Output stays deterministic
    /// for a given method.
    public var webpMethod: Int
    /// Quantiser segments of each image, 1…4 (default 1). libwebp's default of four spends an
    /// analysis pass over every macroblock to share the bits among them; with one it skips that
    /// pass, which on the corpus scans takes about 40 % off the encoding of the rendered views
    /// (and about half off the plan thumbnail's) for the same bytes at quality 75 as four
    /// segments gave at 80.
    public var webpSegments: Int
    /// Upper bound on the bytes of decoded texture images held at once (RGBA8, before mip
    /// generation); textures beyond it fall back to their material's colour factor with a warning.
    public var textureMemoryBudget: Int
    /// Longest side a texture is resampled to before rendering (thumbnails never need more).
    public var maxWorkingTextureSize: Int

    /// Views with a side longer than this many pixels are dense: drawn with 2×2 samples where
    /// edges need them (unless `supersampling` says otherwise) and their occlusion computed at a
    /// quarter of the resolution instead of half, so that both keep their size on the screen.
    public static let denseSide = 1024

    /// Pixel size of each kind of view.
    public struct Sizes: Sendable, Hashable {
        /// The 3/4 hero image (default 1320×990: the widest LiDAR iPhone's screen, 1:1).
        public var hero: ThumbnailSize
        /// The feed card (default 1320×990, the hero's size, so the two are one image).
        public var card: ThumbnailSize
        /// The small card (default 660×495, half the card, downsampled from the card's pixels
        /// when it is exactly half; otherwise rendered at its size).
        public var cardSmall: ThumbnailSize
        /// Each of the eight orbit frames (default 1320×990).
        public var orbit: ThumbnailSize
        /// The top-down plan (default 1024×1024).
        public var plan: ThumbnailSize
        /// Each room card of a home (default 256×256).
        public var roomCard: ThumbnailSize

        public init(
            hero: ThumbnailSize = ThumbnailSize(width: 1320, height: 990),
            card: ThumbnailSize = ThumbnailSize(width: 1320, height: 990),
            orbit: ThumbnailSize = ThumbnailSize(width: 1320, height: 990),
            plan: ThumbnailSize = ThumbnailSize(width: 1024, height: 1024),
            roomCard: ThumbnailSize = ThumbnailSize(width: 256, height: 256),
            cardSmall: ThumbnailSize = ThumbnailSize(width: 660, height: 495)
        ) {
            self.hero = hero
            self.card = card
            self.cardSmall = cardSmall
            self.orbit = orbit
            self.plan = plan
            self.roomCard = roomCard
        }

        /// Sets the card (and the hero, which is the card's image) to `size`, and the small card to
        /// half of it (at least 16 pixels a side): what `--card-size` and `TRANSCODE_CARD_SIZE` set.
        public mutating func setCard(_ size: ThumbnailSize) {
            hero = size
            card = size
            cardSmall = ThumbnailSize(width: max(size.width / 2, 16), height: max(size.height / 2, 16))
        }

        /// The size of one kind of view.
        public subscript(kind: ThumbnailView.Kind) -> ThumbnailSize {
            get {
                switch kind {
                case .hero: return hero
                case .card: return card
                case .cardSmall: return cardSmall
                case .orbit: return orbit
                case .plan: return plan
                case .roomCard: return roomCard
                }
            }
            set {
                switch kind {
                case .hero: hero = newValue
                case .card: card = newValue
                case .cardSmall: cardSmall = newValue
                case .orbit: orbit = newValue
                case .plan: plan = newValue
                case .roomCard: roomCard = newValue
                }
            }
        }
    }

    public init(
        views: Set<ThumbnailView.Kind> = Set(ThumbnailView.Kind.allCases), webpQuality: Float = 75,
        supersampling: Int = 0, sizes: Sizes = Sizes(), webpMethod: Int = 2,
        textureMemoryBudget: Int = 256 << 20, maxWorkingTextureSize: Int = 2048, adaptiveSupersampling: Bool = true,
        webpSegments: Int = 1
    ) {
        self.adaptiveSupersampling = adaptiveSupersampling
        self.views = views
        self.webpQuality = webpQuality
        self.supersampling = supersampling
        self.sizes = sizes
        self.webpMethod = webpMethod
        self.webpSegments = webpSegments
        self.textureMemoryBudget = textureMemoryBudget
        self.maxWorkingTextureSize = maxWorkingTextureSize
    }
}

/// A width × height in pixels.
public struct ThumbnailSize: Sendable, Hashable {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// The size clamped to what the renderer supports (16…4096 per side).
    var clamped: ThumbnailSize {
        ThumbnailSize(width: min(max(width, 16), 4096), height: min(max(height, 16), 4096))
    }

    /// Whether a view of this size is dense (`ThumbnailOptions.denseSide`).
    var isDense: Bool { max(width, height) > ThumbnailOptions.denseSide }
}
