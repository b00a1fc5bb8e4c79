/// The validated polygon topology of a `Mesh` prim and its triangulation.
///
/// Validation (nothing is read before it passes): every count ≥ 0, the counts add up to the
/// number of face-vertex indices, every index is in `0 ..< pointCount`, every position is
/// finite. Faces with fewer than 3 corners and faces listed in `holeIndices` are skipped.
struct MeshTopology {
    /// Flat xyz positions.
    let points: [Float]
    /// `faceVertexCounts`.
    let counts: [Int32]
    /// `faceVertexIndices`.
    let indices: [Int32]
    /// Faces that produce no triangles (holes, fewer than 3 corners); nil when there are none.
    private(set) var skipped: [Bool]?
    /// Triangles the mesh produces (sum of `count − 2` over kept faces).
    private(set) var triangleCount: Int = 0
    /// Faces with fewer than 3 corners.
    private(set) var degenerateFaces: Int = 0

    var pointCount: Int { points.count / 3 }
    var faceCount: Int { counts.count }
    var cornerCount: Int { indices.count }

    /// Why a mesh cannot be used.
    struct Problem: Error {
        var code: String
        var message: String
    }

    /// Validates the arrays; throws a `Problem` describing the first defect.
    init(points: [Float], counts: [Int32], indices: [Int32], holes: [Int32]?) throws(Problem) {
        self.points = points
        self.counts = counts
        self.indices = indices
        guard indices.count <= Int(Int32.max), points.count / 3 <= Int(Int32.max) else {
            throw Problem(code: "USD_MESH_INVALID_TOPOLOGY", message: "more than 2^31 points or face-vertex indices")
        }
        guard Self.allFinite(points) else {
            throw Problem(code: "USD_MESH_NONFINITE", message: "points contain NaN or infinite values")
        }
        let tally = Self.tally(counts)
        guard tally.lowest >= 0 else {
            let c = counts.first { $0 < 0 }!
            throw Problem(code: "USD_MESH_INVALID_TOPOLOGY", message: "faceVertexCounts contains \(c)")
        }
        let total = tally.total
        var triangles = tally.triangles
        let degenerate = tally.degenerate
        guard total == indices.count else {
            throw Problem(
                code: "USD_MESH_INVALID_TOPOLOGY",
                message: "faceVertexCounts add up to \(total > indices.count ? "more than" : String(total)) "
                    + "but there are \(indices.count) faceVertexIndices")
        }
        let limit = points.count / 3
        if !Self.allBelow(indices, limit: limit) {
            let i = indices.first { $0 < 0 || Int($0) >= limit }!
            throw Problem(
                code: "USD_MESH_INVALID_TOPOLOGY", message: "faceVertexIndices contains \(i), outside 0..<\(limit)")
        }
        if degenerate > 0 || !(holes ?? []).isEmpty {
            var skip = [Bool](repeating: false, count: counts.count)
            for (f, c) in counts.enumerated() where c < 3 { skip[f] = true }
            for h in holes ?? [] where h >= 0 && Int(h) < counts.count && !skip[Int(h)] {
                skip[Int(h)] = true
                triangles -= Int(counts[Int(h)]) - 2
            }
            skipped = skip
        }
        triangleCount = triangles
        degenerateFaces = degenerate
    }

    /// True when no value is NaN or infinite. An exponent field of all ones (NaN and infinities
    /// only) carries into bit 31 when its lowest bit is added; the loop ORs those sums, branch-free,
    /// so that it vectorises with baseline SSE2.
    static func allFinite(_ values: [Float]) -> Bool {
        var carry: UInt32 = 0
        values.withUnsafeBufferPointer { buffer in
            for v in buffer { carry |= (v.bitPattern & 0x7F80_0000) &+ 0x0080_0000 }
        }
        return carry & 0x8000_0000 == 0
    }

    /// What the face counts add up to, in one branch-free pass: their sum, their smallest value
    /// (`Int32.max` when empty), the triangles of the faces with 3 or more corners and how many
    /// have fewer. The sums are exact: fewer than 2^31 counts of less than 2^31 each.
    static func tally(_ counts: [Int32]) -> (total: Int, lowest: Int32, triangles: Int, degenerate: Int) {
        var total = 0
        var lowest = Int32.max
        var atLeastTwo = 0
        var degenerate = 0
        counts.withUnsafeBufferPointer { buffer in
            for c in buffer {
                total &+= Int(c)
                lowest = min(lowest, c)
                atLeastTwo &+= Int(max(c, 2))
                degenerate &+= c < 3 ? 1 : 0
            }
        }
        // A face of c ≥ 3 corners makes c − 2 triangles; max(c, 2) − 2 is 0 for the others.
        return (total, lowest, atLeastTwo &- 2 &* counts.count, degenerate)
    }

    /// True when every value lies in `0 ..< limit` (`limit` ≤ `Int32.max`). A value is in range
    /// exactly when neither it nor `limit − 1 − value` is negative, so the loop ORs both and tests
    /// the sign bit once, branch-free.
    static func allBelow(_ values: [Int32], limit: Int) -> Bool {
        guard limit > 0 else { return values.isEmpty }
        let top = Int32(limit - 1)
        var signs: Int32 = 0
        values.withUnsafeBufferPointer { buffer in
            for v in buffer { signs |= v | (top &- v) }
        }
        return signs >= 0
    }

    /// Triangles produced by face `f` (0 when skipped).
    @inline(__always)
    func triangles(ofFace f: Int) -> Int {
        if let skipped, skipped[f] { return 0 }
        let c = Int(counts[f])
        return c >= 3 ? c - 2 : 0
    }

    /// Which of `slotCount` slots receive at least one triangle (`faceSlots` as in `triangulate`).
    func slotIsUsed(faceSlots: [Int32]?, slotCount: Int) -> [Bool] {
        var used = [Bool](repeating: false, count: max(1, slotCount))
        guard let faceSlots else {
            used[0] = triangleCount > 0
            return used
        }
        for f in 0..<faceCount where triangles(ofFace: f) > 0 { used[Int(faceSlots[f])] = true }
        return used
    }

    /// Triangulates every kept face into **corner** indices (positions in `faceVertexIndices`),
    /// three per triangle, with triangles grouped by slot: faces of slot 0 first, then slot 1, …,
    /// each group in face order. `faceSlots` (one per face, `0 ..< slotCount`) is nil for a
    /// single slot. `flip` reverses the winding (left-handed meshes).
    ///
    /// - Returns: the corner buffer and the index range of each slot (empty ranges included).
    func triangulate(
        faceSlots: [Int32]?, slotCount: Int, flip: Bool, triangulator: inout Triangulator
    ) -> (corners: [UInt32], ranges: [Range<Int>]) {
        let slots = max(1, slotCount)
        var sizes = [Int](repeating: 0, count: slots)
        if let faceSlots {
            for f in 0..<faceCount { sizes[Int(faceSlots[f])] += triangles(ofFace: f) * 3 }
        } else {
            sizes[0] = triangleCount * 3
        }
        var ranges: [Range<Int>] = []
        var cursor = [Int](repeating: 0, count: slots)
        var offset = 0
        for s in 0..<slots {
            ranges.append(offset..<(offset + sizes[s]))
            cursor[s] = offset
            offset += sizes[s]
        }
        var corners = [UInt32](repeating: 0, count: offset)
        var local: [Int32] = []
        local.reserveCapacity(64)
        var start = 0
        for f in 0..<faceCount {
            let n = Int(counts[f])
            defer { start += n }
            if n < 3 { continue }
            if let skipped, skipped[f] { continue }
            let slot = faceSlots.map { Int($0[f]) } ?? 0
            var w = cursor[slot]
            let base = UInt32(start)
            if n == 3 {
                corners[w] = base
                corners[w + 1] = flip ? base + 2 : base + 1
                corners[w + 2] = flip ? base + 1 : base + 2
                w += 3
            } else {
                local.removeAll(keepingCapacity: true)
                triangulator.triangulate(points: points, faceIndices: indices, start: start, count: n, into: &local)
                var k = 0
                while k + 2 < local.count {
                    corners[w] = base + UInt32(local[k])
                    corners[w + 1] = base + UInt32(local[flip ? k + 2 : k + 1])
                    corners[w + 2] = base + UInt32(local[flip ? k + 1 : k + 2])
                    w += 3
                    k += 3
                }
            }
            cursor[slot] = w
        }
        return (corners, ranges)
    }
}
