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
    /// Per sample row, whether the edge filter found an edge sample in it (1) or not (0).
    let rowFlags: UnsafeMutablePointer<UInt8>

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
        rowFlags = .allocate(capacity: maxRows)
    }

    mutating func reset(cols: Int, rows: Int, background: SIMD3<Float>) {
        self.cols = cols
        self.rows = rows
        let n = cols * rows
        depth.update(repeating: -.infinity, count: n)
        color.update(repeating: SIMD4(background, 0), count: n)
        ids.update(repeating: 0, count: n)
    }

    /// Like `reset(cols:rows:background:)`, for a pass over `runs` only: colour in the runs,
    /// depth and ids across every row with runs and the rows next to them (what the edge
    /// filter reads); other rows are never read.
    mutating func reset(cols: Int, rows: Int, background: SIMD3<Float>, runs: SampleRuns) {
        self.cols = cols
        self.rows = rows
        let bg = SIMD4(background, 0)
        for r in 0..<rows {
            let here = !runs.range(row: r).isEmpty
            let near = here || (r > 0 && !runs.range(row: r - 1).isEmpty)
                || (r + 1 < rows && !runs.range(row: r + 1).isEmpty)
            guard near else { continue }
            (depth + r * cols).update(repeating: -.infinity, count: cols)
            (ids + r * cols).update(repeating: 0, count: cols)
            for k in runs.range(row: r) {
                let s = runs.spans[k]
                (color + r * cols + Int(s.x)).update(repeating: bg, count: Int(s.y - s.x) + 1)
            }
        }
    }

    func deallocate() {
        depth.deallocate()
        color.deallocate()
        ids.deallocate()
        ao.deallocate()
        scratch.deallocate()
        pixelOfColumn.deallocate()
        pixelOfRow.deallocate()
        rowFlags.deallocate()
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
    /// Per tile: pixels drawn at the full sample rate (what adaptive supersampling costs).
    let fullRatePerTile: UnsafeMutablePointer<Int>

    /// - Parameter pixels: `width × height × 4` initialised bytes, owned by the caller and valid
    ///   for as long as the frame buffer is used (the tiles write the image there directly).
    init(pixels: UnsafeMutablePointer<UInt8>, width: Int, height: Int, tiles: Int) {
        self.width = width
        self.height = height
        self.pixels = pixels
        coveredPerTile = .allocate(capacity: max(tiles, 1))
        coveredPerTile.initialize(repeating: 0, count: max(tiles, 1))
        nonFinitePerTile = .allocate(capacity: max(tiles, 1))
        nonFinitePerTile.initialize(repeating: 0, count: max(tiles, 1))
        fullRatePerTile = .allocate(capacity: max(tiles, 1))
        fullRatePerTile.initialize(repeating: 0, count: max(tiles, 1))
    }

    deinit {
        coveredPerTile.deallocate()
        nonFinitePerTile.deallocate()
        fullRatePerTile.deallocate()
    }

    /// Box-filters the samples of tile pixels (px0..<px1, py0..<py1) into the image; the
    /// buffer's sample (0, 0) is at supersampled coordinates (sx0, sy0).
    func resolve(
        _ b: TileBuffers, sx0: Int, sy0: Int, px0: Int, py0: Int, px1: Int, py1: Int, ss: Int, tile: Int,
        encode: UnsafePointer<UInt8>, centres: PixelPass? = nil
    ) {
        if let centres {
            return resolveAdaptive(
                b, sx0: sx0, sy0: sy0, px0: px0, py0: py0, px1: px1, py1: py1, ss: ss, tile: tile, encode: encode,
                centres: centres)
        }
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
                write(acc * scale, at: o, encode: encode, covered: &covered, nonFinite: &nonFinite)
                o += 4
            }
        }
        coveredPerTile[tile] = covered
        nonFinitePerTile[tile] = nonFinite
    }

    /// The adaptive resolve: pixels of `centres.resolved` box-filter their samples, the others
    /// take their centre sample.
    private func resolveAdaptive(
        _ b: TileBuffers, sx0: Int, sy0: Int, px0: Int, py0: Int, px1: Int, py1: Int, ss: Int, tile: Int,
        encode: UnsafePointer<UInt8>, centres: PixelPass
    ) {
        let scale = 1 / Float(ss * ss)
        var covered = 0, nonFinite = 0
        let w = centres.buffers.cols
        for py in py0..<py1 {
            let j = py - py0 + 1
            var o = (py * width + px0) * 4
            for px in px0..<px1 {
                let i = j * w + px - px0 + 1
                if centres.resolved[i] != 0 {
                    let first = b.color + (py * ss - sy0) * b.cols + px * ss - sx0
                    var acc = SIMD4<Float>.zero
                    for k in 0..<ss {
                        var column = first[k]
                        for r in 1..<max(ss, 1) { column += first[r * b.cols + k] }
                        acc += column
                    }
                    write(acc * scale, at: o, encode: encode, covered: &covered, nonFinite: &nonFinite)
                } else {
                    write(centres.buffers.color[i], at: o, encode: encode, covered: &covered, nonFinite: &nonFinite)
                }
                o += 4
            }
        }
        coveredPerTile[tile] = covered
        nonFinitePerTile[tile] = nonFinite
    }

    /// Encodes one linear colour (w > 0: something was drawn) as the RGBA8 pixel at byte `o`.
    @inline(__always)
    private func write(
        _ c: SIMD4<Float>, at o: Int, encode: UnsafePointer<UInt8>, covered: inout Int, nonFinite: inout Int
    ) {
        if c.w > 0 { covered += 1 }
        // x − x is 0 for a finite x and NaN otherwise, so the sum is 0 only when all three are.
        let d = c - c
        if !(d.x + d.y + d.z == 0) { nonFinite += 1 }
        UnsafeMutableRawPointer(pixels + o).storeBytes(of: ColorSpace.encodePixel(c, table: encode), as: UInt32.self)
    }

    /// Writes the centre samples of a tile no pixel of which needs the full rate.
    func store(
        _ centres: PixelPass, px0: Int, py0: Int, px1: Int, py1: Int, tile: Int, encode: UnsafePointer<UInt8>
    ) {
        var covered = 0, nonFinite = 0
        let w = centres.buffers.cols
        for py in py0..<py1 {
            var o = (py * width + px0) * 4
            var i = (py - py0 + 1) * w + 1
            for _ in px0..<px1 {
                write(centres.buffers.color[i], at: o, encode: encode, covered: &covered, nonFinite: &nonFinite)
                o += 4
                i += 1
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
    /// aliasing than a 2×2 box); odd trailing rows/columns are dropped. The horizontal pass is
    /// kept for the four source rows an output row reads (a ring of four rows, not the image).
    static func downsample2x(_ rgba: [UInt8], width: Int, height: Int) -> (rgba: [UInt8], width: Int, height: Int) {
        let w = max(1, width / 2), h = max(1, height / 2)
        var out = [UInt8](repeating: 255, count: w * h * 4)
        guard rgba.count >= width * height * 4 else { return (out, w, h) }
        // Taps (−1, 0, 1, 2) weigh 1, 3, 3, 1, edges clamped: horizontally into linear floats
        // (row r in ring slot r mod 4), then vertically.
        let ring = UnsafeMutablePointer<SIMD3<Float>>.allocate(capacity: 4 * w)
        defer { ring.deallocate() }
        var slotRow = [Int](repeating: -1, count: 4)
        ColorSpace.srgbToLinear.withUnsafeBufferPointer { linBuf in
            ColorSpace.linearToSRGBTable.withUnsafeBufferPointer { enc in
                rgba.withUnsafeBufferPointer { srcBuf in
                    out.withUnsafeMutableBufferPointer { dst in
                        let lin = linBuf.baseAddress!, src = srcBuf.baseAddress!, table = enc.baseAddress!
                        @inline(__always) func texel(_ o: Int) -> SIMD3<Float> {
                            SIMD3(lin[Int(src[o])], lin[Int(src[o + 1])], lin[Int(src[o + 2])])
                        }
                        func row(_ y: Int) -> UnsafeMutablePointer<SIMD3<Float>> {
                            let slot = ring + (y & 3) * w
                            guard slotRow[y & 3] != y else { return slot }
                            slotRow[y & 3] = y
                            let base = y * width
                            for x in 0..<w {
                                let xm = max(2 * x - 1, 0), x0 = min(2 * x, width - 1)
                                let x1 = min(2 * x + 1, width - 1), x2 = min(2 * x + 2, width - 1)
                                var acc = SIMD3<Float>.zero
                                acc += texel((base + xm) * 4) * 1
                                acc += texel((base + x0) * 4) * 3
                                acc += texel((base + x1) * 4) * 3
                                acc += texel((base + x2) * 4) * 1
                                slot[x] = acc * 0.125
                            }
                            return slot
                        }
                        for y in 0..<h {
                            // Rows 2y − 1 … 2y + 2 (clamped) are four rows in a row, so their slots differ.
                            let rm = row(max(2 * y - 1, 0)), r0 = row(min(2 * y, height - 1))
                            let r1 = row(min(2 * y + 1, height - 1)), r2 = row(min(2 * y + 2, height - 1))
                            for x in 0..<w {
                                var acc = SIMD3<Float>.zero
                                acc += rm[x] * 1
                                acc += r0[x] * 3
                                acc += r1[x] * 3
                                acc += r2[x] * 1
                                acc *= 0.125
                                let o = (y * w + x) * 4
                                dst[o] = ColorSpace.encode(acc.x, table: table)
                                dst[o + 1] = ColorSpace.encode(acc.y, table: table)
                                dst[o + 2] = ColorSpace.encode(acc.z, table: table)
                            }
                        }
                    }
                }
            }
        }
        return (out, w, h)
    }
}
