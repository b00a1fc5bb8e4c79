import CMeshOptimizer

/// The one file that calls libmeshoptimizer: the codecs of `EXT_meshopt_compression` (vertex
/// bitstream version 0, triangle index bitstream version 1), the octahedral normal filter, and the
/// vertex-cache and vertex-fetch optimisers. Every buffer passed in is owned by the caller and only
/// read (or written, for outputs) for the duration of the call.
enum MeshoptCodec {
    /// Pins the bitstream versions the extension specifies (libmeshoptimizer keeps them in a global;
    /// the values never change, so concurrent writers set the same thing).
    private static func pinVersions() {
        meshopt_encodeVertexVersion(0)
        meshopt_encodeIndexVersion(1)
    }

    /// The vertex codec's bitstream for `count` elements of `stride` bytes (a multiple of 4, at
    /// most 256) in `bytes`.
    static func encodeVertices(_ bytes: UnsafeRawBufferPointer, count: Int, stride: Int) -> [UInt8] {
        precondition(stride % 4 == 0 && stride <= 256 && bytes.count >= count * stride, "vertex stream shape")
        pinVersions()
        let bound = meshopt_encodeVertexBufferBound(count, stride)
        var out = [UInt8](repeating: 0, count: bound)
        let written = out.withUnsafeMutableBufferPointer { o in
            meshopt_encodeVertexBuffer(o.baseAddress, bound, bytes.baseAddress, count, stride)
        }
        out.removeSubrange(written...)
        return out
    }

    /// The triangle index codec's bitstream for `indices` (a multiple of 3 long).
    static func encodeTriangles(_ indices: [UInt32], vertexCount: Int) -> [UInt8] {
        precondition(indices.count % 3 == 0, "triangle list")
        pinVersions()
        let bound = meshopt_encodeIndexBufferBound(indices.count, max(vertexCount, 1))
        var out = [UInt8](repeating: 0, count: bound)
        let written = out.withUnsafeMutableBufferPointer { o in
            indices.withUnsafeBufferPointer { meshopt_encodeIndexBuffer(o.baseAddress, bound, $0.baseAddress, $0.count) }
        }
        out.removeSubrange(written...)
        return out
    }

    /// Unit normals (x, y, z per vertex) as 8-bit octahedral values, 4 bytes per vertex, the form
    /// the extension's `OCTAHEDRAL` filter decodes to signed normalized bytes.
    static func encodeOctahedral(_ normals: [Float]) -> [UInt8] {
        let n = normals.count / 3
        var xyzw = [Float](repeating: 0, count: n * 4)
        for v in 0..<n {
            xyzw[4 * v] = normals[3 * v]
            xyzw[4 * v + 1] = normals[3 * v + 1]
            xyzw[4 * v + 2] = normals[3 * v + 2]
        }
        var out = [UInt8](repeating: 0, count: n * 4)
        out.withUnsafeMutableBytes { o in
            xyzw.withUnsafeBufferPointer { meshopt_encodeFilterOct(o.baseAddress, n, 4, 8, $0.baseAddress) }
        }
        return out
    }

    /// Reorders each triangle list `indices[range]` for the post-transform vertex cache.
    static func optimizeVertexCache(_ indices: inout [UInt32], ranges: [Range<Int>], vertexCount: Int) {
        indices.withUnsafeMutableBufferPointer { all in
            for r in ranges where r.count >= 3 {
                let slice = UnsafeMutableBufferPointer(rebasing: all[r])
                let source = [UInt32](slice)
                source.withUnsafeBufferPointer {
                    meshopt_optimizeVertexCache(slice.baseAddress, $0.baseAddress, r.count, vertexCount)
                }
            }
        }
    }

    /// The vertex order that `indices` fetch first-come (old index → new index), or nil when some
    /// vertex is not referenced (then the order is kept, so every stream keeps its length).
    static func fetchRemap(_ indices: [UInt32], vertexCount: Int) -> [UInt32]? {
        var remap = [UInt32](repeating: 0, count: vertexCount)
        let unique = remap.withUnsafeMutableBufferPointer { r in
            indices.withUnsafeBufferPointer { meshopt_optimizeVertexFetchRemap(r.baseAddress, $0.baseAddress, $0.count, vertexCount) }
        }
        return unique == vertexCount ? remap : nil
    }

    /// `count` elements of `stride` bytes moved to the positions `remap` gives, in place.
    static func remapVertices(_ bytes: UnsafeMutableRawBufferPointer, count: Int, stride: Int, remap: [UInt32]) {
        let source = [UInt8](UnsafeRawBufferPointer(rebasing: bytes[0..<(count * stride)]))
        source.withUnsafeBytes { s in
            remap.withUnsafeBufferPointer { meshopt_remapVertexBuffer(bytes.baseAddress, s.baseAddress, count, stride, $0.baseAddress) }
        }
    }

    /// For `n` vertices described by `keyWords` 32-bit words each in `keys`, the welded index of
    /// every vertex that `indices` reference (first-come order; vertices with equal keys share one)
    /// and `UInt32.max` for the others, and the number of welded vertices.
    static func vertexRemap(_ indices: [UInt32], vertexCount n: Int, keys: [UInt32], keyWords: Int) -> ([UInt32], Int) {
        precondition(keys.count == n * keyWords, "one key per vertex")
        var remap = [UInt32](repeating: UInt32.max, count: n)
        let unique = remap.withUnsafeMutableBufferPointer { r in
            indices.withUnsafeBufferPointer { i in
                keys.withUnsafeBytes { k in
                    meshopt_generateVertexRemap(r.baseAddress, i.baseAddress, i.count, k.baseAddress, n, 4 * keyWords)
                }
            }
        }
        return (remap, unique)
    }

    // MARK: Decoding (what a loader does; used to check what was written)

    /// Decodes a vertex bitstream to `count × stride` bytes; nil when the data is malformed.
    static func decodeVertices(_ data: [UInt8], count: Int, stride: Int) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: count * stride)
        let rc = out.withUnsafeMutableBytes { o in
            data.withUnsafeBufferPointer { meshopt_decodeVertexBuffer(o.baseAddress, count, stride, $0.baseAddress, $0.count) }
        }
        return rc == 0 ? out : nil
    }

    /// Decodes a triangle index bitstream to `count` indices of `indexSize` (2 or 4) bytes.
    static func decodeTriangles(_ data: [UInt8], count: Int, indexSize: Int) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: count * indexSize)
        let rc = out.withUnsafeMutableBytes { o in
            data.withUnsafeBufferPointer { meshopt_decodeIndexBuffer(o.baseAddress, count, indexSize, $0.baseAddress, $0.count) }
        }
        return rc == 0 ? out : nil
    }

    /// Applies the `OCTAHEDRAL` filter in place to `count` elements of `stride` (4 or 8) bytes.
    static func decodeOctahedral(_ bytes: inout [UInt8], count: Int, stride: Int) {
        bytes.withUnsafeMutableBytes { meshopt_decodeFilterOct($0.baseAddress, count, stride) }
    }

    /// Applies the `EXPONENTIAL` filter in place to `count` elements of `stride` bytes (a multiple
    /// of 4).
    static func decodeExponential(_ bytes: inout [UInt8], count: Int, stride: Int) {
        bytes.withUnsafeMutableBytes { meshopt_decodeFilterExp($0.baseAddress, count, stride) }
    }
}
