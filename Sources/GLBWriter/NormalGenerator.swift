/// Vertex normals computed for a mesh that has none, with the vertex splits they need.
struct GeneratedNormals: Sendable {
    /// Unit normals, x, y, z per output vertex (source vertices first, then `extraSource`).
    var normals: [Float]
    /// For each vertex appended after the source vertices, the source vertex it copies.
    var extraSource: [UInt32]
    /// The triangle indices rewritten to the output vertices.
    var indices: [UInt32]

    var vertexCount: Int { normals.count / 3 }
}

/// Computes smooth-within-threshold, flat-across-hard-edge normals.
///
/// Method (deterministic: it depends only on the input values and their order):
/// 1. Face normals are the triangle cross products (so each face weighs by its area).
/// 2. Vertices with bit-identical positions are welded for adjacency (so a UV seam does not become a
///    shading seam); attributes are never merged, only adjacency.
/// 3. Each corner's normal is the sum of the face normals around its welded position whose angle to
///    the corner's own face is at most the threshold (the own face always counts; a zero-area face
///    takes every neighbour). When all faces around a position lie within half the threshold of
///    their summed direction, every pair is within the threshold, so one sum serves every corner
///    there ("uniform" positions: most of a smooth or flat mesh); only the other positions list
///    their faces and compare them pairwise.
/// 4. Corners are resolved in index-buffer order. Corners of the same source vertex with
///    bit-identical normals share an output vertex; the first normal found keeps the source
///    vertex's index, other normals append split copies. A mesh that needs no split keeps its
///    vertex order and indices. Zero or non-finite sums become +Y; source vertices no triangle uses
///    get +Y.
///
/// Cost: a few linear passes over vertices and corners, plus O(faces²) at each non-uniform position.
enum NormalGenerator {
    static func generate(positions: [Float], indices: [UInt32], smoothingAngleDegrees: Double) -> GeneratedNormals {
        let degrees = smoothingAngleDegrees.isFinite ? min(max(smoothingAngleDegrees, 0), 180) : 40
        let radians = degrees * Double.pi / 180
        let cosThreshold = Float(cos(radians))
        let cosHalf = Float(cos(max(radians / 2 - 1e-4, 0)))
        let vertexCount = positions.count / 3
        let cornerCount = indices.count - indices.count % 3
        guard vertexCount > 0 else { return GeneratedNormals(normals: [], extraSource: [], indices: []) }

        let faces = faceNormals(positions: positions, indices: indices, cornerCount: cornerCount)
        let canon = weldedPositions(positions)
        let groups = PositionGroups(
            faces: faces, canon: canon, indices: indices, cornerCount: cornerCount, cosHalf: cosHalf)

        // Resolve corners in order. A corner whose normal differs from its source vertex's first
        // normal is set aside and resolved afterwards against the split copies, in corner order
        // (the same result as resolving everything sequentially, without growing arrays here).
        let unseen = Float.nan.bitPattern
        var normals = [Float](unsafeUninitializedCapacity: vertexCount * 3) { buffer, count in
            for v in 0..<vertexCount {
                buffer[3 * v] = Float(bitPattern: unseen)
                buffer[3 * v + 1] = 1
                buffer[3 * v + 2] = 0
            }
            count = vertexCount * 3
        }
        var out = [UInt32](repeating: 0, count: cornerCount)
        var pendingCorners: [Int] = []
        var pendingNormals: [SIMD3<Float>] = []
        groups.withTables { tables in
            indices.withUnsafeBufferPointer { idx in
                canon.withUnsafeBufferPointer { cn in
                    faces.withUnsafeBufferPointer { fc in
                        normals.withUnsafeMutableBufferPointer { nm in
                            out.withUnsafeMutableBufferPointer { ob in
                                for c in 0..<cornerCount {
                                    let source = idx[c]
                                    let n = tables.normal(
                                        corner: c, group: Int(cn[Int(source)]), faces: fc, cosThreshold: cosThreshold)
                                    let v = 3 * Int(source)
                                    if nm[v].bitPattern == unseen {
                                        nm[v] = n.x
                                        nm[v + 1] = n.y
                                        nm[v + 2] = n.z
                                    } else if nm[v].bitPattern != n.x.bitPattern
                                        || nm[v + 1].bitPattern != n.y.bitPattern
                                        || nm[v + 2].bitPattern != n.z.bitPattern
                                    {
                                        pendingCorners.append(c)
                                        pendingNormals.append(n)
                                    }
                                    ob[c] = source
                                }
                                for v in 0..<vertexCount where nm[3 * v].bitPattern == unseen { nm[3 * v] = 0 }
                            }
                        }
                    }
                }
            }
        }
        var extraSource: [UInt32] = []
        if !pendingCorners.isEmpty {
            // Split copies: `next` chains the copies of each source vertex (-1 ends a chain).
            var next = [Int32](repeating: -1, count: vertexCount)
            for (k, c) in pendingCorners.enumerated() {
                let n = pendingNormals[k]
                let source = Int(indices[c])
                var last = source
                var match: Int?
                while next[last] >= 0 {
                    last = Int(next[last])
                    if normals[3 * last].bitPattern == n.x.bitPattern,
                        normals[3 * last + 1].bitPattern == n.y.bitPattern,
                        normals[3 * last + 2].bitPattern == n.z.bitPattern
                    {
                        match = last
                        break
                    }
                }
                if let match {
                    out[c] = UInt32(match)
                    continue
                }
                let created = normals.count / 3
                normals.append(contentsOf: [n.x, n.y, n.z])
                extraSource.append(UInt32(source))
                next.append(-1)
                next[last] = Int32(created)
                out[c] = UInt32(created)
            }
        }
        return GeneratedNormals(normals: normals, extraSource: extraSource, indices: out)
    }

    /// A triangle's cross product (x, y, z: area-weighted normal) and the reciprocal of its length
    /// (w; 0 for a zero-area triangle), packed in 16 bytes.
    struct Face {
        var packed: SIMD4<Float>
        @inline(__always) var raw: SIMD3<Float> { SIMD3(packed.x, packed.y, packed.z) }
        @inline(__always) var unit: SIMD3<Float> { raw * packed.w }
        @inline(__always) var isDegenerate: Bool { packed.w == 0 }
    }

    static func faceNormals(positions: [Float], indices: [UInt32], cornerCount: Int) -> [Face] {
        let triangleCount = cornerCount / 3
        return [Face](unsafeUninitializedCapacity: triangleCount) { buffer, count in
            positions.withUnsafeBufferPointer { p in
                indices.withUnsafeBufferPointer { idx in
                    for t in 0..<triangleCount {
                        let a = Int(idx[3 * t]) * 3
                        let b = Int(idx[3 * t + 1]) * 3
                        let c = Int(idx[3 * t + 2]) * 3
                        let e1 = SIMD3(p[b] - p[a], p[b + 1] - p[a + 1], p[b + 2] - p[a + 2])
                        let e2 = SIMD3(p[c] - p[a], p[c + 1] - p[a + 1], p[c + 2] - p[a + 2])
                        let raw = SIMD3(
                            e1.y * e2.z - e1.z * e2.y, e1.z * e2.x - e1.x * e2.z, e1.x * e2.y - e1.y * e2.x)
                        let len = (raw.x * raw.x + raw.y * raw.y + raw.z * raw.z).squareRoot()
                        let inverse = 1 / len
                        if len > 0, len.isFinite, inverse.isFinite, (raw * inverse).sum().isFinite {
                            (buffer.baseAddress! + t).initialize(to: Face(packed: SIMD4(raw, inverse)))
                        } else {
                            (buffer.baseAddress! + t).initialize(to: Face(packed: .zero))
                        }
                    }
                }
            }
            count = triangleCount
        }
    }

    /// For each vertex, the first vertex with a bit-identical position (`-0` equals `0`).
    static func weldedPositions(_ positions: [Float]) -> [Int32] {
        let vertexCount = positions.count / 3
        var size = 16
        while size < vertexCount * 2 { size <<= 1 }
        let mask = size - 1
        var table = [Int32](repeating: -1, count: size)
        var canon = [Int32](repeating: 0, count: vertexCount)
        positions.withUnsafeBufferPointer { p in
            table.withUnsafeMutableBufferPointer { tb in
                canon.withUnsafeMutableBufferPointer { cn in
                    @inline(__always) func key(_ i: Int) -> SIMD3<UInt32> {
                        SIMD3(
                            p[3 * i] == 0 ? 0 : p[3 * i].bitPattern,
                            p[3 * i + 1] == 0 ? 0 : p[3 * i + 1].bitPattern,
                            p[3 * i + 2] == 0 ? 0 : p[3 * i + 2].bitPattern)
                    }
                    for v in 0..<vertexCount {
                        let k = key(v)
                        // 64-bit finaliser mixing (every input bit reaches the low bits used as the
                        // slot; float bit patterns of round numbers end in many zero bits).
                        var h = UInt64(k.x) | UInt64(k.y) << 32
                        h = (h ^ (h >> 33)) &* 0xFF51_AFD7_ED55_8CCD
                        h ^= UInt64(k.z) &* 0x9E37_79B9_7F4A_7C15
                        h = (h ^ (h >> 33)) &* 0xC4CE_B9FE_1A85_EC53
                        h ^= h >> 33
                        var slot = Int(truncatingIfNeeded: h) & mask
                        while true {
                            let e = tb[slot]
                            if e < 0 {
                                tb[slot] = Int32(v)
                                cn[v] = Int32(v)
                                break
                            }
                            if key(Int(e)) == k {
                                cn[v] = e
                                break
                            }
                            slot = (slot + 1) & mask
                        }
                    }
                }
            }
        }
        return canon
    }

    /// `v` scaled to unit length; +Y when `v` is zero or not finite. `-0` components become `0`.
    static func normalized(_ v: SIMD3<Float>) -> SIMD3<Float> {
        let len = (v.x * v.x + v.y * v.y + v.z * v.z).squareRoot()
        guard len > 0, len.isFinite else { return SIMD3(0, 1, 0) }
        let n = v / len
        guard n.x.isFinite, n.y.isFinite, n.z.isFinite else { return SIMD3(0, 1, 0) }
        return SIMD3(n.x == 0 ? 0 : n.x, n.y == 0 ? 0 : n.y, n.z == 0 ? 0 : n.z)
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
