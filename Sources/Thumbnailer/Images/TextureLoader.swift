import SceneModel

/// Decodes the textures materials use, within a memory budget, and resamples each to the
/// working size. Failures become warnings; the material then renders with its colour factor.
/// An image another consumer already decoded under the same limits is taken from `sharing`
/// instead of being decoded again (the result is the same).
enum TextureLoader {
    struct Result {
        var sampler: TextureSampler
        /// Scene texture index → sampler entry.
        var entryOfTexture: [Int: Int]
        var warnings: [SceneWarning]
        /// Textures decoded here (not taken from `sharing`).
        var decoded = 0
    }

    static func load(
        _ textures: [Texture], used: [Int], budget: Int, maxWorkingSize: Int,
        sharing: inout SharedTextureDecodes
    ) -> Result {
        var images: [DecodedImage] = []
        var map: [Int: Int] = [:]
        var warnings: [SceneWarning] = []
        var decodedHere = 0
        var remaining = max(budget, 0)
        let working = min(max(maxWorkingSize, 1), 8192)
        for t in used.sorted() where t >= 0 && t < textures.count {
            let tex = textures[t]
            let limits = ImageDecodeLimits(maxSide: 16384, maxBytes: remaining, targetSide: working)
            let decoded: Swift.Result<DecodedImage, ImageDecodeFailure>
            if let shared = sharing.take(texture: t, bytes: tex.bytes, limits: limits) {
                decoded = .success(shared)
            } else {
                decoded = TextureDecoder.decode(tex.bytes, limits: limits)
                decodedHere += 1
            }
            switch decoded {
            case .failure(let f):
                warnings.append(
                    SceneWarning(
                        code: f.code.rawValue, message: "\(f.message); the material's colour factor is used instead",
                        primPath: tex.sourcePath.isEmpty ? nil : tex.sourcePath))
            case .success(var image):
                guard image.width > 0, image.height > 0, image.rgba.count == image.width * image.height * 4 else {
                    continue
                }
                while max(image.width, image.height) > working { image = halve(image) }
                let kept = TextureSampler.bytes(width: image.width, height: image.height)
                remaining -= kept
                map[t] = images.count
                images.append(image)
            }
        }
        return Result(
            sampler: TextureSampler(images: images), entryOfTexture: map, warnings: warnings, decoded: decodedHere)
    }

    /// Halves an image with a 2×2 box filter in linear space (odd edges repeat).
    static func halve(_ img: DecodedImage) -> DecodedImage {
        let w = max(1, img.width / 2), h = max(1, img.height / 2)
        var out = [UInt8](repeating: 0, count: w * h * 4)
        ColorSpace.srgbToLinear.withUnsafeBufferPointer { lin in
            ColorSpace.linearToSRGBTable.withUnsafeBufferPointer { enc in
                img.rgba.withUnsafeBufferPointer { src in
                    out.withUnsafeMutableBufferPointer { dst in
                        @inline(__always) func px(_ sx: Int, _ sy: Int) -> SIMD4<Float> {
                            let o = (sy * img.width + sx) * 4
                            return SIMD4(
                                lin[Int(src[o])], lin[Int(src[o + 1])], lin[Int(src[o + 2])], Float(src[o + 3]))
                        }
                        for y in 0..<h {
                            let y0 = min(2 * y, img.height - 1), y1 = min(2 * y + 1, img.height - 1)
                            for x in 0..<w {
                                let x0 = min(2 * x, img.width - 1), x1 = min(2 * x + 1, img.width - 1)
                                var acc = px(x0, y0) + px(x1, y0)
                                acc += px(x0, y1) + px(x1, y1)
                                acc *= 0.25
                                let o = (y * w + x) * 4
                                dst[o] = ColorSpace.encode(acc.x, table: enc.baseAddress!)
                                dst[o + 1] = ColorSpace.encode(acc.y, table: enc.baseAddress!)
                                dst[o + 2] = ColorSpace.encode(acc.z, table: enc.baseAddress!)
                                dst[o + 3] = UInt8(min(255, max(0, acc.w + 0.5)))
                            }
                        }
                    }
                }
            }
        }
        return DecodedImage(width: w, height: h, rgba: out)
    }
}
