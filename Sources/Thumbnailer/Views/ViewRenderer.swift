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
    /// Image pixels per occlusion pixel along each axis (2 or 4; the tile side is a multiple).
    var occlusionFactor = 2
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

    /// - Parameter storage: an image buffer to draw into instead of a new one (its pixels are
    ///   all overwritten; any count: it is replaced when it is not `width × height × 4`). A buffer
    ///   passed here without another reference is reused in place, which spares the memory a new
    ///   image costs to allocate and fault in.
    static func render(
        scene: RenderScene, camera: RenderCamera, hiddenInstance: [Bool], settings: RenderSettings, sceneRadius: Double,
        reusing storage: consuming [UInt8] = []
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
        let factor = settings.occlusionFactor == 4 && settings.tilePixels % 4 == 0 ? 4 : 2
        var ao: [Float] = []
        if settings.ambientOcclusion {
            ao = occlusion(
                scene: scene, pv: pv, bins: opaque, grid: grid, camera: camera, factor: factor,
                radius: settings.aoRadius ?? Float(max(sceneRadius, 1e-3) * 0.1))
        }
        if settings.showOcclusion && !ao.isEmpty {
            let w = camera.width, h = camera.height
            var rgba = [UInt8](repeating: 255, count: w * h * 4)
            ao.withUnsafeBufferPointer { half in
                let up = CoarseOcclusion(values: half.baseAddress!, width: w, height: h, factor: factor)
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
        // The tiles write every pixel of the image into the array that is returned (no copy).
        var rgba = storage
        if rgba.count != camera.width * camera.height * 4 {
            rgba = [UInt8](repeating: 255, count: camera.width * camera.height * 4)
        }
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
                                : CoarseOcclusion(
                                    values: aoBuf.baseAddress!, width: grid.width, height: grid.height,
                                    factor: factor)
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

    /// Depth and normals of the opaque surfaces at a coarse resolution (one sample per `factor` ×
    /// `factor` pixels) and screen-space occlusion there (read per pixel through
    /// `CoarseOcclusion`).
    private static func occlusion(
        scene: RenderScene, pv: ProjectedVertices, bins: TileBins, grid: TileGrid, camera: RenderCamera, factor k: Int,
        radius: Float
    ) -> [Float] {
        let w = grid.width, h = grid.height, ss = Int64(grid.supersampling)
        let w2 = (w + k - 1) / k, h2 = (h + k - 1) / k
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
            // tilePixels is a multiple of the factor, so coarse tiles do not overlap.
            let hx0 = px0 / k, hy0 = py0 / k, hx1 = (px1 + k - 1) / k, hy1 = (py1 + k - 1) / k
            let cols = hx1 - hx0, rows = hy1 - hy0
            let d = UnsafeMutablePointer<Float>.allocate(capacity: cols * rows)
            let n = UnsafeMutablePointer<SIMD3<Float>>.allocate(capacity: cols * rows)
            defer {
                d.deallocate()
                n.deallocate()
            }
            d.initialize(repeating: -.infinity, count: cols * rows)
            n.initialize(repeating: SIMD3(0, 1, 0), count: cols * rows)
            // Coarse pixel x is centred at image pixel coordinate k·x + k/2.
            let g = SampleGrid(
                origin: Int64(k) * ss * ProjectedVertices.half, step: Int64(k) * ss * ProjectedVertices.one, c0: hx0,
                r0: hy0, cols: cols, rows: rows)
            var shader = NormalShader(normals: n)
            for e in bins.start[tile]..<bins.start[tile + 1] {
                guard let t = RasterTriangle.make(bins.ids[e], scene: scene, pv: pv, bins: bins) else { continue }
                var nn = scene.faceNormals[t.source]
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
            radius: radius, pixelScale: Float(k))
    }
}
