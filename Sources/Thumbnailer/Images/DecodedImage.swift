/// A decoded texture image: RGBA8, sRGB-encoded colour, straight alpha, rows top to bottom.
struct DecodedImage: Sendable {
    var width: Int
    var height: Int
    var rgba: [UInt8]
    /// Bytes the decode needed (the RGBA output plus the decoder's working memory): the smallest
    /// `ImageDecodeLimits.maxBytes` under which the same decode succeeds.
    var cost: Int

    init(width: Int, height: Int, rgba: [UInt8], cost: Int? = nil) {
        self.width = width
        self.height = height
        self.rgba = rgba
        self.cost = cost ?? rgba.count
    }
}

/// Why an encoded image could not be decoded; `code` is also the warning `render` gives.
struct ImageDecodeFailure: Error, Sendable {
    var code: ThumbnailerError.Code
    var message: String
}

/// Limits checked before any decoder allocates.
struct ImageDecodeLimits: Sendable {
    /// Longest accepted side in pixels.
    var maxSide = 16384
    /// Bytes the decode may allocate (RGBA output plus decoder working memory).
    var maxBytes = 256 << 20
    /// Sides the caller will resample to; decoders that can scale while decoding (JPEG) stop at
    /// the smallest scale still at least this large.
    var targetSide = 2048
}
