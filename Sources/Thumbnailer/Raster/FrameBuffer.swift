/// Sample buffers of one tile (apron included) at the supersampled resolution: depth keys,
/// linear colour (w = 1 where something was drawn), element ids, per-sample occlusion, and
/// scratch space. Allocated once per worker at the largest tile size and reused for every tile
/// it renders.
struct TileBuffers {
    let capacity: Int
    var cols: Int
    var rows: Int
    let depth: UnsafeMutablePointer<Float>
    let color: UnsafeMutablePointer<SIMD4<Float>>
    let ids: UnsafeMutablePointer<UInt16>
    let ao: UnsafeMutablePointer<Float>
    let scratch: UnsafeMutablePointer<Float>
    /// Image pixel column/row of each sample column/row (clamped to the image).
    let pixelOfColumn: UnsafeMutablePointer<Int>
    let pixelOfRow: UnsafeMutablePointer<Int>

    init(maxCols: Int, maxRows: Int) {
        capacity = maxCols * maxRows
        cols = maxCols
        rows = maxRows
        depth = .allocate(capacity: capacity)
        color = .allocate(capacity: capacity)
        ids = .allocate(capacity: capacity)
        ao = .allocate(capacity: capacity)
        scratch = .allocate(capacity: capacity)
        pixelOfColumn = .allocate(capacity: maxCols)
        pixelOfRow = .allocate(capacity: maxRows)
    }

    mutating func reset(cols: Int, rows: Int, background: SIMD3<Float>) {
        self.cols = cols
        self.rows = rows
        let n = cols * rows
        depth.update(repeating: -.infinity, count: n)
        color.update(repeating: SIMD4(background, 0), count: n)
        ids.update(repeating: 0, count: n)
    }

    func deallocate() {
        depth.deallocate()
        color.deallocate()
        ids.deallocate()
        ao.deallocate()
        scratch.deallocate()
        pixelOfColumn.deallocate()
        pixelOfRow.deallocate()
    }
}

/// An output image being written by tiles (disjoint rectangles, so no locking): RGBA8 sRGB.
final class FrameBuffer: @unchecked Sendable {
    let width: Int
    let height: Int
    let pixels: UnsafeMutablePointer<UInt8>
    /// Per tile: pixels where something was drawn.
    let coveredPerTile: UnsafeMutablePointer<Int>
    /// Per tile: pixels whose filtered colour was not finite (written as black; a renderer bug).
    let nonFinitePerTile: UnsafeMutablePointer<Int>

    init(width: Int, height: Int, tiles: Int) {
        self.width = width
        self.height = height
        pixels = .allocate(capacity: width * height * 4)
        pixels.initialize(repeating: 255, count: width * height * 4)
        coveredPerTile = .allocate(capacity: max(tiles, 1))
        coveredPerTile.initialize(repeating: 0, count: max(tiles, 1))
        nonFinitePerTile = .allocate(capacity: max(tiles, 1))
        nonFinitePerTile.initialize(repeating: 0, count: max(tiles, 1))
    }

    deinit {
        pixels.deallocate()
        coveredPerTile.deallocate()
        nonFinitePerTile.deallocate()
    }

    var rgba: [UInt8] { [UInt8](UnsafeBufferPointer(start: pixels, count: width * height * 4)) }

    /// Box-filters the samples of tile pixels (px0..<px1, py0..<py1) into the image; the
    /// buffer's sample (0, 0) is at supersampled coordinates (sx0, sy0).
    func resolve(
        _ b: TileBuffers, sx0: Int, sy0: Int, px0: Int, py0: Int, px1: Int, py1: Int, ss: Int, tile: Int,
        encode: UnsafePointer<UInt8>
    ) {
        let scale = 1 / Float(ss * ss)
        var covered = 0, nonFinite = 0
        // Column sums of each pixel row's `ss` sample rows, then sums of `ss` columns.
        let sums = UnsafeMutableRawPointer(b.scratch).bindMemory(to: SIMD4<Float>.self, capacity: b.cols)
        let c0 = px0 * ss - sx0, n = (px1 - px0) * ss
        for py in py0..<py1 {
            let r0 = py * ss - sy0
            let first = b.color + r0 * b.cols + c0
            for c in 0..<n { sums[c] = first[c] }
            for r in 1..<max(ss, 1) {
                let row = b.color + (r0 + r) * b.cols + c0
                for c in 0..<n { sums[c] += row[c] }
            }
            var o = (py * width + px0) * 4
            var c = 0
            for _ in px0..<px1 {
                var acc = sums[c]
                for k in 1..<max(ss, 1) { acc += sums[c + k] }
                c += ss
                acc *= scale
                if acc.w > 0 { covered += 1 }
                if !(acc.x.isFinite && acc.y.isFinite && acc.z.isFinite) { nonFinite += 1 }
                pixels[o] = ColorSpace.encode(acc.x, table: encode)
                pixels[o + 1] = ColorSpace.encode(acc.y, table: encode)
                pixels[o + 2] = ColorSpace.encode(acc.z, table: encode)
                pixels[o + 3] = 255
                o += 4
            }
        }
        coveredPerTile[tile] = covered
        nonFinitePerTile[tile] = nonFinite
    }

    /// Fills tile pixels with one colour (tiles no triangle touches).
    func fill(px0: Int, py0: Int, px1: Int, py1: Int, rgb: SIMD3<UInt8>, tile: Int) {
        for py in py0..<py1 {
            var o = (py * width + px0) * 4
            for _ in px0..<px1 {
                pixels[o] = rgb.x
                pixels[o + 1] = rgb.y
                pixels[o + 2] = rgb.z
                pixels[o + 3] = 255
                o += 4
            }
        }
        coveredPerTile[tile] = 0
        nonFinitePerTile[tile] = 0
    }

    /// Halves an RGBA8 sRGB image with a separable [1 3 3 1]/8 filter in linear space (less
    /// aliasing than a 2×2 box); odd trailing rows/columns are dropped.
    static func downsample2x(_ rgba: [UInt8], width: Int, height: Int) -> (rgba: [UInt8], width: Int, height: Int) {
        let w = max(1, width / 2), h = max(1, height / 2)
        var out = [UInt8](repeating: 255, count: w * h * 4)
        let lin = ColorSpace.srgbToLinear
        let taps: [(Int, Float)] = [(-1, 1), (0, 3), (1, 3), (2, 1)]
        // Horizontal pass into linear floats.
        var tmp = [SIMD3<Float>](repeating: .zero, count: w * height)
        for y in 0..<height {
            for x in 0..<w {
                var acc = SIMD3<Float>.zero
                for (d, wt) in taps {
                    let sx = min(max(2 * x + d, 0), width - 1)
                    let o = (y * width + sx) * 4
                    acc += SIMD3(lin[Int(rgba[o])], lin[Int(rgba[o + 1])], lin[Int(rgba[o + 2])]) * wt
                }
                tmp[y * w + x] = acc * 0.125
            }
        }
        ColorSpace.linearToSRGBTable.withUnsafeBufferPointer { enc in
            for y in 0..<h {
                for x in 0..<w {
                    var acc = SIMD3<Float>.zero
                    for (d, wt) in taps {
                        let sy = min(max(2 * y + d, 0), height - 1)
                        acc += tmp[sy * w + x] * wt
                    }
                    acc *= 0.125
                    let o = (y * w + x) * 4
                    out[o] = ColorSpace.encode(acc.x, table: enc.baseAddress!)
                    out[o + 1] = ColorSpace.encode(acc.y, table: enc.baseAddress!)
                    out[o + 2] = ColorSpace.encode(acc.z, table: enc.baseAddress!)
                }
            }
        }
        return (out, w, h)
    }
}
