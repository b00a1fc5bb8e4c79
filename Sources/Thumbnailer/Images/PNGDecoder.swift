import CLibPNG

/// PNG decoding through libpng's simplified `png_image` API (the only file that calls libpng).
/// The header is checked against the limits before libpng allocates anything.
enum PNGDecoder {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// Width and height declared by the IHDR chunk, read without libpng; nil when the bytes do not
    /// start with a PNG signature and an IHDR chunk.
    static func declaredSize(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
        guard bytes.count >= 24, bytes.starts(with: signature), Array(bytes[12..<16]) == Array("IHDR".utf8) else {
            return nil
        }
        func be32(_ o: Int) -> Int {
            Int(bytes[o]) << 24 | Int(bytes[o + 1]) << 16 | Int(bytes[o + 2]) << 8 | Int(bytes[o + 3])
        }
        return (be32(16), be32(20))
    }

    /// Decodes `bytes` to RGBA8 (sRGB, 16-bit samples reduced, palettes expanded, grey expanded).
    static func decode(_ bytes: [UInt8], limits: ImageDecodeLimits) -> Result<DecodedImage, ImageDecodeFailure> {
        guard let size = declaredSize(bytes) else {
            return .failure(
                ImageDecodeFailure(
                    code: .textureDecodeFailed, message: "not a PNG file (no signature and IHDR)"))
        }
        if let failure = checkSize(width: size.width, height: size.height, limits: limits) { return .failure(failure) }
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        return bytes.withUnsafeBufferPointer { buf -> Result<DecodedImage, ImageDecodeFailure> in
            guard let base = buf.baseAddress else {
                return .failure(
                    ImageDecodeFailure(code: .textureDecodeFailed, message: "empty PNG"))
            }
            guard png_image_begin_read_from_memory(&image, base, buf.count) != 0 else {
                let message = Self.message(of: &image)
                png_image_free(&image)
                return .failure(
                    ImageDecodeFailure(
                        code: .textureDecodeFailed, message: "libpng: \(message)"))
            }
            let width = Int(image.width), height = Int(image.height)
            if let failure = checkSize(width: width, height: height, limits: limits) {
                png_image_free(&image)
                return .failure(failure)
            }
            image.format = 3  // PNG_FORMAT_RGBA (PNG_FORMAT_FLAG_COLOR | PNG_FORMAT_FLAG_ALPHA)
            var out = [UInt8](repeating: 0, count: width * height * 4)
            let ok = out.withUnsafeMutableBytes { dst in
                png_image_finish_read(&image, nil, dst.baseAddress, Int32(width * 4), nil) != 0
            }
            if !ok {
                let message = Self.message(of: &image)
                png_image_free(&image)
                return .failure(
                    ImageDecodeFailure(
                        code: .textureDecodeFailed, message: "libpng: \(message)"))
            }
            png_image_free(&image)
            return .success(DecodedImage(width: width, height: height, rgba: out))
        }
    }

    static func checkSize(width: Int, height: Int, limits: ImageDecodeLimits) -> ImageDecodeFailure? {
        guard width > 0, height > 0 else {
            return ImageDecodeFailure(
                code: .textureDecodeFailed, message: "PNG declares \(width)×\(height)")
        }
        guard width <= limits.maxSide, height <= limits.maxSide else {
            return ImageDecodeFailure(
                code: .textureTooLarge,
                message: "PNG declares \(width)×\(height); the limit is \(limits.maxSide) per side")
        }
        let (bytes, overflow) = (width * height).multipliedReportingOverflow(by: 4)
        guard !overflow, bytes <= limits.maxBytes else {
            return ImageDecodeFailure(
                code: .textureBudget,
                message: "PNG of \(width)×\(height) needs \(bytes) bytes decoded; "
                    + "\(limits.maxBytes) remain in the texture budget")
        }
        return nil
    }

    private static func message(of image: inout png_image) -> String {
        withUnsafeBytes(of: &image.message) { raw in
            let chars = raw.prefix { $0 != 0 }
            return String(decoding: chars, as: UTF8.self)
        }
    }
}
