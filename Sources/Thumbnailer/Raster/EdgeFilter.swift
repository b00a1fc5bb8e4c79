/// Darkens samples on the near side of depth discontinuities, on convex creases and (for
/// room-like scenes) where one element meets another, so white-box rooms read as drawings.
///
/// Depth keys are affine in screen space on planes, so their second difference is ~0 on any flat
/// surface whatever its slope and large only where surfaces break; a positive value means the
/// sample stands out toward the camera (a silhouette or a convex edge). The one-sample edge
/// mask is then widened by a half-strength ring so lines stay visible after the resolve.
struct EdgeFilter {
    /// Second-difference range (relative to the depth key) mapped to edge strength 0…1.
    var low: Float = 0.0008
    var high: Float = 0.006
    /// Colour multiplier at full strength.
    var darkening: Float = 0.5
    /// Strength of element-boundary lines.
    var idStrength: Float = 0.8
    /// Strength of the ring around each edge sample, relative to it.
    var ring: Float = 0.55
    var useIDs: Bool
    var perspective: Bool
    /// Orthographic views: the key difference counted as "relative 1" (scene size × depth scale).
    var orthoReference: Float

    /// Samples needed around the filtered area.
    static let apron = 2

    /// Filters the samples of `runs` (rows without runs are skipped; their strength is 0).
    func apply(_ b: TileBuffers, apron: Int, runs: SampleRuns) {
        let cols = b.cols, rows = b.rows
        guard cols >= 10, rows >= 3 else { return applyScalar(b, apron: apron) }
        markEdges(b, runs: runs)
        darkenEdges(b, apron: apron, runs: runs)
    }

    /// Pass 1: each sample's edge strength into `b.scratch` (rows of `runs` only; the others
    /// 0), and into `b.rowFlags` whether each row has a non-zero one.
    @inline(__always)
    private func markEdges(_ b: TileBuffers, runs: SampleRuns) {
        let cols = b.cols, rows = b.rows
        let strength = b.scratch
        let rowHasEdge = b.rowFlags
        typealias V = SIMD8<Float>
        let span = V(repeating: 1 / (high - low)), lowV = V(repeating: low)
        let ninf = V(repeating: -.infinity)
        let orthoRef = V(repeating: orthoReference)
        let idV = V(repeating: idStrength)
        // Pass 1: edge strength of samples 1 ..< cols − 1 of rows 1 ..< rows − 1, eight at a time
        // (the last group overlaps the previous one; the result is a pure function of the input).
        // A background neighbour makes the second difference +∞, so silhouettes saturate at 1.
        // Every group is stored (zeros included), and each row records whether any sample of it
        // has a non-zero strength, so pass 2 only visits rows near an edge.
        rowHasEdge[0] = 0
        rowHasEdge[rows - 1] = 0
        for r in 1..<(rows - 1) {
            let d = b.depth + r * cols, ids = b.ids + r * cols, out = strength + r * cols
            let spans = runs.range(row: r)
            guard !spans.isEmpty else {
                out.update(repeating: 0, count: cols)
                rowHasEdge[r] = 0
                continue
            }
            // Each run's columns start ..< stop, at least eight of them; the rest of the row is 0.
            if spans.count > 1 { (out + 1).update(repeating: 0, count: cols - 2) }
            var rowEdge = false
            for k in spans {
                let run = runs.spans[k]
                var start = max(1, Int(run.x)), stop = min(cols - 1, Int(run.y) + 1)
                if stop - start < 8 {
                    stop = min(cols - 1, start + 8)
                    start = stop - 8
                }
                if spans.count == 1 {
                    if start > 1 { (out + 1).update(repeating: 0, count: start - 1) }
                    if stop < cols - 1 { (out + stop).update(repeating: 0, count: cols - 1 - stop) }
                }
                var c = start
                while c < stop {
                    let c0 = min(c, stop - 8)
                    c = c0 + 8
                    let k = load(d + c0), kl = load(d + c0 - 1), kr = load(d + c0 + 1)
                    let ku = load(d + c0 - cols), kd = load(d + c0 + cols)
                    let geometry = k .> ninf
                    let m = vmax(2 * k - kl - kr, 2 * k - ku - kd)
                    let ref = perspective ? k : orthoRef
                    let q = m / ref
                    // Fast path: inside a surface (no second difference above `low`, NaN included) and
                    // one element around every sample, so the strength is 0.
                    if !anyLane(geometry .& (q .> lowV)) {
                        let id = loadIDs16(ids + c0)
                        if !useIDs
                            || allLanes(
                                (loadIDs16(ids + c0 - 1) .== id) .& (loadIDs16(ids + c0 + 1) .== id)
                                    .& (loadIDs16(ids + c0 - cols) .== id) .& (loadIDs16(ids + c0 + cols) .== id))
                            || !anyLane(geometry)
                        {
                            UnsafeMutableRawPointer(out + c0).storeBytes(of: V.zero, as: V.self)
                            continue
                        }
                    }
                    var e = vmin(vmax((q - lowV) * span, V.zero), V.one)
                    e.replace(with: V.zero, where: .!(e .== e))  // NaN → 0
                    if useIDs {
                        let id = loadIDs(ids + c0)
                        let boundary =
                            (loadIDs(ids + c0 - 1) .!= id .& (kl .<= k))
                            .| (loadIDs(ids + c0 + 1) .!= id .& (kr .<= k))
                            .| (loadIDs(ids + c0 - cols) .!= id .& (ku .<= k))
                            .| (loadIDs(ids + c0 + cols) .!= id .& (kd .<= k))
                        e.replace(with: vmax(e, idV), where: boundary)
                    }
                    e.replace(with: V.zero, where: .!geometry)
                    UnsafeMutableRawPointer(out + c0).storeBytes(of: e, as: V.self)
                    if anyLane(e .> V.zero) { rowEdge = true }
                }
            }
            rowHasEdge[r] = rowEdge ? 1 : 0
        }
    }

    /// Pass 2: widens the edges of `b.scratch` by a ring and darkens the colours under them.
    @inline(__always)
    private func darkenEdges(_ b: TileBuffers, apron: Int, runs: SampleRuns) {
        let cols = b.cols, rows = b.rows
        let strength = b.scratch
        let rowHasEdge = b.rowFlags
        typealias V = SIMD8<Float>
        // Pass 2: widen by a ring of lower strength and darken the interior (rows with an edge
        // sample in them or next to them only; elsewhere the strength is 0 and nothing changes).
        let ringV = V(repeating: ring), dark = V(repeating: darkening)
        for r in apron..<(rows - apron) where rowHasEdge[r - 1] | rowHasEdge[r] | rowHasEdge[r + 1] != 0 {
            let st = strength + r * cols, color = b.color + r * cols
            for k in runs.range(row: r) {
                let run = runs.spans[k]
                let stop = min(cols - apron, Int(run.y) + 1)
                var c = max(apron, Int(run.x))
                while c + 8 <= stop {
                    let around = vmax(
                        vmax(load(st + c - 1), load(st + c + 1)), vmax(load(st + c - cols), load(st + c + cols)))
                    let e = vmax(load(st + c), around * ringV)
                    if anyLane(e .> .zero) {
                        let f = 1 - dark * e
                        for i in 0..<8 where e[i] > 0 {
                            let v = color[c + i]
                            color[c + i] = SIMD4(v.x * f[i], v.y * f[i], v.z * f[i], v.w)
                        }
                    }
                    c += 8
                }
                while c < stop {
                    let around = max(max(st[c - 1], st[c + 1]), max(st[c - cols], st[c + cols]))
                    let e = max(st[c], around * ring)
                    if e > 0 {
                        let f = 1 - darkening * e
                        let v = color[c]
                        color[c] = SIMD4(v.x * f, v.y * f, v.z * f, v.w)
                    }
                    c += 1
                }
            }
        }
    }

    @inline(__always)
    private func load(_ p: UnsafeMutablePointer<Float>) -> SIMD8<Float> {
        UnsafeRawPointer(p).loadUnaligned(as: SIMD8<Float>.self)
    }

    @inline(__always)
    private func loadIDs16(_ p: UnsafeMutablePointer<UInt16>) -> SIMD8<UInt16> {
        UnsafeRawPointer(p).loadUnaligned(as: SIMD8<UInt16>.self)
    }

    @inline(__always)
    private func loadIDs(_ p: UnsafeMutablePointer<UInt16>) -> SIMD8<Float> {
        SIMD8<Float>(UnsafeRawPointer(p).loadUnaligned(as: SIMD8<UInt16>.self))
    }

    /// The same filter one sample at a time (tiles too small for eight-wide groups).
    private func applyScalar(_ b: TileBuffers, apron: Int) {
        let cols = b.cols, rows = b.rows
        let strength = b.scratch
        strength.update(repeating: 0, count: cols * rows)
        for r in 1..<max(1, rows - 1) {
            for c in 1..<max(1, cols - 1) {
                let i = r * cols + c
                let k = b.depth[i]
                guard k > -.infinity else { continue }
                let kl = b.depth[i - 1], kr = b.depth[i + 1], ku = b.depth[i - cols], kd = b.depth[i + cols]
                let m = max(2 * k - kl - kr, 2 * k - ku - kd)
                var e = min(max((m / (perspective ? k : orthoReference) - low) / (high - low), 0), 1)
                if e.isNaN { e = 0 }
                if useIDs {
                    let id = b.ids[i]
                    if (b.ids[i - 1] != id && kl <= k) || (b.ids[i + 1] != id && kr <= k)
                        || (b.ids[i - cols] != id && ku <= k) || (b.ids[i + cols] != id && kd <= k)
                    {
                        e = max(e, idStrength)
                    }
                }
                strength[i] = e
            }
        }
        for r in apron..<max(apron, rows - apron) {
            for c in apron..<max(apron, cols - apron) {
                let i = r * cols + c
                let around = max(max(strength[i - 1], strength[i + 1]), max(strength[i - cols], strength[i + cols]))
                let e = max(strength[i], around * ring)
                if e > 0 {
                    let f = 1 - darkening * e
                    let v = b.color[i]
                    b.color[i] = SIMD4(v.x * f, v.y * f, v.z * f, v.w)
                }
            }
        }
    }
}
