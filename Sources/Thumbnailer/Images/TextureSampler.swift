/// Mip-mapped textures for the rasteriser: every level of every texture in one pool of linear
/// 16-bit RGBA texels (decoded from sRGB once), sampled bilinearly from the level the screen
/// footprint selects. Levels are 2×2 box-filtered in linear space (box-filtered minification).
final class TextureSampler: @unchecked Sendable {
    /// One mip level of one texture.
    struct Level: Sendable {
        var offset: Int
        var width: Int
        var height: Int
    }

    /// One texture: its levels (0 = largest) and whether any texel is not fully opaque.
    struct Entry: Sendable {
        var firstLevel: Int
        var levelCount: Int
        var width: Int
        var height: Int
        var hasAlpha: Bool
        /// The mean texel (the 1 × 1 level), linear RGB with straight alpha in [0, 1].
        var mean = SIMD4<Float>.zero
    }

    /// Linear RGBA, 0…65535 per channel.
    typealias Texel = SIMD4<UInt16>

    let pool: UnsafeMutablePointer<Texel>
    let poolCount: Int
    let levels: [Level]
    /// `levels` in manually managed memory (read per sample without bounds checks).
    let levelTable: UnsafeMutablePointer<Level>
    let entries: [Entry]

    /// Bytes a texture of this size occupies with its mip chain.
    static func bytes(width: Int, height: Int) -> Int { width * height * MemoryLayout<Texel>.stride * 4 / 3 + 64 }

    /// Builds mip chains from decoded images (each already at working size).
    init(images: [DecodedImage]) {
        var levels: [Level] = []
        var entries: [Entry] = []
        var total = 0
        for img in images {
            var w = img.width, h = img.height
            let first = levels.count
            while true {
                levels.append(Level(offset: total, width: w, height: h))
                total += w * h
                if w == 1 && h == 1 { break }
                w = max(1, w / 2)
                h = max(1, h / 2)
            }
            entries.append(
                Entry(
                    firstLevel: first, levelCount: levels.count - first, width: img.width,
                    height: img.height, hasAlpha: false))
        }
        poolCount = max(total, 1)
        let pool = UnsafeMutablePointer<Texel>.allocate(capacity: poolCount)
        pool.initialize(repeating: .zero, count: poolCount)
        self.pool = pool
        // 8-bit sRGB → 16-bit linear.
        let toLinear16: [UInt16] = ColorSpace.srgbToLinear.map { UInt16(min(max($0 * 65535 + 0.5, 0), 65535)) }
        for (k, img) in images.enumerated() {
            let e = entries[k]
            var alpha = false
            img.rgba.withUnsafeBufferPointer { src in
                let l0 = levels[e.firstLevel]
                for i in 0..<(l0.width * l0.height) {
                    let a = src[i * 4 + 3]
                    if a != 255 { alpha = true }
                    pool[l0.offset + i] = Texel(
                        toLinear16[Int(src[i * 4])], toLinear16[Int(src[i * 4 + 1])],
                        toLinear16[Int(src[i * 4 + 2])], UInt16(a) * 257)
                }
            }
            entries[k].hasAlpha = alpha
            for li in (e.firstLevel + 1)..<(e.firstLevel + e.levelCount) {
                Self.downsample(from: levels[li - 1], to: levels[li], pool: pool)
            }
            // As `sample` reads the last level: its one texel, scaled the same way.
            entries[k].mean = SIMD4<Float>(pool[levels[e.firstLevel + e.levelCount - 1].offset]) * (1 / 65535)
        }
        self.levels = levels
        self.entries = entries
        levelTable = .allocate(capacity: max(levels.count, 1))
        levelTable.initialize(
            from: levels.isEmpty ? [Level(offset: 0, width: 1, height: 1)] : levels,
            count: max(levels.count, 1))
    }

    deinit {
        pool.deallocate()
        levelTable.deallocate()
    }

    /// 2×2 box filter (edge texels repeat for odd sizes), rounded.
    private static func downsample(from s: Level, to d: Level, pool: UnsafeMutablePointer<Texel>) {
        for y in 0..<d.height {
            let r0 = pool + s.offset + min(y * 2, s.height - 1) * s.width
            let r1 = pool + s.offset + min(y * 2 + 1, s.height - 1) * s.width
            let out = pool + d.offset + y * d.width
            for x in 0..<d.width {
                let x0 = min(x * 2, s.width - 1), x1 = min(x * 2 + 1, s.width - 1)
                let sum =
                    SIMD4<UInt32>(truncatingIfNeeded: r0[x0]) &+ SIMD4<UInt32>(truncatingIfNeeded: r0[x1])
                    &+ SIMD4<UInt32>(truncatingIfNeeded: r1[x0]) &+ SIMD4<UInt32>(truncatingIfNeeded: r1[x1])
                out[x] = Texel(truncatingIfNeeded: (sum &+ 2) / 4)
            }
        }
    }

    /// Wrap modes as stored in `ShadeMaterial`.
    static let wrapRepeat: UInt8 = 0, wrapClamp: UInt8 = 1, wrapMirror: UInt8 = 2

    /// Reduces a coordinate to one period of its wrap mode ([0, 1) repeat, [0, 2) mirror,
    /// [−1, 2] clamp); huge or NaN values never reach an integer conversion.
    @inline(__always)
    static func reduce(_ t: Float, _ mode: UInt8) -> Float {
        guard t.isFinite, abs(t) < 8_000_000 else { return 0 }
        switch mode {
        case wrapClamp: return min(max(t, -1), 2)
        case wrapMirror:
            let m = t - 2 * floorSmall(t * 0.5)
            return m < 2 ? m : 0
        default:
            let m = t - floorSmall(t)
            return m < 1 ? m : 0
        }
    }

    /// floor() for |x| < 2^23 without a libm call.
    @inline(__always)
    static func floorSmall(_ x: Float) -> Float {
        let i = Float(Int32(x))
        return i > x ? i - 1 : i
    }

    /// Texel index of `i` for a reduced coordinate: `i` is within one texel of the period, so
    /// no division is needed.
    @inline(__always)
    static func wrap(_ i: Int, _ n: Int, _ mode: UInt8) -> Int {
        switch mode {
        case wrapRepeat: return i < 0 ? i + n : (i >= n ? i - n : i)
        case wrapMirror:
            if i < 0 { return min(-1 - i, n - 1) }
            if i < n { return i }
            return max(2 * n - 1 - i, 0)
        default: return i < 0 ? 0 : (i >= n ? n - 1 : i)
        }
    }

    /// Bilinear sample of the texture whose levels start at `firstLevel`, at `level` (clamped to
    /// the chain), in linear RGB with straight alpha in [0, 1]. `u, v` follow glTF (v = 0 at the
    /// image top).
    @inline(__always)
    func sample(
        firstLevel: Int, levelCount: Int, u: Float, v: Float, level: Int, wrapS: UInt8, wrapT: UInt8
    )
        -> SIMD4<Float>
    {
        let li = firstLevel + min(max(level, 0), levelCount - 1)
        let l = levelTable[li]
        let x = Self.reduce(u, wrapS) * Float(l.width) - 0.5
        let y = Self.reduce(v, wrapT) * Float(l.height) - 0.5
        let xf = Self.floorSmall(x), yf = Self.floorSmall(y)
        let fx = x - xf, fy = y - yf
        let xi = Int(xf), yi = Int(yf)
        let x0 = Self.wrap(xi, l.width, wrapS), x1 = Self.wrap(xi + 1, l.width, wrapS)
        let y0 = Self.wrap(yi, l.height, wrapT), y1 = Self.wrap(yi + 1, l.height, wrapT)
        let row0 = pool + l.offset + y0 * l.width, row1 = pool + l.offset + y1 * l.width
        let a = SIMD4<Float>(row0[x0]), b = SIMD4<Float>(row0[x1]), c = SIMD4<Float>(row1[x0]),
            d = SIMD4<Float>(row1[x1])
        let top = a + (b - a) * fx
        let bottom = c + (d - c) * fx
        return (top + (bottom - top) * fy) * (1 / 65535)
    }
}
