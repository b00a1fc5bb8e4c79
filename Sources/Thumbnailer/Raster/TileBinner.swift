import Dispatch

/// How one view's image is cut into tiles: `tilePixels`² output pixels each, rasterised at
/// `supersampling`² samples per pixel with an `apron` of extra samples around the tile (so the
/// edge filter sees its neighbours).
struct TileGrid: Sendable {
    let width: Int
    let height: Int
    let supersampling: Int
    let tilePixels: Int
    let apron: Int
    let tilesX: Int
    let tilesY: Int
    var tileSamples: Int { tilePixels * supersampling }
    var samplesW: Int { width * supersampling }
    var samplesH: Int { height * supersampling }
    var tileCount: Int { tilesX * tilesY }

    init(width: Int, height: Int, supersampling: Int, tilePixels: Int = 32, apron: Int = EdgeFilter.apron) {
        self.width = width
        self.height = height
        self.supersampling = supersampling
        self.tilePixels = tilePixels
        self.apron = apron
        tilesX = (width + tilePixels - 1) / tilePixels
        tilesY = (height + tilePixels - 1) / tilePixels
    }
}

/// A triangle piece made by clipping against the near plane or the guard band; its vertices
/// carry barycentric weights of the source triangle's vertices (for attributes).
struct ClippedTriangle: Sendable {
    var x: SIMD3<Int32>
    var y: SIMD3<Int32>
    var key: SIMD3<Float>
    var invW: SIMD3<Float>
    var weights: (SIMD3<Float>, SIMD3<Float>, SIMD3<Float>)
    var source: UInt32
}

/// Per-tile triangle lists for one pass of one view, in submission order (so results never
/// depend on thread scheduling). Ids below `triangleCount` are scene triangles; larger ids are
/// `pieces[id − triangleCount]`.
final class TileBins: @unchecked Sendable {
    let start: [Int]
    let ids: UnsafeMutablePointer<UInt32>
    let pieces: [ClippedTriangle]
    let triangleCount: Int

    init(start: [Int], ids: UnsafeMutablePointer<UInt32>, pieces: [ClippedTriangle], triangleCount: Int) {
        self.start = start
        self.ids = ids
        self.pieces = pieces
        self.triangleCount = triangleCount
    }

    deinit { ids.deallocate() }
}

/// Classifies, clips and bins the triangles of a pass.
enum TileBinner {
    struct Rect {
        var x0: Int16, y0: Int16, x1: Int16, y1: Int16
        static let skip = Rect(x0: -1, y0: 0, x1: 0, y1: 0)
    }

    /// What a pass draws and how.
    struct PassFilter {
        /// true: transparent materials only; false: opaque and masked ones.
        var transparent: Bool
        /// Cull back faces of single-sided materials.
        var cullBackFaces: Bool
        /// Instances not drawn in this view (cutaway).
        var hiddenInstance: [Bool]
    }

    /// Bins `sequence` (triangle ids in draw order; nil = every triangle in scene order).
    static func bin(
        scene: RenderScene, projected pv: ProjectedVertices, camera: RenderCamera, grid: TileGrid,
        sequence: [UInt32]?, filter: PassFilter
    ) -> TileBins {
        let n = sequence?.count ?? scene.triangleCount
        let tiles = grid.tileCount
        let chunkSize = max(4096, (n + 255) / 256)
        let chunks = max(1, (n + chunkSize - 1) / chunkSize)
        let rects = UnsafeMutablePointer<Rect>.allocate(capacity: max(n, 1))
        defer { rects.deallocate() }
        let counts = UnsafeMutablePointer<Int>.allocate(capacity: chunks * tiles)
        counts.initialize(repeating: 0, count: chunks * tiles)
        defer { counts.deallocate() }
        var chunkPieces = [[(ClippedTriangle, Rect)]](repeating: [], count: chunks)
        let materialFlags = scene.materials.map { ($0.transparent ? 1 : 0) | ($0.doubleSided ? 2 : 0) } as [Int]
        let seq = sequence ?? []
        let useSeq = sequence != nil
        // Pass A: classify every triangle of each chunk and count tile entries.
        chunkPieces.withUnsafeMutableBufferPointer { pieceLists in
            let lists = pieceLists.baseAddress!
            materialFlags.withUnsafeBufferPointer { mflags in
                seq.withUnsafeBufferPointer { sq in
                    Parallel.forEach(chunks) { c in
                        let lo = c * chunkSize, hi = min(n, lo + chunkSize)
                        let row = counts + c * tiles
                        var local: [(ClippedTriangle, Rect)] = []
                        for i in lo..<hi {
                            let t = useSeq ? Int(sq[i]) : i
                            rects[i] = classify(
                                t, scene: scene, pv: pv, camera: camera, grid: grid, filter: filter,
                                materialFlags: mflags, pieces: &local)
                            let r = rects[i]
                            if r.x0 >= 0 {
                                for ty in Int(r.y0)...Int(r.y1) {
                                    for tx in Int(r.x0)...Int(r.x1) { row[ty * grid.tilesX + tx] += 1 }
                                }
                            } else if r.x0 == -2 {
                                for k in (local.count - Int(r.y0))..<local.count {
                                    let pr = local[k].1
                                    for ty in Int(pr.y0)...Int(pr.y1) {
                                        for tx in Int(pr.x0)...Int(pr.x1) { row[ty * grid.tilesX + tx] += 1 }
                                    }
                                }
                            }
                        }
                        lists[c] = local
                    }
                }
            }
        }
        // Prefix sums: tile-major, chunk-minor, so each tile's list keeps submission order.
        let cursors = UnsafeMutablePointer<Int>.allocate(capacity: chunks * tiles)
        defer { cursors.deallocate() }
        let start = tileStarts(counts: counts, chunks: chunks, tiles: tiles, cursors: cursors)
        let running = start[tiles]
        let (pieces, pieceBase) = concatenated(chunkPieces)
        let ids = UnsafeMutablePointer<UInt32>.allocate(capacity: max(running, 1))
        let triangleCount = scene.triangleCount
        // Pass B: scatter ids.
        seq.withUnsafeBufferPointer { sq in
            chunkPieces.withUnsafeBufferPointer { lists in
                pieceBase.withUnsafeBufferPointer { bases in
                    Parallel.forEach(chunks) { c in
                        let lo = c * chunkSize, hi = min(n, lo + chunkSize)
                        let cur = cursors + c * tiles
                        var next = 0
                        for i in lo..<hi {
                            let r = rects[i]
                            if r.x0 >= 0 {
                                let id = UInt32(useSeq ? Int(sq[i]) : i)
                                for ty in Int(r.y0)...Int(r.y1) {
                                    for tx in Int(r.x0)...Int(r.x1) {
                                        let tile = ty * grid.tilesX + tx
                                        ids[cur[tile]] = id
                                        cur[tile] += 1
                                    }
                                }
                            } else if r.x0 == -2 {
                                for _ in 0..<Int(r.y0) {
                                    let pr = lists[c][next].1
                                    let id = UInt32(triangleCount + bases[c] + next)
                                    next += 1
                                    for ty in Int(pr.y0)...Int(pr.y1) {
                                        for tx in Int(pr.x0)...Int(pr.x1) {
                                            let tile = ty * grid.tilesX + tx
                                            ids[cur[tile]] = id
                                            cur[tile] += 1
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        return TileBins(start: start, ids: ids, pieces: pieces, triangleCount: triangleCount)
    }

    /// Each tile's first entry (and the total, last) from the per-chunk counts, tile-major and
    /// chunk-minor; `cursors` gets where each chunk's entries of each tile begin.
    private static func tileStarts(
        counts: UnsafeMutablePointer<Int>, chunks: Int, tiles: Int, cursors: UnsafeMutablePointer<Int>
    ) -> [Int] {
        var start = [Int](repeating: 0, count: tiles + 1)
        var running = 0
        for tile in 0..<tiles {
            start[tile] = running
            for c in 0..<chunks {
                cursors[c * tiles + tile] = running
                running += counts[c * tiles + tile]
            }
        }
        start[tiles] = running
        return start
    }

    /// The chunks' clipped pieces in chunk order, with where each chunk's begin.
    private static func concatenated(
        _ chunkPieces: [[(ClippedTriangle, Rect)]]
    ) -> (pieces: [ClippedTriangle], base: [Int]) {
        var pieceBase = [Int](repeating: 0, count: chunkPieces.count)
        var pieces: [ClippedTriangle] = []
        for c in 0..<chunkPieces.count {
            pieceBase[c] = pieces.count
            pieces += chunkPieces[c].map { $0.0 }
        }
        return (pieces, pieceBase)
    }

    /// The tiles a triangle with this fixed-point bounding box touches, or `.skip`.
    @inline(__always)
    static func tileRect(minX: Int64, minY: Int64, maxX: Int64, maxY: Int64, grid: TileGrid) -> Rect {
        let c0 = ceilDiv64(minX - ProjectedVertices.half, ProjectedVertices.one)
        let c1 = floorDiv64(maxX - ProjectedVertices.half, ProjectedVertices.one)
        let r0 = ceilDiv64(minY - ProjectedVertices.half, ProjectedVertices.one)
        let r1 = floorDiv64(maxY - ProjectedVertices.half, ProjectedVertices.one)
        guard c0 <= c1, r0 <= r1 else { return .skip }
        let a = Int64(grid.apron), ts = Int64(grid.tileSamples)
        let tx0 = max(0, floorDiv64(c0 - a, ts)), tx1 = min(Int64(grid.tilesX - 1), floorDiv64(c1 + a, ts))
        let ty0 = max(0, floorDiv64(r0 - a, ts)), ty1 = min(Int64(grid.tilesY - 1), floorDiv64(r1 + a, ts))
        guard tx0 <= tx1, ty0 <= ty1 else { return .skip }
        return Rect(x0: Int16(tx0), y0: Int16(ty0), x1: Int16(tx1), y1: Int16(ty1))
    }

    @inline(__always)
    private static func classify(
        _ t: Int, scene: RenderScene, pv: ProjectedVertices, camera: RenderCamera, grid: TileGrid, filter: PassFilter,
        materialFlags: UnsafeBufferPointer<Int>, pieces: inout [(ClippedTriangle, Rect)]
    ) -> Rect {
        let m = scene.triMaterial[t]
        guard m != RenderScene.invalidMaterial else { return .skip }
        let mf = materialFlags[Int(m)]
        guard ((mf & 1) != 0) == filter.transparent else { return .skip }
        if filter.hiddenInstance[Int(scene.triInstance[t])] { return .skip }
        let cull = filter.cullBackFaces && (mf & 2) == 0
        let i0 = Int(scene.indices[t * 3]), i1 = Int(scene.indices[t * 3 + 1]), i2 = Int(scene.indices[t * 3 + 2])
        let f0 = pv.flags[i0], f1 = pv.flags[i1], f2 = pv.flags[i2]
        let any = f0 | f1 | f2
        if any & ProjectedVertices.invalid != 0 { return .skip }
        if f0 & f1 & f2 & ProjectedVertices.rejectMask != 0 { return .skip }
        if any & ProjectedVertices.clipMask != 0 {
            let made = TriangleClipper.clip(
                t, scene: scene, camera: camera, pv: pv, grid: grid, cull: cull, into: &pieces)
            return made > 0 ? Rect(x0: -2, y0: Int16(made), x1: 0, y1: 0) : .skip
        }
        let x0 = Int64(pv.x[i0]), y0 = Int64(pv.y[i0]), x1 = Int64(pv.x[i1]), y1 = Int64(pv.y[i1])
        let x2 = Int64(pv.x[i2]), y2 = Int64(pv.y[i2])
        let area = (x1 - x0) * (y2 - y0) - (y1 - y0) * (x2 - x0)
        if area == 0 || (cull && area > 0) { return .skip }
        return tileRect(
            minX: min(x0, x1, x2), minY: min(y0, y1, y2), maxX: max(x0, x1, x2), maxY: max(y0, y1, y2), grid: grid)
    }
}

@inline(__always) func floorDiv64(_ a: Int64, _ b: Int64) -> Int64 {
    let q = a / b
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
}

@inline(__always) func ceilDiv64(_ a: Int64, _ b: Int64) -> Int64 { -floorDiv64(-a, b) }
