import SceneModel

/// Re-encodes a texture as WebP for the web model (`EXT_texture_webp`): decoded as `render` decodes
/// it, scaled down so that its longest side is at most `maxSide` (libwebp's rescaler), and written
/// lossy at `quality`, keeping alpha when any pixel is not opaque. Deterministic: the same bytes
/// and settings give the same WebP.
public enum TextureTranscoder {
    /// The WebP bytes and their size in pixels.
    public struct Result: Sendable {
        public var bytes: [UInt8]
        public var width: Int
        public var height: Int
    }

    /// Re-encodes `bytes` (PNG or JPEG).
    ///
    /// - Parameters:
    ///   - maxSide: longest side of the output in pixels (clamped to 1…16,383).
    ///   - quality: lossy WebP quality 0…100.
    /// - Throws: `ThumbnailerError` with the decode codes of `TextureDecoder.decode`, or
    ///   `THUMB_WEBP_FAILED` when libwebp refuses.
    public static func webp(_ bytes: [UInt8], maxSide: Int, quality: Float) throws(ThumbnailerError) -> Result {
        var none = SharedTextureDecodes(capacity: 0)
        return try webp(bytes, maxSide: maxSide, quality: quality, texture: 0, sharing: &none)
    }

    /// Re-encodes `bytes`, the scene's texture at index `texture`, and keeps the decoded image in
    /// `sharing` (when it fits) for the renderer of the same scene. Output and throws as
    /// `webp(_:maxSide:quality:)`.
    public static func webp(
        _ bytes: [UInt8], maxSide: Int, quality: Float, texture: Int, sharing: inout SharedTextureDecodes
    ) throws(ThumbnailerError) -> Result {
        let side = min(max(maxSide, 1), 16383)
        let limits = ImageDecodeLimits(targetSide: side)
        let image: DecodedImage
        switch TextureDecoder.decode(bytes, limits: limits) {
        case .failure(let f): throw ThumbnailerError(code: f.code, message: f.message)
        case .success(let decoded): image = decoded
        }
        sharing.keep(image, texture: texture, bytes: bytes, limits: limits)
        let longest = max(image.width, image.height)
        var size = (width: image.width, height: image.height)
        if longest > side {
            let scale = Double(side) / Double(longest)
            size = (max(1, Int((Double(image.width) * scale).rounded())), max(1, Int((Double(image.height) * scale).rounded())))
        }
        var opaque = true
        for i in stride(from: 3, to: image.rgba.count, by: 4) where image.rgba[i] != 255 {
            opaque = false
            break
        }
        guard let out = WebPCodec.encode(
            rgba: image.rgba, width: image.width, height: image.height, quality: quality, method: 4,
            keepAlpha: !opaque, resize: size)
        else {
            throw ThumbnailerError(code: .webpFailed, message: "libwebp refused a \(size.width)×\(size.height) texture")
        }
        return Result(bytes: out, width: size.width, height: size.height)
    }
}
