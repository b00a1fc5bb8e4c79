/// Textures decoded once for every consumer of one scene. The model's WebP re-encoding
/// (`TextureTranscoder.webp(_:maxSide:quality:texture:sharing:)`) keeps what it decoded here, and
/// the renderer (`Thumbnailer.render(_:options:sharing:)`) takes a kept image instead of decoding
/// the same bytes again.
///
/// A kept image is used only where decoding again would give the same result: the texture's
/// bytes are the same, the decode asked for the same longest side and target side, and the
/// decode's cost (output plus working memory) fits the budget the consumer has left. Otherwise
/// the consumer decodes as it would without sharing, so outputs do not depend on sharing.
///
/// Memory: the images kept are at most `capacity` bytes of RGBA in all. The renderer takes the
/// value (`consuming`) and each image out of it as it uses one, so an image lives until the
/// renderer has made its own copy (its mip chain), not until the views are drawn.
public struct SharedTextureDecodes: Sendable {
    struct Entry: Sendable {
        var bytes: [UInt8]
        var maxSide: Int
        var targetSide: Int
        var image: DecodedImage
    }

    /// Most bytes of decoded RGBA kept.
    public let capacity: Int
    /// Bytes of decoded RGBA kept now.
    public private(set) var keptBytes = 0
    /// Decoded images handed out instead of a decode (counted for tests and logs).
    public private(set) var reused = 0
    private var entries: [Int: Entry] = [:]

    /// - Parameter capacity: most bytes of decoded RGBA to keep (values below 0 keep nothing).
    public init(capacity: Int) { self.capacity = max(capacity, 0) }

    /// Images kept now.
    public var count: Int { entries.count }

    /// Keeps `image`, decoded from `bytes` (the scene's texture at index `texture`) under
    /// `limits`, when it fits the capacity left; an earlier image of that texture is replaced.
    mutating func keep(_ image: DecodedImage, texture: Int, bytes: [UInt8], limits: ImageDecodeLimits) {
        if let old = entries.removeValue(forKey: texture) { keptBytes -= old.image.rgba.count }
        guard keptBytes + image.rgba.count <= capacity else { return }
        entries[texture] = Entry(bytes: bytes, maxSide: limits.maxSide, targetSide: limits.targetSide, image: image)
        keptBytes += image.rgba.count
    }

    /// Takes out the image kept for texture `texture`, and returns it when decoding `bytes` under
    /// `limits` would give it (nil otherwise: the caller decodes).
    mutating func take(texture: Int, bytes: [UInt8], limits: ImageDecodeLimits) -> DecodedImage? {
        guard let e = entries.removeValue(forKey: texture) else { return nil }
        keptBytes -= e.image.rgba.count
        guard e.maxSide == limits.maxSide, e.targetSide == limits.targetSide, e.image.cost <= limits.maxBytes,
              e.bytes == bytes
        else { return nil }
        reused += 1
        return e.image
    }
}
