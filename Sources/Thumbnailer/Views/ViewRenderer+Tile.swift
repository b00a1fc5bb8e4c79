/// Scratch state of one rendering worker, reused for every tile it draws.
struct TileWork {
    var samples: TileBuffers
    var runs: SampleRuns
    var pixels: PixelPass?

    init(maxCols: Int, tilePixels: Int, adaptive: Bool) {
        samples = TileBuffers(maxCols: maxCols, maxRows: maxCols)
        runs = SampleRuns(maxPixelRows: tilePixels + 2, maxPixelColumns: tilePixels + 2, maxRows: maxCols)
        pixels = adaptive ? PixelPass(maxPixels: tilePixels) : nil
    }

    func deallocate() {
        samples.deallocate()
        runs.deallocate()
        pixels?.deallocate()
    }
}

extension ViewRenderer {
    /// Draws one tile: opaque surfaces, edges, transparent surfaces back to front, then the
    /// resolve. With a `PixelPass` in `work`, centre samples first and the full rate only where
    /// the pass finds edges; otherwise every sample.
    static func renderTile(
        _ tile: Int, work: inout TileWork, scene: RenderScene, pv: ProjectedVertices, grid: TileGrid,
        opaque: TileBins, transparent: TileBins, rig: LightRig, ao: CoarseOcclusion?,
        elementIDs: UnsafeBufferPointer<UInt16>, edges: EdgeFilter, drawEdges: Bool, background: SIMD3<Float>,
        frame: FrameBuffer, encode: UnsafePointer<UInt8>
    ) {
        let ss = grid.supersampling, a = grid.apron
        let tx = tile % grid.tilesX, ty = tile / grid.tilesX
        let px0 = tx * grid.tilePixels, py0 = ty * grid.tilePixels
        let px1 = min(px0 + grid.tilePixels, grid.width), py1 = min(py0 + grid.tilePixels, grid.height)
        let cols = (px1 - px0) * ss + 2 * a, rows = (py1 - py0) * ss + 2 * a
        let sx0 = px0 * ss - a, sy0 = py0 * ss - a
        if opaque.start[tile] == opaque.start[tile + 1] && transparent.start[tile] == transparent.start[tile + 1] {
            // Nothing touches the tile: background only.
            let rgb = SIMD3(
                ColorSpace.encode(background.x, table: encode), ColorSpace.encode(background.y, table: encode),
                ColorSpace.encode(background.z, table: encode))
            frame.fill(px0: px0, py0: py0, px1: px1, py1: py1, rgb: rgb, tile: tile)
            return
        }
        let passes = Passes(
            tile: tile, scene: scene, pv: pv, opaque: opaque, transparent: transparent, rig: rig,
            elementIDs: elementIDs, apron: a)
        var pixelMask: PixelPass?
        // A tile with more triangles than `PixelPass.denseTriangles` per pixel (a dense scan's
        // mesh) would send nearly every pixel to the full rate, after two centre passes that
        // only find that out: it is drawn at the full rate at once.
        let triangles = opaque.start[tile + 1] - opaque.start[tile] + transparent.start[tile + 1]
            - transparent.start[tile]
        let dense = Float(triangles) > PixelPass.denseTriangles * Float((px1 - px0) * (py1 - py0))
        if !dense, var pixels = work.pixels {
            // Centre samples of the tile and a one-pixel border: without occlusion to find the
            // edges, then (unless every pixel needs the full rate) with it for the others.
            let w = px1 - px0 + 2, h = py1 - py0 + 2
            let centres = SampleGrid(
                origin: Int64(ss) * ProjectedVertices.half, step: Int64(ss) * ProjectedVertices.one, c0: px0 - 1,
                r0: py0 - 1, cols: w, rows: h)
            pixels.runs.setFull(cols: w, rows: h)
            pixels.buffers.reset(cols: w, rows: h, background: background)
            let b = pixels.buffers
            b.ao.update(repeating: 1, count: w * h)
            pixels.slope.update(repeating: .zero, count: w * h)
            pixels.clearThin(cols: w, rows: h)
            // Textures count with their mean colour here, so their detail is not taken for edges.
            let first = passes.draw(
                b, grid: centres, runs: pixels.runs, step: Int64(ss) * ProjectedVertices.one, edges: nil,
                slope: pixels.slope, thin: pixels, meanTextures: true)
            let flat = first.allFlat
            work.pixels = pixels
            let any = pixels.classify(perspective: edges.perspective, orthoReference: edges.orthoReference)
            // Each pixel's occlusion, for its centre sample and for its samples below.
            ao?.fill(b.ao, x0: px0 - 1, y0: py0 - 1, width: w, height: h, scratch: b.scratch)
            if ao != nil || first.meanTextures, !(any && pixels.allResolved()) {
                if flat {
                    // Colour = ambient × occlusion + the rest: apply the occlusion now.
                    for i in 0..<(w * h) { b.color[i] += pixels.slope[i] * (b.ao[i] - 1) }
                } else if !any || pixels.buildUnresolvedRuns() {
                    // Drawn again with textures and occlusion: only the centres that are kept.
                    pixels.buffers.reset(cols: w, rows: h, background: background)
                    passes.draw(b, grid: centres, runs: pixels.runs, step: Int64(ss) * ProjectedVertices.one, edges: nil)
                }
            }
            guard any else {
                frame.store(pixels, px0: px0, py0: py0, px1: px1, py1: py1, tile: tile, encode: encode)
                return
            }
            frame.fullRatePerTile[tile] = pixels.buildRuns(work.runs, ss: ss, apron: a, cols: cols, rows: rows)
            pixelMask = pixels
        } else {
            work.runs.setFull(cols: cols, rows: rows)
            frame.fullRatePerTile[tile] = (px1 - px0) * (py1 - py0)
        }
        let runs = work.runs
        if pixelMask == nil {
            work.samples.reset(cols: cols, rows: rows, background: background)
        } else {
            work.samples.reset(cols: cols, rows: rows, background: background, runs: runs)
        }
        let b = work.samples, buffers = work.samples
        for c in 0..<cols { b.pixelOfColumn[c] = min(max(floorDiv(sx0 + c, ss), 0), grid.width - 1) }
        for r in 0..<rows { b.pixelOfRow[r] = min(max(floorDiv(sy0 + r, ss), 0), grid.height - 1) }
        fillSampleOcclusion(b, runs: runs, cols: cols, rows: rows, centres: pixelMask, ao: ao, px0: px0, py0: py0)
        let sampleGrid = SampleGrid(
            origin: ProjectedVertices.half, step: ProjectedVertices.one, c0: sx0, r0: sy0, cols: cols, rows: rows)
        passes.draw(buffers, grid: sampleGrid, runs: runs, step: ProjectedVertices.one, edges: drawEdges ? edges : nil)
        frame.resolve(
            buffers, sx0: sx0, sy0: sy0, px0: px0, py0: py0, px1: px1, py1: py1, ss: ss, tile: tile, encode: encode,
            centres: pixelMask)
    }

    /// Each sample's occlusion, in `b.ao`: its pixel's, as the centre pass (`centres`) has it, or
    /// from `ao` (computed once per pixel, then repeated along the row and copied to the
    /// following sample rows of the same pixel row); 1 without occlusion.
    @inline(__always)
    private static func fillSampleOcclusion(
        _ b: TileBuffers, runs: SampleRuns, cols: Int, rows: Int, centres pixelMask: PixelPass?, ao: CoarseOcclusion?,
        px0: Int, py0: Int
    ) {
        if let pixelMask, ao != nil {
            // Every sample takes its pixel's occlusion, as the centre pass has it.
            let pao = pixelMask.buffers.ao, pw = pixelMask.buffers.cols
            for r in 0..<rows {
                let src = pao + (b.pixelOfRow[r] - py0 + 1) * pw - px0 + 1
                let dst = b.ao + r * cols
                for k in runs.range(row: r) {
                    let span = runs.spans[k]
                    for c in Int(span.x)...Int(span.y) { dst[c] = src[b.pixelOfColumn[c]] }
                }
            }
        } else if let ao {
            // Every sample takes its pixel's occlusion: computed once per pixel, then repeated
            // along the row and copied to the following sample rows of the same pixel row.
            for r in 0..<rows {
                let y = b.pixelOfRow[r]
                let dst = b.ao + r * cols
                if r > 0 && b.pixelOfRow[r - 1] == y {
                    dst.update(from: dst - cols, count: cols)
                    continue
                }
                var lastX = -1
                var value: Float = 1
                for c in 0..<cols {
                    let x = b.pixelOfColumn[c]
                    if x != lastX {
                        value = ao.at(x: x, y: y)
                        lastX = x
                    }
                    dst[c] = value
                }
            }
        } else {
            b.ao.update(repeating: 1, count: cols * rows)
        }
    }

    /// The triangles of one tile and how to draw them into a buffer.
    private struct Passes {
        let tile: Int
        let scene: RenderScene
        let pv: ProjectedVertices
        let opaque: TileBins
        let transparent: TileBins
        let rig: LightRig
        let elementIDs: UnsafeBufferPointer<UInt16>
        let apron: Int

        /// What `draw` found: whether every surface drawn was flat and opaque (so `slope` is
        /// complete), and whether any texture was drawn with its mean colour.
        struct Drawn {
            var allFlat = true
            var meanTextures = false
        }

        /// Opaque surfaces, the edge filter (when given), then transparent surfaces, over the
        /// samples of `runs`; `step` is the sample spacing in fixed point (texture footprints).
        /// With `slope`, flat surfaces also record their ambient part there. With `thin`,
        /// triangles that centre samples could miss are marked there. With `meanTextures`,
        /// textures without an alpha cutoff are drawn with their mean colour.
        @discardableResult
        func draw(
            _ buffers: TileBuffers, grid: SampleGrid, runs: SampleRuns, step: Int64, edges: EdgeFilter?,
            slope: UnsafeMutablePointer<SIMD4<Float>>? = nil, thin: PixelPass? = nil, meanTextures: Bool = false
        ) -> Drawn {
            var drawn = Drawn()
            var shader = SurfaceShader(buffers: buffers, rig: rig, scene: scene, blend: false, step: step)
            shader.meanTextures = meanTextures
            for e in opaque.start[tile]..<opaque.start[tile + 1] {
                guard let t = RasterTriangle.make(opaque.ids[e], scene: scene, pv: pv, bins: opaque) else { continue }
                thin?.markIfThin(t, grid: grid)
                // Past the first pass (which reports what it drew), skip what the runs miss.
                guard thin != nil || Rasterizer.mayTouch(t, grid: grid, runs: runs) else { continue }
                shader.begin(t, elementID: elementIDs[Int(scene.triInstance[t.source])])
                if shader.meanTexel != nil { drawn.meanTextures = true }
                if shader.flat {
                    Rasterizer.rasterizeFlat(
                        t, grid: grid, buffers: buffers, ambient: shader.flatAmbient, direct: shader.flatDirect,
                        id: shader.id, runs: runs, slope: slope)
                } else {
                    drawn.allFlat = false
                    Rasterizer.rasterize(
                        t, grid: grid, depth: buffers.depth, mode: .testAndWrite, shader: &shader, runs: runs)
                }
            }
            edges?.apply(buffers, apron: apron, runs: runs)
            guard transparent.start[tile] < transparent.start[tile + 1] else { return drawn }
            drawn.allFlat = false
            var blend = SurfaceShader(buffers: buffers, rig: rig, scene: scene, blend: true, step: step)
            blend.meanTextures = meanTextures
            for e in transparent.start[tile]..<transparent.start[tile + 1] {
                guard let t = RasterTriangle.make(transparent.ids[e], scene: scene, pv: pv, bins: transparent) else {
                    continue
                }
                thin?.markIfThin(t, grid: grid)
                guard thin != nil || Rasterizer.mayTouch(t, grid: grid, runs: runs) else { continue }
                blend.begin(t, elementID: 0)
                if blend.meanTexel != nil { drawn.meanTextures = true }
                Rasterizer.rasterize(t, grid: grid, depth: buffers.depth, mode: .testOnly, shader: &blend, runs: runs)
            }
            return drawn
        }
    }
}
