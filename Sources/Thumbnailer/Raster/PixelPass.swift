/// Adaptive supersampling of one tile: the tile and a one-pixel border are first drawn with one
/// sample per pixel (at the pixel centre); pixels near a change of coverage, element, colour or
/// depth slope are then drawn again at the full sample rate, and every other pixel keeps its
/// centre sample. A pixel inside one smooth surface gets the same colour either way (its
/// occlusion is per pixel already, and its samples carry no edge line), so the full rate is
/// spent where edges and silhouettes are.
///
/// Masks, over the (tile + border) pixel grid:
/// - `complex`: both pixels of every neighbouring pair that differs (coverage, element id, more
///   than `colorTolerance` in a linear channel), and pixels whose depth key bends (second
///   difference above `bendTolerance` relative to the key, as the edge filter measures it);
///   the background and the surfaces differ in coverage (w), so silhouettes count; and pixels
///   near a triangle thin or small enough to fall between centres (`markIfThin`);
/// - `resolved` = `complex` widened by one pixel: these take the box filter of their samples;
/// - `rasterized` = `resolved` widened by one more: drawn at the full rate, so the edge filter of
///   every resolved sample sees its true neighbours (its reach is two samples, at most a pixel).
struct PixelPass {
    /// Linear colour difference between neighbouring centre samples that counts as an edge
    /// (about two 8-bit sRGB codes at a linear 0.03, less than one on light surfaces).
    static let colorTolerance: Float = 0.0025
    /// Depth-key bend (relative) above which a pixel counts as an edge; half the edge filter's
    /// lowest strength, which at one pixel's spacing it reaches first.
    static let bendTolerance: Float = 0.0004

    var buffers: TileBuffers
    var runs: SampleRuns
    /// Masks (0/1 per pixel, row-major over the grid), each with `pad` zero bytes before and
    /// after it so shifted vector loads stay inside the allocation.
    let complex: UnsafeMutablePointer<UInt8>
    let resolved: UnsafeMutablePointer<UInt8>
    let rasterized: UnsafeMutablePointer<UInt8>
    let right: UnsafeMutablePointer<UInt8>
    let below: UnsafeMutablePointer<UInt8>
    let scratch: UnsafeMutablePointer<UInt8>
    /// Pixels near a triangle too thin or too small for centre samples to see everywhere.
    let thin: UnsafeMutablePointer<UInt8>
    /// Colour channels of the centre samples as planes (for eight-wide comparisons).
    let planes: UnsafeMutablePointer<Float>
    /// Per centre sample, how its colour changes with occlusion (flat surfaces: their ambient
    /// part), so the occlusion can be applied after the edges are found.
    let slope: UnsafeMutablePointer<SIMD4<Float>>
    let capacity: Int
    let pad: Int

    init(maxPixels: Int) {
        let side = maxPixels + 2, n = side * side
        capacity = n
        pad = side + 32
        slope = .allocate(capacity: n)
        buffers = TileBuffers(maxCols: side, maxRows: side)
        runs = SampleRuns(maxPixelRows: side, maxPixelColumns: side, maxRows: side)
        planes = .allocate(capacity: 4 * n + 8)
        planes.initialize(repeating: 0, count: 4 * n + 8)
        func mask() -> UnsafeMutablePointer<UInt8> {
            let m = UnsafeMutablePointer<UInt8>.allocate(capacity: n + 2 * (side + 32))
            m.initialize(repeating: 0, count: n + 2 * (side + 32))
            return m + side + 32
        }
        complex = mask()
        resolved = mask()
        rasterized = mask()
        right = mask()
        below = mask()
        scratch = mask()
        thin = mask()
    }

    func deallocate() {
        slope.deallocate()
        buffers.deallocate()
        runs.deallocate()
        planes.deallocate()
        for m in [complex, resolved, rasterized, right, below, scratch, thin] { (m - pad).deallocate() }
    }

    typealias F8 = SIMD8<Float>
    typealias B16 = SIMD16<UInt8>

    @inline(__always) private static func load(_ p: UnsafeMutablePointer<Float>) -> F8 {
        UnsafeRawPointer(p).loadUnaligned(as: F8.self)
    }
    @inline(__always) private static func load(_ p: UnsafeMutablePointer<UInt8>) -> B16 {
        UnsafeRawPointer(p).loadUnaligned(as: B16.self)
    }
    @inline(__always) private static func store(_ v: B16, _ p: UnsafeMutablePointer<UInt8>) {
        UnsafeMutableRawPointer(p).storeBytes(of: v, as: B16.self)
    }
    @inline(__always) private static func bytes(_ m: SIMDMask<SIMD8<Int32>>) -> SIMD8<UInt8> {
        laneBytes(m)
    }

    /// Builds the three masks from the centre samples (drawn without occlusion: it is one value
    /// per pixel either way); returns whether any pixel needs the full rate.
    func classify(perspective: Bool, orthoReference: Float) -> Bool {
        let w = buffers.cols, h = buffers.rows, n = w * h
        let depth = buffers.depth, color = buffers.color, ids = buffers.ids
        let r = planes, g = planes + n, b = planes + 2 * n, a = planes + 3 * n
        // Vector loads read up to a row and a group past the grid: keep that zero.
        for m in [complex, resolved, rasterized, right, below, scratch, thin] { (m + n).update(repeating: 0, count: pad) }
        for i in 0..<n {
            let c = color[i]
            r[i] = c.x
            g[i] = c.y
            b[i] = c.z
            a[i] = c.w
        }
        // right[i]: pixel i differs from i + 1; below[i]: from i + w. Coverage shows in w (0
        // where nothing was drawn); NaN never compares greater.
        let tol2 = F8(repeating: Self.colorTolerance * Self.colorTolerance)
        func pairs(offset o: Int, count m: Int, into out: UnsafeMutablePointer<UInt8>) {
            guard m >= 8 else {
                for i in 0..<m {
                    let d = color[i] - color[i + o], q = d * d
                    let far = max(max(q.x, q.y), max(q.z, q.w)) > tol2[0]
                    out[i] = far || ids[i] != ids[i + o] ? 1 : 0
                }
                return
            }
            var i = 0
            while i < m {
                let i0 = min(i, m - 8)
                i = i0 + 8
                var d = Self.load(r + i0 + o) - Self.load(r + i0)
                var q = d * d
                d = Self.load(g + i0 + o) - Self.load(g + i0)
                q = vmax(q, d * d)
                d = Self.load(b + i0 + o) - Self.load(b + i0)
                q = vmax(q, d * d)
                d = Self.load(a + i0 + o) - Self.load(a + i0)
                q = vmax(q, d * d)
                let idA = UnsafeRawPointer(ids + i0).loadUnaligned(as: SIMD8<UInt16>.self)
                let idB = UnsafeRawPointer(ids + i0 + o).loadUnaligned(as: SIMD8<UInt16>.self)
                let idFlag = laneBytes(idA .!= idB)
                let v = Self.bytes(q .> tol2) | idFlag
                UnsafeMutableRawPointer(out + i0).storeBytes(of: v, as: SIMD8<UInt8>.self)
            }
        }
        pairs(offset: 1, count: n - 1, into: right)
        right[n - 1] = 0
        for y in 0..<h { right[y * w + w - 1] = 0 }
        pairs(offset: w, count: n - w, into: below)
        (below + n - w).update(repeating: 0, count: w)
        // Bends of the depth key (interior of the grid: the first and last columns, whose
        // neighbours would wrap to the next row, are cleared after).
        let bendFlags = scratch
        bendFlags.update(repeating: 0, count: n)
        let lo = w + 1, hi = n - w - 1
        if hi - lo >= 8 {
            let tol = F8(repeating: Self.bendTolerance), ninf = F8(repeating: -.infinity)
            let reference = F8(repeating: orthoReference)
            var i = lo
            while i < hi {
                let i0 = min(i, hi - 8)
                i = i0 + 8
                let k = Self.load(depth + i0)
                let bx = 2 * k - Self.load(depth + i0 - 1) - Self.load(depth + i0 + 1)
                let by = 2 * k - Self.load(depth + i0 - w) - Self.load(depth + i0 + w)
                let m = vmax(vmax(bx, -bx), vmax(by, -by))
                let ref = perspective ? vmax(k, -k) : reference
                // NaN counts as a bend.
                let bent = (k .> ninf) .& .!(m .<= tol * ref)
                UnsafeMutableRawPointer(bendFlags + i0).storeBytes(of: Self.bytes(bent), as: SIMD8<UInt8>.self)
            }
            for y in 0..<h {
                bendFlags[y * w] = 0
                bendFlags[y * w + w - 1] = 0
            }
        }
        var found = B16.zero
        var i = 0
        while i < n {
            let v = Self.load(right + i) | Self.load(right + i - 1) | Self.load(below + i) | Self.load(below + i - w)
                | Self.load(bendFlags + i) | Self.load(thin + i)
            Self.store(v, complex + i)
            found |= v
            i += 16
        }
        // The last group may have run past n: clear what it wrote there.
        (complex + n).update(repeating: 0, count: i - n)
        guard found != .zero else { return false }
        Self.dilate(complex, into: resolved, scratch: scratch, width: w, count: n)
        Self.dilate(resolved, into: rasterized, scratch: scratch, width: w, count: n)
        return true
    }

    /// 3×3 dilation of a 0/1 mask of `count` pixels in rows of `width`. Across the ends of rows
    /// the first and last columns (the border) may take each other's values, which only adds
    /// border pixels.
    static func dilate(
        _ src: UnsafeMutablePointer<UInt8>, into dst: UnsafeMutablePointer<UInt8>, scratch: UnsafeMutablePointer<UInt8>,
        width w: Int, count n: Int
    ) {
        var i = 0
        while i < n {
            store(load(src + i - 1) | load(src + i) | load(src + i + 1), scratch + i)
            i += 16
        }
        (scratch + n).update(repeating: 0, count: i - n)
        i = 0
        while i < n {
            store(load(scratch + i - w) | load(scratch + i) | load(scratch + i + w), dst + i)
            i += 16
        }
        (dst + n).update(repeating: 0, count: i - n)
    }

    /// Triangles narrower than `thinPixels` (twice the area over the longest side) or smaller
    /// than `smallPixels` across can fall between pixel centres.
    static let thinPixels = 1.25
    /// Triangles per pixel of a tile above which the tile skips the centre passes and is drawn at
    /// the full rate (at an eighth, nearly every pixel is near a thin or small triangle).
    static let denseTriangles: Float = 0.125
    static let smallPixels = 1.5

    /// Clears the thin-triangle mask for a grid of `cols` × `rows` pixels.
    func clearThin(cols: Int, rows: Int) { thin.update(repeating: 0, count: cols * rows) }

    /// Marks every pixel whose centre lies within about a pixel of `t` when `t` is thin or
    /// small (centres on `grid`, one pixel = `grid.step`), so its full-rate samples find it.
    func markIfThin(_ t: RasterTriangle, grid g: SampleGrid) {
        let px = Double(g.step)
        let ax = Double(t.x0), ay = Double(t.y0), bx = Double(t.x1), by = Double(t.y1)
        let cx = Double(t.x2), cy = Double(t.y2)
        let minX = min(ax, bx, cx), maxX = max(ax, bx, cx), minY = min(ay, by, cy), maxY = max(ay, by, cy)
        let l0 = ((cx - bx) * (cx - bx) + (cy - by) * (cy - by)).squareRoot()
        let l1 = ((ax - cx) * (ax - cx) + (ay - cy) * (ay - cy)).squareRoot()
        let l2 = ((bx - ax) * (bx - ax) + (by - ay) * (by - ay)).squareRoot()
        let longest = max(l0, l1, l2)
        let small = max(maxX - minX, maxY - minY) < Self.smallPixels * px
        guard longest > 0, small || Double(t.area) < Self.thinPixels * px * longest else { return }
        // Pixel centres within `reach` of all three edge lines (the triangle grown by it).
        let reach = 0.75 * px
        let origin = Double(g.origin)
        let c0 = max(Int(((minX - reach - origin) / px).rounded(.up)), g.c0)
        let c1 = min(Int(((maxX + reach - origin) / px).rounded(.down)), g.c0 + g.cols - 1)
        let r0 = max(Int(((minY - reach - origin) / px).rounded(.up)), g.r0)
        let r1 = min(Int(((maxY + reach - origin) / px).rounded(.down)), g.r0 + g.rows - 1)
        guard c0 <= c1, r0 <= r1 else { return }
        for r in r0...r1 {
            let y = origin + Double(r) * px
            for c in c0...c1 {
                let x = origin + Double(c) * px
                // E(p) = dx·(p.y − a.y) − dy·(p.x − a.x), ≥ 0 inside (positive area).
                let e0 = (cx - bx) * (y - by) - (cy - by) * (x - bx)
                let e1 = (ax - cx) * (y - cy) - (ay - cy) * (x - cx)
                let e2 = (bx - ax) * (y - ay) - (by - ay) * (x - ax)
                if e0 >= -reach * l0, e1 >= -reach * l1, e2 >= -reach * l2 {
                    thin[(r - g.r0) * g.cols + c - g.c0] = 1
                }
            }
        }
    }

    /// Whether every pixel of the tile (the grid without its border) takes the box filter.
    func allResolved() -> Bool {
        let w = buffers.cols, h = buffers.rows
        for y in 1..<(h - 1) {
            for x in 1..<(w - 1) where resolved[y * w + x] == 0 { return false }
        }
        return true
    }

    /// Sets `runs` to the centre samples of the tile's pixels that keep them (not `resolved`):
    /// the only centre samples a second drawing of the centres needs, since the resolved pixels
    /// take their full-rate samples. Returns whether there is any.
    func buildUnresolvedRuns() -> Bool {
        let w = buffers.cols, h = buffers.rows
        var count = 0
        for j in 0..<h {
            runs.first[j] = Int32(count)
            runs.pixelRow[j] = Int32(j)
            guard j > 0 && j < h - 1 else { continue }
            var i = 1
            while i < w - 1 {
                guard resolved[j * w + i] == 0 else {
                    i += 1
                    continue
                }
                let start = i
                while i < w - 1 && resolved[j * w + i] == 0 { i += 1 }
                runs.spans[count] = SIMD2(Int32(start), Int32(i - 1))
                count += 1
            }
        }
        runs.first[h] = Int32(count)
        return count > 0
    }

    /// The sample runs of the `rasterized` pixels: pixel column i of the grid (tile column
    /// i − 1) covers buffer columns (i − 1)·ss + apron ..< i·ss + apron; buffer row r lies in
    /// pixel row ⌊(r − apron) / ss⌋ + 1. Returns how many pixels of the tile (the grid without
    /// its border) are drawn at the full rate.
    @discardableResult
    func buildRuns(_ runs: SampleRuns, ss: Int, apron: Int, cols: Int, rows: Int) -> Int {
        let w = buffers.cols, h = buffers.rows
        var count = 0, inside = 0
        for j in 0..<h {
            runs.first[j] = Int32(count)
            var i = 0
            while i < w {
                guard rasterized[j * w + i] != 0 else {
                    i += 1
                    continue
                }
                let start = i
                while i < w && rasterized[j * w + i] != 0 { i += 1 }
                if j > 0 && j < h - 1 { inside += max(0, min(i, w - 1) - max(start, 1)) }
                let lo = max(0, (start - 1) * ss + apron), hi = min(cols - 1, (i - 1) * ss + apron - 1)
                if lo <= hi {
                    runs.spans[count] = SIMD2(Int32(lo), Int32(hi))
                    count += 1
                }
            }
        }
        runs.first[h] = Int32(count)
        for r in 0..<rows { runs.pixelRow[r] = Int32(min(max(floorDiv(r - apron, ss) + 1, 0), h - 1)) }
        return inside
    }
}

