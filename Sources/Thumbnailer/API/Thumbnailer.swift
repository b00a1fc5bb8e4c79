import SceneModel

/// Software-rendered WebP thumbnails of a layered scene: a hero image (and its card-size
/// version), eight orbit frames and a top-down plan. Pure: values in, values out; no IO, no
/// logging; warnings are returned. Work is spread over every core; output bytes depend only on
/// the input and the options.
public enum Thumbnailer {
    /// Renders the requested views.
    ///
    /// - Parameters:
    ///   - layered: the room (or any model) to draw; not retained.
    ///   - options: views, sizes, supersampling and WebP settings.
    ///   - sharing: textures of `layered` another consumer already decoded (`TextureTranscoder`);
    ///     the images are the same with or without it.
    /// - Returns: the images in the order hero, card, small card, orbit-00 … orbit-07, plan, the room cards
    ///   (those requested; room cards only for a home),
    ///   and warnings (textures that could not be used, invalid geometry, limits).
    /// - Throws: `ThumbnailerError` — `THUMB_EMPTY_SCENE` (nothing drawable),
    ///   `THUMB_WEBP_FAILED` (libwebp refused a frame), `THUMB_INVALID_OPTIONS` (no view).
    /// Deterministic: the same input and options give the same bytes.
    public static func render(
        _ layered: LayeredScene, options: ThumbnailOptions = ThumbnailOptions(),
        sharing: consuming SharedTextureDecodes = SharedTextureDecodes(capacity: 0)
    ) throws
        -> (views: [ThumbnailView], warnings: [SceneWarning])
    {
        guard !options.views.isEmpty else {
            throw ThumbnailerError(code: .invalidOptions, message: "no view requested")
        }
        let context = try RenderContext(layered, options: options, sharing: consume sharing)
        var out: [ThumbnailView] = []
        let views = options.views
        // Images already encoded, whose memory the orbit frames draw into.
        var spare: [[UInt8]] = []
        if views.contains(.hero) || views.contains(.card) || views.contains(.cardSmall) {
            let group = try encodeNow(heroAndCard(context, options: options), options: options)
            out += group.views
            spare = group.images
        }
        if views.contains(.orbit) { out += try orbitViews(context, options: options, spare: spare) }
        var rest: [RenderedFrame] = []
        if views.contains(.plan) {
            let size = options.sizes.plan.clamped
            let cam = context.planner.planCamera(width: size.width, height: size.height)
            let plan = context.renderPlan(camera: cam, width: size.width, height: size.height)
            rest.append(
                RenderedFrame(
                    kind: .plan, path: "thumbs/plan.webp", width: size.width, height: size.height,
                    rgba: plan.output.rgba, camera: plan.camera))
        }
        if views.contains(.roomCard) { rest += roomCards(context, size: options.sizes.roomCard.clamped) }
        out += try encodeNow(rest, options: options).views
        return (out, context.warnings)
    }

    /// The hero, the card and the small card. The card is the hero's image when the two sizes are
    /// equal (as by default; one render, one encoding); the small card is the card's pixels
    /// halved when it is exactly half the card, otherwise each is rendered at its own size.
    private static func heroAndCard(_ context: RenderContext, options: ThumbnailOptions) -> [RenderedFrame] {
        var frames: [RenderedFrame] = []
        let views = options.views
        let hero = options.sizes.hero.clamped, card = options.sizes.card.clamped
        let small = options.sizes.cardSmall.clamped
        func render(_ size: ThumbnailSize) -> (rgba: [UInt8], camera: ThumbnailCamera) {
            let cam = context.planner.heroCamera(width: size.width, height: size.height).camera
            return (context.renderScene(camera: cam, width: size.width, height: size.height, cutaway: true).rgba, cam)
        }
        var heroImage: (rgba: [UInt8], camera: ThumbnailCamera)?
        if views.contains(.hero) {
            let image = render(hero)
            heroImage = image
            frames.append(
                RenderedFrame(
                    kind: .hero, path: "thumbs/hero.webp", width: hero.width, height: hero.height, rgba: image.rgba,
                    camera: image.camera))
        }
        var cardImage: (rgba: [UInt8], camera: ThumbnailCamera)?
        if views.contains(.card) || views.contains(.cardSmall) && small.width * 2 == card.width
            && small.height * 2 == card.height
        {
            cardImage = heroImage != nil && hero == card ? heroImage : render(card)
        }
        if views.contains(.card), let image = cardImage {
            frames.append(
                RenderedFrame(
                    kind: .card, path: "thumbs/card.webp", width: card.width, height: card.height, rgba: image.rgba,
                    camera: image.camera, sameAs: hero == card ? frames.firstIndex { $0.kind == .hero } : nil))
        }
        if views.contains(.cardSmall) {
            let image: (rgba: [UInt8], camera: ThumbnailCamera)
            if let c = cardImage, small.width * 2 == card.width, small.height * 2 == card.height {
                let cam = context.planner.heroCamera(width: small.width, height: small.height).camera
                image = (FrameBuffer.downsample2x(c.rgba, width: card.width, height: card.height).rgba, cam)
            } else {
                image = render(small)
            }
            frames.append(
                RenderedFrame(
                    kind: .cardSmall, path: "thumbs/card-small.webp", width: small.width, height: small.height,
                    rgba: image.rgba, camera: image.camera))
        }
        return frames
    }

    /// One top-down card per room of a home with a floor (at most `HomeLayout.maxRoomCards`),
    /// named by the room's place in the structure: `thumbs/room-01.webp` ….
    private static func roomCards(_ context: RenderContext, size: ThumbnailSize) -> [RenderedFrame] {
        guard let home = context.home else { return [] }
        var frames: [RenderedFrame] = []
        for r in home.rooms.indices.prefix(HomeLayout.maxRoomCards) {
            guard let cam = context.planner.roomCardCamera(room: r, width: size.width, height: size.height) else { continue }
            let out = context.renderScene(camera: cam, width: size.width, height: size.height, cutaway: false, onlyRoom: r)
            frames.append(
                RenderedFrame(
                    kind: .roomCard, path: roomCardPath(r), width: size.width, height: size.height, rgba: out.rgba,
                    camera: cam, room: home.rooms[r].name))
        }
        return frames
    }

    /// The path of room `index`'s card (0-based): `thumbs/room-01.webp`, numbered from 1.
    public static func roomCardPath(_ index: Int) -> String {
        let n = index + 1
        return "thumbs/room-\(n < 10 ? "0" : "")\(n).webp"
    }

    /// Renders one view to RGBA8 without encoding (for tests and utilities).
    ///
    /// - Parameters:
    ///   - view: `.hero`, `.card`, `.cardSmall` (rendered at its size, not downsampled), `.orbit`
    ///     (frame `orbitIndex`, 0…7), `.plan` or `.roomCard` (the card of room `orbitIndex`).
    /// - Throws: `THUMB_EMPTY_SCENE` when nothing is drawable, `THUMB_INVALID_OPTIONS` for a
    ///   room card of a room that has none.
    public static func renderRGBA(
        _ layered: LayeredScene, view: ThumbnailView.Kind, orbitIndex: Int = 0,
        options: ThumbnailOptions = ThumbnailOptions()
    ) throws -> (image: ThumbnailImage, warnings: [SceneWarning]) {
        let context = try RenderContext(layered, options: options)
        let size = options.sizes[view].clamped
        let camera: ThumbnailCamera
        let out: ViewRenderer.Output
        switch view {
        case .hero, .card, .cardSmall:
            camera = context.planner.heroCamera(width: size.width, height: size.height).camera
            out = context.renderScene(camera: camera, width: size.width, height: size.height, cutaway: true)
        case .orbit:
            camera = context.planner.orbitCameras(width: size.width, height: size.height)[min(max(orbitIndex, 0), 7)]
            out = context.renderScene(camera: camera, width: size.width, height: size.height, cutaway: true)
        case .roomCard:
            let room = max(orbitIndex, 0)
            guard let cam = context.planner.roomCardCamera(room: room, width: size.width, height: size.height) else {
                throw ThumbnailerError(code: .invalidOptions, message: "no room \(room) with a floor")
            }
            camera = cam
            out = context.renderScene(camera: cam, width: size.width, height: size.height, cutaway: false, onlyRoom: room)
        case .plan:
            let plan = context.renderPlan(
                camera: context.planner.planCamera(width: size.width, height: size.height), width: size.width,
                height: size.height)
            camera = plan.camera
            out = plan.output
        }
        return (
            ThumbnailImage(
                width: size.width, height: size.height, rgba: out.rgba, coveredPixels: out.covered,
                camera: camera), context.warnings
        )
    }

    /// Renders the scene from any camera to RGBA8 with the thumbnail styling (no cutaway).
    /// - Throws: `THUMB_EMPTY_SCENE` when nothing is drawable.
    public static func renderRGBA(
        _ layered: LayeredScene, camera: ThumbnailCamera, size: ThumbnailSize,
        options: ThumbnailOptions = ThumbnailOptions()
    ) throws -> (image: ThumbnailImage, warnings: [SceneWarning]) {
        let context = try RenderContext(layered, options: options)
        let s = size.clamped
        let out = context.renderScene(camera: camera, width: s.width, height: s.height, cutaway: false)
        return (
            ThumbnailImage(
                width: s.width, height: s.height, rgba: out.rgba, coveredPixels: out.covered, camera: camera),
            context.warnings
        )
    }

    /// Encodes RGBA8 pixels (rows top to bottom, alpha ignored) as lossy WebP the way thumbnails
    /// are encoded, for images drawn elsewhere (the vector plan's raster); `segments` as
    /// `ThumbnailOptions.webpSegments`. Throws `ThumbnailerError` `THUMB_WEBP_FAILED` when libwebp
    /// refuses.
    public static func encodeWebP(
        rgba: [UInt8], width: Int, height: Int, quality: Float, method: Int = 2, segments: Int
    ) throws(ThumbnailerError) -> [UInt8] {
        guard let bytes = WebPCodec.encode(
            rgba: rgba, width: width, height: height, quality: quality, method: method, segments: segments)
        else {
            throw ThumbnailerError(code: .webpFailed, message: "WebP encoding of a \(width)×\(height) image failed")
        }
        return bytes
    }

    /// Decodes a WebP file to RGBA8 through libwebp (for tests and utilities); nil when invalid.
    public static func decodeWebP(_ bytes: [UInt8]) -> ThumbnailImage? {
        guard let d = WebPCodec.decode(bytes) else { return nil }
        return ThumbnailImage(
            width: d.width, height: d.height, rgba: d.rgba, coveredPixels: 0,
            camera: ThumbnailCamera(position: .zero, target: SIMD3(0, 0, -1)))
    }
}

/// One rendered frame before encoding.
struct RenderedFrame {
    var kind: ThumbnailView.Kind
    var path: String
    var width: Int
    var height: Int
    var rgba: [UInt8]
    var camera: ThumbnailCamera
    var room: String? = nil
    /// The index of an earlier frame of its group with the same pixels, whose encoding this one
    /// shares.
    var sameAs: Int? = nil
}
