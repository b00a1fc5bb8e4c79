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
        case "image/webp": return decodeWebP(bytes, limits: limits)
        default:
            return .failure(
                ImageDecodeFailure(
                    code: .textureUnsupported,
                    message: bytes.isEmpty ? "texture has no bytes" : "texture is neither PNG, JPEG nor WebP"))
        }
    }

    /// A WebP texture (the worker writes one where it blurred a redacted area), its declared size
    /// checked against `limits` before libwebp allocates.
    static func decodeWebP(_ bytes: [UInt8], limits: ImageDecodeLimits) -> Result<DecodedImage, ImageDecodeFailure> {
        guard let size = WebPCodec.size(bytes) else {
            return .failure(ImageDecodeFailure(code: .textureDecodeFailed, message: "WebP header not recognised"))
        }
        guard size.width <= limits.maxSide, size.height <= limits.maxSide else {
            return .failure(ImageDecodeFailure(code: .textureTooLarge,
                                               message: "WebP texture is \(size.width)×\(size.height), over \(limits.maxSide)"))
        }
        guard size.width * size.height * 4 <= limits.maxBytes else {
            return .failure(ImageDecodeFailure(code: .textureBudget,
                                               message: "WebP texture of \(size.width)×\(size.height) needs more than \(limits.maxBytes) bytes"))
        }
        guard let image = WebPCodec.decode(bytes) else {
            return .failure(ImageDecodeFailure(code: .textureDecodeFailed, message: "libwebp could not decode the texture"))
        }
        return .success(image)
    }
}
