/// The faces around each welded position, summarised for normal generation (see
/// `NormalGenerator`): every position gets the normalised area-weighted sum of its faces; positions
/// where some face lies more than half the smoothing angle from that direction ("non-uniform")
/// also keep the list of their corners, in corner order, for pairwise comparison.
struct PositionGroups {
    /// Per welded position (indexed by its canonical vertex): the normalised face sum.
    private(set) var shared: [SIMD3<Float>]
    /// Per welded position: -1 when uniform, else its list number.
    private(set) var list: [Int32]
    /// List k holds `listCorners[listStart[k]..<listStart[k + 1]]`.
    private(set) var listStart: [Int32] = [0]
    private(set) var listCorners: [Int32] = []

    init(faces: [NormalGenerator.Face], canon: [Int32], indices: [UInt32], cornerCount: Int, cosHalf: Float) {
        let vertexCount = canon.count
        var shared = [SIMD3<Float>](repeating: .zero, count: vertexCount)
        var list = [Int32](repeating: -1, count: vertexCount)
        var lists = 0
        indices.withUnsafeBufferPointer { idx in
            canon.withUnsafeBufferPointer { cn in
                faces.withUnsafeBufferPointer { fc in
                    shared.withUnsafeMutableBufferPointer { sh in
                        list.withUnsafeMutableBufferPointer { ls in
                            for c in 0..<cornerCount { sh[Int(cn[Int(idx[c])])] += fc[c / 3].raw }
                            for g in 0..<vertexCount where cn[g] == Int32(g) {
                                sh[g] = NormalGenerator.normalized(sh[g])
                            }
                            // If every face is within half the angle of the shared direction, every
                            // pair is within the angle. Faces that cancel out (a zero sum, +Y) fail
                            // the test and go to the pairwise path.
                            for c in 0..<cornerCount {
                                let g = Int(cn[Int(idx[c])])
                                let f = fc[c / 3]
                                if ls[g] < 0, !f.isDegenerate, (f.unit * sh[g]).sum() < cosHalf {
                                    ls[g] = Int32(lists)
                                    lists += 1
                                }
                            }
                        }
                    }
                }
            }
        }
        self.shared = shared
        self.list = list
        guard lists > 0 else { return }
        var start = [Int32](repeating: 0, count: lists + 1)
        var corners: [Int32] = []
        indices.withUnsafeBufferPointer { idx in
            canon.withUnsafeBufferPointer { cn in
                start.withUnsafeMutableBufferPointer { st in
                    for c in 0..<cornerCount {
                        let s = list[Int(cn[Int(idx[c])])]
                        if s >= 0 { st[Int(s) + 1] += 1 }
                    }
                    for k in 0..<lists { st[k + 1] += st[k] }
                    var cursor = Array(st[0..<lists])
                    corners = [Int32](repeating: 0, count: Int(st[lists]))
                    corners.withUnsafeMutableBufferPointer { lc in
                        for c in 0..<cornerCount {
                            let s = Int(list[Int(cn[Int(idx[c])])])
                            if s >= 0 {
                                lc[Int(cursor[s])] = Int32(c)
                                cursor[s] += 1
                            }
                        }
                    }
                }
            }
        }
        listStart = start
        listCorners = corners
    }

    /// Runs `body` with unsafe views of the tables (for the per-corner loop).
    func withTables<R>(_ body: (Tables) -> R) -> R {
        shared.withUnsafeBufferPointer { sh in
            list.withUnsafeBufferPointer { ls in
                listStart.withUnsafeBufferPointer { st in
                    listCorners.withUnsafeBufferPointer { lc in
                        body(Tables(shared: sh, list: ls, listStart: st, listCorners: lc))
                    }
                }
            }
        }
    }

    struct Tables {
        let shared: UnsafeBufferPointer<SIMD3<Float>>
        let list: UnsafeBufferPointer<Int32>
        let listStart: UnsafeBufferPointer<Int32>
        let listCorners: UnsafeBufferPointer<Int32>

        /// The normal of corner `c`, whose welded position is `g`: the shared normal at a uniform
        /// position, else the normalised sum of the listed faces within the angle of `c`'s face.
        @inline(__always)
        func normal(
            corner c: Int, group g: Int, faces fc: UnsafeBufferPointer<NormalGenerator.Face>, cosThreshold: Float
        )
            -> SIMD3<Float>
        {
            let s = Int(list[g])
            guard s >= 0 else { return shared[g] }
            let own = fc[c / 3]
            let u = own.unit
            var sum = SIMD3<Float>.zero
            for k in Int(listStart[s])..<Int(listStart[s + 1]) {
                let f = fc[Int(listCorners[k]) / 3]
                if own.isDegenerate || (u * f.unit).sum() >= cosThreshold { sum += f.raw }
            }
            return NormalGenerator.normalized(sum)
        }
    }
}
