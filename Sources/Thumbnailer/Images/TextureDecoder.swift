import SceneModel

/// Decodes one texture the way `render` does (PNG through libpng, JPEG through libjpeg-turbo after
/// `JPEGValidator`), for callers that only need the pixels: tools, tests and the fuzz harnesses.
public enum TextureDecoder {
    /// Decodes `bytes` to RGBA8 (sRGB, straight alpha, rows top to bottom; `width × height × 4`
    /// bytes).
    ///
    /// - Parameters:
    ///   - maxSide: longest accepted side in pixels (default 16,384, as `render`).
    ///   - maxBytes: bytes the decode may allocate, output plus decoder working memory (default
    ///     256 MiB, `ThumbnailOptions.textureMemoryBudget`'s default).
    ///   - targetSide: side the caller resamples to; JPEG decodes at 1/2, 1/4 or 1/8 scale while
    ///     the longest side stays at least this large (default 2,048).
    /// - Throws: `ThumbnailerError` whose code is the warning `render` would give:
    ///   `THUMB_TEXTURE_UNSUPPORTED` (neither PNG nor JPEG), `THUMB_TEXTURE_TOO_LARGE`,
    ///   `THUMB_TEXTURE_BUDGET` or `THUMB_TEXTURE_DECODE_FAILED`.
    public static func decode(
        _ bytes: [UInt8], maxSide: Int = 16384, maxBytes: Int = 256 << 20, targetSide: Int = 2048
    ) throws(ThumbnailerError) -> (width: Int, height: Int, rgba: [UInt8]) {
        let limits = ImageDecodeLimits(maxSide: maxSide, maxBytes: maxBytes, targetSide: targetSide)
        switch decode(bytes, limits: limits) {
        case .failure(let f):
            throw ThumbnailerError(code: f.code, message: f.message)
        case .success(let image):
            return (image.width, image.height, image.rgba)
        }
    }

    /// Picks the decoder from the leading bytes (`Texture.sniffMIMEType`) and runs it.
    static func decode(_ bytes: [UInt8], limits: ImageDecodeLimits) -> Result<DecodedImage, ImageDecodeFailure> {
        switch Texture.sniffMIMEType(bytes) {
        case "image/png": return PNGDecoder.decode(bytes, limits: limits)
        case "image/jpeg": return JPEGDecoder.decode(bytes, limits: limits)
        default:
            return .failure(
                ImageDecodeFailure(
                    code: ThumbnailWarningCode.textureUnsupported,
                    message: bytes.isEmpty ? "texture has no bytes" : "texture is neither PNG nor JPEG"))
        }
    }
}
