import Dispatch

/// How one frame is rendered.
struct RenderSettings: Sendable {
    var supersampling: Int = 3
    /// Full-rate samples only near edges (see `PixelPass`); false: every pixel at the full rate.
    var adaptive = true
    /// Studio lighting (false: every surface shows its base colour).
    var lit = true
    var ambientOcclusion = true
    var edges = true
    /// Element-boundary lines (room-like scenes).
    var idEdges = false
    var cullBackFaces = true
    /// Linear RGB of the background.
    var background = ColorSpace.linear(hex: Palette.background)
    var tilePixels = 32
    /// World radius of the ambient occlusion; nil: a tenth of the scene radius.
    var aoRadius: Float?
    /// Diagnostics: output the occlusion factors as grey levels instead of the image.
    var showOcclusion = false
}

/// Renders one frame of a `RenderScene`: projection, binning, an optional half-resolution depth
/// pass for ambient occlusion, then per tile (in parallel, each tile independent) a pass of centre
/// samples that finds the pixels needing the full sample rate (`PixelPass`, unless adaptive
/// sampling is off), and over those opaque surfaces, edges, transparent surfaces back to front,
/// and the box-filter resolve.
enum ViewRenderer {
    struct Output {
        var rgba: [UInt8]
        var covered: Int
        var nonFinite: Int
        /// Pixels drawn at the full sample rate (all of them without adaptive sampling).
        var fullRate = 0
    }

    static func render(
        scene: RenderScene, camera: RenderCamera, hiddenInstance: [Bool], settings: RenderSettings, sceneRadius: Double
    ) -> Output {
        let ss = min(max(settings.supersampling, 1), 4)
        let grid = TileGrid(
            width: camera.width, height: camera.height, supersampling: ss, tilePixels: settings.tilePixels)
        let pv = ProjectedVertices(scene: scene, camera: camera, supersampling: ss)
        var hidden = hiddenInstance
        if hidden.count != scene.instances.count { hidden = [Bool](repeating: false, count: scene.instances.count) }
        let opaque = TileBinner.bin(
            scene: scene, projected: pv, camera: camera, grid: grid, sequence: nil,
            filter: .init(transparent: false, cullBackFaces: settings.cullBackFaces, hiddenInstance: hidden))
        let transparentOrder = sortedTransparent(scene: scene, camera: camera, hidden: hidden)
        let transparent = TileBinner.bin(
            scene: scene, projected: pv, camera: camera, grid: grid, sequence: transparentOrder,
            filter: .init(transparent: true, cullBackFaces: settings.cullBackFaces, hiddenInstance: hidden))
        let rig = settings.lit ? LightRig(camera: camera) : .unlit
        var ao: [Float] = []
        if settings.ambientOcclusion {
            ao = occlusion(
                scene: scene, pv: pv, bins: opaque, grid: grid, camera: camera,
                radius: settings.aoRadius ?? Float(max(sceneRadius, 1e-3) * 0.1))
        }
        if settings.showOcclusion && !ao.isEmpty {
            let w = camera.width, h = camera.height
            var rgba = [UInt8](repeating: 255, count: w * h * 4)
            ao.withUnsafeBufferPointer { half in
                let up = HalfResolutionOcclusion(values: half.baseAddress!, width: w, height: h)
                for y in 0..<h {
                    for x in 0..<w {
                        let g = UInt8(max(0, min(255, up.at(x: x, y: y) * 255)))
                        let i = (y * w + x) * 4
                        rgba[i] = g
                        rgba[i + 1] = g
                        rgba[i + 2] = g
                    }
                }
            }
            return Output(rgba: rgba, covered: 0, nonFinite: 0)
        }
        let edges = EdgeFilter(
            useIDs: settings.idEdges, perspective: camera.perspective,
            orthoReference: Float(max(sceneRadius, 1e-3) * camera.depthScale) * 0.05)
        let elementIDs = scene.instances.map { inst -> UInt16 in
            inst.element >= 0 ? UInt16(Int(inst.element) % 65534 + 1) : 65535
        }
        let maxCols = grid.tilePixels * ss + 2 * grid.apron
        let adaptive = settings.adaptive && ss > 1
        // The tiles write the image into the array that is returned (no copy).
        var rgba = [UInt8](repeating: 255, count: camera.width * camera.height * 4)
        var covered = 0, nonFinite = 0, fullRate = 0
        rgba.withUnsafeMutableBufferPointer { image in
            let frame = FrameBuffer(
                pixels: image.baseAddress!, width: camera.width, height: camera.height, tiles: grid.tileCount)
            ColorSpace.linearToSRGBTable.withUnsafeBufferPointer { enc in
                ao.withUnsafeBufferPointer { aoBuf in
                    elementIDs.withUnsafeBufferPointer { eids in
                        Parallel.forEachTask(
                            grid.tileCount,
                            setUp: { TileWork(maxCols: maxCols, tilePixels: grid.tilePixels, adaptive: adaptive) },
                            tearDown: { $0.deallocate() }
                        ) { work, tile in
                            let occlusion = aoBuf.isEmpty
                                ? nil
                                : HalfResolutionOcclusion(
                                    values: aoBuf.baseAddress!, width: grid.width, height: grid.height)
                            renderTile(
                                tile, work: &work, scene: scene, pv: pv, grid: grid, opaque: opaque,
                                transparent: transparent, rig: rig, ao: occlusion, elementIDs: eids,
                                edges: edges, drawEdges: settings.edges,
                                background: settings.background, frame: frame, encode: enc.baseAddress!)
                        }
                    }
                }
            }
            for t in 0..<grid.tileCount {
                covered += frame.coveredPerTile[t]
                nonFinite += frame.nonFinitePerTile[t]
                fullRate += frame.fullRatePerTile[t]
            }
        }
        return Output(rgba: rgba, covered: covered, nonFinite: nonFinite, fullRate: fullRate)
    }

    /// Visible transparent triangles, farthest first (ties: lower id first).
    private static func sortedTransparent(scene: RenderScene, camera: RenderCamera, hidden: [Bool]) -> [UInt32] {
        var keyed: [(depth: Float, id: UInt32)] = []
        for t in 0..<scene.triangleCount {
            let m = scene.triMaterial[t]
            guard m != RenderScene.invalidMaterial, scene.materials[Int(m)].transparent,
                !hidden[Int(scene.triInstance[t])]
            else { continue }
            var z: Float = 0
            for k in 0..<3 {
                let p = scene.positions + Int(scene.indices[t * 3 + k]) * 3
                z += camera.clipFromWorld.transformPoint(p[0], p[1], p[2]).z
            }
            keyed.append((z.isFinite ? z : 0, UInt32(t)))
        }
        keyed.sort { $0.depth != $1.depth ? $0.depth > $1.depth : $0.id < $1.id }
        return keyed.map { $0.id }
    }

    /// Depth and normals of the opaque surfaces at half resolution (one sample per 2×2 pixels) and
    /// screen-space occlusion there (read per pixel through `HalfResolutionOcclusion`).
    private static func occlusion(
        scene: RenderScene, pv: ProjectedVertices, bins: TileBins, grid: TileGrid, camera: RenderCamera, radius: Float
    ) -> [Float] {
        let w = grid.width, h = grid.height, ss = Int64(grid.supersampling)
        let w2 = (w + 1) / 2, h2 = (h + 1) / 2
        let depth = UnsafeMutablePointer<Float>.allocate(capacity: w2 * h2)
        defer { depth.deallocate() }
        let normals = UnsafeMutablePointer<SIMD3<Float>>.allocate(capacity: w2 * h2)
        defer { normals.deallocate() }
        depth.initialize(repeating: -.infinity, count: w2 * h2)
        normals.initialize(repeating: SIMD3(0, 1, 0), count: w2 * h2)
        Parallel.forEach(grid.tileCount) { tile in
            let tx = tile % grid.tilesX, ty = tile / grid.tilesX
            let px0 = tx * grid.tilePixels, py0 = ty * grid.tilePixels
            let px1 = min(px0 + grid.tilePixels, w), py1 = min(py0 + grid.tilePixels, h)
            // tilePixels is even, so half-resolution tiles do not overlap.
            let hx0 = px0 / 2, hy0 = py0 / 2, hx1 = (px1 + 1) / 2, hy1 = (py1 + 1) / 2
            let cols = hx1 - hx0, rows = hy1 - hy0
            let d = UnsafeMutablePointer<Float>.allocate(capacity: cols * rows)
            let n = UnsafeMutablePointer<SIMD3<Float>>.allocate(capacity: cols * rows)
            defer {
                d.deallocate()
                n.deallocate()
            }
            d.initialize(repeating: -.infinity, count: cols * rows)
            n.initialize(repeating: SIMD3(0, 1, 0), count: cols * rows)
            // Half-resolution pixel x is centred at full-resolution pixel coordinate 2x + 1.
            let g = SampleGrid(
                origin: ss * ProjectedVertices.one, step: 2 * ss * ProjectedVertices.one, c0: hx0, r0: hy0,
                cols: cols, rows: rows)
            var shader = NormalShader(normals: n)
            for e in bins.start[tile]..<bins.start[tile + 1] {
                guard let t = RasterTriangle.make(bins.ids[e], scene: scene, pv: pv, bins: bins) else { continue }
                let s = t.source
                let p0 = load3(scene.positions, Int(scene.indices[s * 3]))
                let p1 = load3(scene.positions, Int(scene.indices[s * 3 + 1]))
                let p2 = load3(scene.positions, Int(scene.indices[s * 3 + 2]))
                var nn = (p1 - p0).cross(p2 - p0).normalizedOrZero
                if !t.front { nn = -nn }
                shader.n = nn
                Rasterizer.rasterize(t, grid: g, depth: d, mode: .testAndWrite, shader: &shader)
            }
            for r in 0..<rows {
                for c in 0..<cols {
                    depth[(hy0 + r) * w2 + hx0 + c] = d[r * cols + c]
                    normals[(hy0 + r) * w2 + hx0 + c] = n[r * cols + c]
                }
            }
        }
        return AmbientOcclusion.compute(
            depth: depth, normals: normals, width: w2, height: h2, camera: camera,
            radius: radius, pixelScale: 2)
    }
}

/// Occlusion factors computed at half resolution (one per 2×2 pixels), read back per pixel with
/// bilinear interpolation: full-resolution pixel x sits at half-resolution coordinate x/2 − 1/4.
struct HalfResolutionOcclusion {
    let values: UnsafePointer<Float>
    /// Full-resolution image size.
    let width: Int
    let height: Int
    var halfWidth: Int { (width + 1) / 2 }
    var halfHeight: Int { (height + 1) / 2 }

    @inline(__always)
    func at(x: Int, y: Int) -> Float {
        let w2 = halfWidth, h2 = halfHeight, src = values
        let fy = max(Float(y) * 0.5 - 0.25, 0)
        let y0 = min(Int(fy), h2 - 1), y1 = min(y0 + 1, h2 - 1)
        let ty = fy - Float(y0)
        let fx = max(Float(x) * 0.5 - 0.25, 0)
        let x0 = min(Int(fx), w2 - 1), x1 = min(x0 + 1, w2 - 1)
        let tx = fx - Float(x0)
        let top = src[y0 * w2 + x0] + (src[y0 * w2 + x1] - src[y0 * w2 + x0]) * tx
        let bottom = src[y1 * w2 + x0] + (src[y1 * w2 + x1] - src[y1 * w2 + x0]) * tx
        return top + (bottom - top) * ty
    }

    /// `at(x:y:)` of the pixels x0 ..< x0 + width, y0 ..< y0 + height (coordinates clamped to
    /// the image), row by row into `out`; `scratch` holds 3 × width floats.
    func fill(
        _ out: UnsafeMutablePointer<Float>, x0: Int, y0: Int, width w: Int, height h: Int,
        scratch: UnsafeMutablePointer<Float>
    ) {
        let w2 = halfWidth, h2 = halfHeight, src = values
        // Per column: the two half-resolution columns and the weight, as `at` computes them.
        let c0 = UnsafeMutableRawPointer(scratch).bindMemory(to: Int32.self, capacity: 2 * w)
        let c1 = c0 + w
        let tx = scratch + 2 * w
        for i in 0..<w {
            let x = min(max(x0 + i, 0), width - 1)
            let fx = max(Float(x) * 0.5 - 0.25, 0)
            let a = min(Int(fx), w2 - 1)
            c0[i] = Int32(a)
            c1[i] = Int32(min(a + 1, w2 - 1))
            tx[i] = fx - Float(a)
        }
        for j in 0..<h {
            let y = min(max(y0 + j, 0), height - 1)
            let fy = max(Float(y) * 0.5 - 0.25, 0)
            let ya = min(Int(fy), h2 - 1), yb = min(ya + 1, h2 - 1)
            let ty = fy - Float(ya)
            let ra = src + ya * w2, rb = src + yb * w2, dst = out + j * w
            for i in 0..<w {
                let a = Int(c0[i]), b = Int(c1[i]), t = tx[i]
                let top = ra[a] + (ra[b] - ra[a]) * t
                let bottom = rb[a] + (rb[b] - rb[a]) * t
                dst[i] = top + (bottom - top) * ty
            }
        }
    }
}
