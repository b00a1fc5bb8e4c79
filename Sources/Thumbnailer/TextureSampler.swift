/// Mip-mapped textures for the rasteriser: every level of every texture in one pool of packed
/// RGBA8 sRGB texels (R in the low byte), sampled bilinearly in linear space from the level the
/// screen footprint selects (box-filtered minification).
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
    }

    let pool: UnsafeMutablePointer<UInt32>
    let poolCount: Int
    let levels: [Level]
    /// `levels` in manually managed memory (read per sample without bounds checks).
    let levelTable: UnsafeMutablePointer<Level>
    let entries: [Entry]
    let toLinear: UnsafeMutablePointer<Float>

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
            entries.append(Entry(firstLevel: first, levelCount: levels.count - first, width: img.width, height: img.height, hasAlpha: false))
        }
        poolCount = max(total, 1)
        let pool = UnsafeMutablePointer<UInt32>.allocate(capacity: poolCount)
        pool.initialize(repeating: 0, count: poolCount)
        let toLinear = UnsafeMutablePointer<Float>.allocate(capacity: 256)
        for i in 0..<256 { toLinear[i] = ColorSpace.srgbToLinear[i] }
        self.pool = pool
        self.toLinear = toLinear
        let encode = ColorSpace.linearToSRGBTable
        for (k, img) in images.enumerated() {
            let e = entries[k]
            var alpha = false
            img.rgba.withUnsafeBufferPointer { src in
                let l0 = levels[e.firstLevel]
                for i in 0..<(l0.width * l0.height) {
                    let r = UInt32(src[i * 4]), g = UInt32(src[i * 4 + 1]), b = UInt32(src[i * 4 + 2]), a = UInt32(src[i * 4 + 3])
                    if a != 255 { alpha = true }
                    pool[l0.offset + i] = r | g << 8 | b << 16 | a << 24
                }
            }
            entries[k].hasAlpha = alpha
            encode.withUnsafeBufferPointer { table in
                for li in (e.firstLevel + 1)..<(e.firstLevel + e.levelCount) {
                    Self.downsample(from: levels[li - 1], to: levels[li], pool: pool, toLinear: toLinear, encode: table.baseAddress!)
                }
            }
        }
        self.levels = levels
        self.entries = entries
        levelTable = .allocate(capacity: max(levels.count, 1))
        levelTable.initialize(from: levels.isEmpty ? [Level(offset: 0, width: 1, height: 1)] : levels,
                              count: max(levels.count, 1))
    }

    deinit {
        pool.deallocate()
        toLinear.deallocate()
        levelTable.deallocate()
    }

    /// 2×2 box filter in linear space (edge texels repeat for odd sizes).
    private static func downsample(
        from s: Level, to d: Level, pool: UnsafeMutablePointer<UInt32>, toLinear: UnsafeMutablePointer<Float>,
        encode: UnsafePointer<UInt8>
    ) {
        for y in 0..<d.height {
            let y0 = min(y * 2, s.height - 1), y1 = min(y * 2 + 1, s.height - 1)
            for x in 0..<d.width {
                let x0 = min(x * 2, s.width - 1), x1 = min(x * 2 + 1, s.width - 1)
                @inline(__always) func lin(_ p: UInt32) -> SIMD4<Float> {
                    SIMD4(toLinear[Int(p & 0xFF)], toLinear[Int((p >> 8) & 0xFF)], toLinear[Int((p >> 16) & 0xFF)],
                          Float(p >> 24))
                }
                var acc = lin(pool[s.offset + y0 * s.width + x0]) + lin(pool[s.offset + y0 * s.width + x1])
                acc += lin(pool[s.offset + y1 * s.width + x0]) + lin(pool[s.offset + y1 * s.width + x1])
                acc *= 0.25
                let r = UInt32(ColorSpace.encode(acc.x, table: encode))
                let g = UInt32(ColorSpace.encode(acc.y, table: encode))
                let b = UInt32(ColorSpace.encode(acc.z, table: encode))
                let a = UInt32(min(255, max(0, acc.w + 0.5)))
                pool[d.offset + y * d.width + x] = r | g << 8 | b << 16 | a << 24
            }
        }
    }

    /// Wrap modes as stored in `ShadeMaterial`.
    static let wrapRepeat: UInt8 = 0, wrapClamp: UInt8 = 1, wrapMirror: UInt8 = 2

    /// Reduces a coordinate to a safe range for its wrap mode (huge or NaN values never reach an
    /// integer conversion).
    @inline(__always)
    static func reduce(_ t: Float, _ mode: UInt8) -> Float {
        guard t.isFinite, abs(t) < 8_000_000 else { return 0 }
        switch mode {
        case wrapClamp: return min(max(t, -1), 2)
        case wrapMirror:
            let h = t * 0.5
            return t - 2 * floorSmall(h)
        default:
            return t - floorSmall(t)
        }
    }

    /// floor() for |x| < 2^23 without a libm call.
    @inline(__always)
    static func floorSmall(_ x: Float) -> Float {
        let i = Float(Int32(x))
        return i > x ? i - 1 : i
    }

    @inline(__always)
    static func wrap(_ i: Int, _ n: Int, _ mode: UInt8) -> Int {
        switch mode {
        case wrapClamp: return i < 0 ? 0 : (i >= n ? n - 1 : i)
        case wrapMirror:
            let p = 2 * n
            var m = i % p
            if m < 0 { m += p }
            return m < n ? m : p - 1 - m
        default:
            var m = i % n
            if m < 0 { m += n }
            return m
        }
    }

    /// Bilinear sample of texture `t` at level `level` (clamped to the chain), in linear RGB with
    /// straight alpha in [0, 1]. `u, v` follow glTF (v = 0 at the image top).
    @inline(__always)
    func sample(_ t: Int, u: Float, v: Float, level: Int, wrapS: UInt8, wrapT: UInt8) -> SIMD4<Float> {
        let e = entries[t]
        return sample(firstLevel: e.firstLevel, levelCount: e.levelCount, u: u, v: v, level: level, wrapS: wrapS, wrapT: wrapT)
    }

    /// The same with the texture's level range already looked up.
    @inline(__always)
    func sample(firstLevel: Int, levelCount: Int, u: Float, v: Float, level: Int, wrapS: UInt8, wrapT: UInt8)
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
        let a = texel(row0[x0]), b = texel(row0[x1]), c = texel(row1[x0]), d = texel(row1[x1])
        let top = a + (b - a) * fx
        let bottom = c + (d - c) * fx
        return top + (bottom - top) * fy
    }

    @inline(__always)
    private func texel(_ p: UInt32) -> SIMD4<Float> {
        SIMD4(toLinear[Int(p & 0xFF)], toLinear[Int((p >> 8) & 0xFF)], toLinear[Int((p >> 16) & 0xFF)],
              Float(p >> 24) * (1 / 255))
    }
}
