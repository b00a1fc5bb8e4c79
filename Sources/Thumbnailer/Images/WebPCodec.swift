import CLibWebP

/// Lossy WebP encoding (and decoding, for tests and utilities) through libwebp — the only file that
/// calls libwebp. Encoding is single-threaded with a fixed method, so equal pixels give equal bytes.
enum WebPCodec {
    /// Encodes RGBA8 pixels as lossy WebP; nil when libwebp refuses. Alpha is ignored unless
    /// `keepAlpha`. With `resize`, the picture is first resampled to that size with libwebp's
    /// rescaler (area-averaging when shrinking). `lossless` writes VP8L instead, which decodes to
    /// exactly the given pixels (reference images); `quality` is then the compression effort.
    /// `segments` (1…4, libwebp's default 4) is the number of quantiser segments of a lossy
    /// image: with one, libwebp skips its analysis pass (see `ThumbnailOptions.webpSegments`).
    static func encode(
        rgba: [UInt8], width: Int, height: Int, quality: Float, method: Int, segments: Int = 4,
        keepAlpha: Bool = false, resize: (width: Int, height: Int)? = nil, lossless: Bool = false
    ) -> [UInt8]? {
        guard width > 0, height > 0, width <= 16383, height <= 16383, rgba.count >= width * height * 4 else {
            return nil
        }
        var config = WebPConfig()
        guard WebPConfigInit(&config) != 0 else { return nil }
        config.quality = quality.isFinite ? min(max(quality, 0), 100) : 80
        config.method = Int32(min(max(method, 0), 6))
        config.segments = Int32(min(max(segments, 1), 4))
        config.thread_level = 0
        config.lossless = lossless ? 1 : 0
        config.exact = lossless ? 1 : 0
        guard WebPValidateConfig(&config) != 0 else { return nil }
        var picture = WebPPicture()
        guard WebPPictureInit(&picture) != 0 else { return nil }
        picture.width = Int32(width)
        picture.height = Int32(height)
        picture.use_argb = lossless ? 1 : 0
        defer { WebPPictureFree(&picture) }
        let imported = rgba.withUnsafeBufferPointer { buf in
            keepAlpha
                ? WebPPictureImportRGBA(&picture, buf.baseAddress, Int32(width * 4))
                : WebPPictureImportRGBX(&picture, buf.baseAddress, Int32(width * 4))
        }
        guard imported != 0 else { return nil }
        if let r = resize, r.width != width || r.height != height {
            guard r.width > 0, r.height > 0, WebPPictureRescale(&picture, Int32(r.width), Int32(r.height)) != 0 else {
                return nil
            }
        }
        var writer = WebPMemoryWriter()
        WebPMemoryWriterInit(&writer)
        defer { WebPMemoryWriterClear(&writer) }
        let ok = withUnsafeMutablePointer(to: &writer) { w -> Bool in
            picture.writer = WebPMemoryWrite
            picture.custom_ptr = UnsafeMutableRawPointer(w)
            return WebPEncode(&config, &picture) != 0
        }
        guard ok, let mem = writer.mem, writer.size > 0 else { return nil }
        return [UInt8](UnsafeBufferPointer(start: mem, count: Int(writer.size)))
    }

    /// The size a WebP file declares, read from its header without decoding; nil when libwebp
    /// does not recognise it.
    static func size(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
        var width: Int32 = 0, height: Int32 = 0
        return bytes.withUnsafeBufferPointer { buf -> (width: Int, height: Int)? in
            guard let base = buf.baseAddress, buf.count > 0, WebPGetInfo(base, buf.count, &width, &height) != 0,
                  width > 0, height > 0 else { return nil }
            return (Int(width), Int(height))
        }
    }

    /// Decodes a WebP file to RGBA8; nil when libwebp refuses.
    static func decode(_ bytes: [UInt8]) -> DecodedImage? {
        var width: Int32 = 0, height: Int32 = 0
        return bytes.withUnsafeBufferPointer { buf -> DecodedImage? in
            guard let base = buf.baseAddress, buf.count > 0 else { return nil }
            guard WebPGetInfo(base, buf.count, &width, &height) != 0, width > 0, height > 0,
                Int(width) * Int(height) <= 1 << 28
            else { return nil }
            guard let px = WebPDecodeRGBA(base, buf.count, &width, &height) else { return nil }
            defer { WebPFree(px) }
            let n = Int(width) * Int(height) * 4
            return DecodedImage(
                width: Int(width), height: Int(height), rgba: [UInt8](UnsafeBufferPointer(start: px, count: n)))
        }
    }
}
