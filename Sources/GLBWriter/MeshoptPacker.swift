import JSONCore

/// Turns the uncompressed BIN of a model into `EXT_meshopt_compression` form: each mesh's vertices
/// reordered for fetch locality, every vertex and index stream encoded with meshoptimizer into
/// buffer 0 (the GLB's BIN chunk), images copied after them, and buffer 1 a fallback buffer with
/// no data that the buffer views address once decoded. The node tree, meshes and accessors are
/// untouched: a loader that decodes the streams gets back exactly the logical buffer's contents.
struct MeshoptPacker {
    /// The BIN chunk (compressed streams, then images; padded to 4 bytes).
    var bin: [UInt8] = []
    var bufferViews: [JSONValue] = []
    var buffers: [JSONValue] = []

    /// Packs `logical` (laid out by `layout`, written in place; reordered by this call). Each
    /// mesh's positions are written with its own `positionExponent`.
    static func pack(
        logical: inout [UInt8], layout: BinaryLayout, meshes: [PreparedMesh], meshViews: [MeshViews]
    ) -> MeshoptPacker {
        var out = MeshoptPacker()
        // Per view: the compressed bytes and how to describe them (nil for images).
        var streams = [Stream?](repeating: nil, count: layout.views.count)
        var indexSize: [Int: Int] = [:]  // index view → 2 or 4
        var normalViews = Set<Int>(), texcoordViews = Set<Int>()
        // Position view → (first element, exponent) of each mesh's part, in the order they are laid out.
        var positionExponents: [Int: [(start: Int, exponent: Int)]] = [:]
        logical.withUnsafeMutableBytes { raw in
            // Reorder each mesh's vertices for fetch locality, within its part of the shared views.
            for (m, mesh) in meshes.enumerated() {
                let views = meshViews[m]
                let n = mesh.vertexCount
                normalViews.insert(views.normal.view)
                positionExponents[views.position.view, default: []].append((views.position.byteOffset / 12, mesh.positionExponent))
                if let t = views.texcoord { texcoordViews.insert(t.view) }
                var indices: [UInt32] = []
                for p in mesh.primitives { indices += mesh.indices[p.indexStart..<(p.indexStart + p.indexCount)] }
                let vertexStreams = [views.position, views.normal] + [views.texcoord, views.color].compactMap { $0 }
                if let remap = MeshoptCodec.fetchRemap(indices, vertexCount: n) {
                    for s in vertexStreams {
                        let stride = layout.views[s.view].stride ?? 0
                        let at = layout.offset(of: s)
                        MeshoptCodec.remapVertices(
                            UnsafeMutableRawBufferPointer(rebasing: raw[at..<(at + n * stride)]), count: n, stride: stride,
                            remap: remap)
                    }
                    for i in indices.indices { indices[i] = remap[Int(indices[i])] }
                }
                // The logical index ranges hold the reordered indices, as a loader decodes them.
                var start = 0
                for (k, p) in mesh.primitives.enumerated() {
                    let at = layout.offset(of: views.indices[k])
                    indexSize[views.indices[k].view] = p.shortIndices ? 2 : 4
                    for j in 0..<p.indexCount {
                        let value = indices[start + j]
                        if p.shortIndices {
                            raw.storeBytes(of: UInt16(truncatingIfNeeded: value).littleEndian, toByteOffset: at + 2 * j,
                                           as: UInt16.self)
                        } else {
                            raw.storeBytes(of: value.littleEndian, toByteOffset: at + 4 * j, as: UInt32.self)
                        }
                    }
                    start += p.indexCount
                }
            }
            // Encode every vertex and index view whole.
            for (v, spec) in layout.views.enumerated() {
                let bytes = UnsafeRawBufferPointer(rebasing: raw[spec.offset..<(spec.offset + spec.length)])
                if let stride = spec.stride {
                    let count = spec.length / stride
                    let exponents = positionExponents[v]
                        ?? (texcoordViews.contains(v) ? [(0, GLBOptions.texcoordGridExponent)] : nil)
                    if let exponents, let filtered = exponential(bytes, stride: stride, parts: exponents) {
                        streams[v] = (filtered.withUnsafeBytes { MeshoptCodec.encodeVertices($0, count: count, stride: stride) },
                                      stride, count, "ATTRIBUTES", "EXPONENTIAL")
                    } else {
                        streams[v] = (MeshoptCodec.encodeVertices(bytes, count: count, stride: stride), stride, count,
                                      "ATTRIBUTES", normalViews.contains(v) ? "OCTAHEDRAL" : nil)
                    }
                } else if let size = indexSize[v] {
                    let count = spec.length / size
                    let values: [UInt32] = (0..<count).map { j in
                        size == 2 ? UInt32(UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: 2 * j, as: UInt16.self)))
                            : UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: 4 * j, as: UInt32.self))
                    }
                    let vertices = Int(values.max() ?? 0) + 1
                    streams[v] = (MeshoptCodec.encodeTriangles(values, vertexCount: vertices), size, count, "TRIANGLES", nil)
                }
            }
        }
        for (v, spec) in layout.views.enumerated() { out.appendView(spec, stream: streams[v], logical: logical) }
        out.finish(logicalLength: layout.paddedLength)
        return out
    }

    /// A view's compressed bytes and how to describe them.
    typealias Stream = (data: [UInt8], stride: Int, count: Int, mode: String, filter: String?)

    /// Appends one buffer view to `bin` (4-byte aligned) and describes it: with its `stream`, a
    /// compressed view of buffer 1; without (an image), its bytes from `logical` in buffer 0.
    private mutating func appendView(_ spec: BufferViewSpec, stream: Stream?, logical: [UInt8]) {
        let offset = (bin.count + 3) & ~3
        bin += [UInt8](repeating: 0, count: offset - bin.count)
        var o = JSONObjectBuilder()
        if let s = stream {
            bin += s.data
            var ext = JSONObjectBuilder()
            ext.set("buffer", .int(0))
            if offset != 0 { ext.set("byteOffset", .int(offset)) }
            ext.set("byteLength", .int(s.data.count))
            ext.set("byteStride", .int(s.stride))
            ext.set("count", .int(s.count))
            ext.set("mode", .string(s.mode))
            ext.set("filter", s.filter.map { .string($0) })
            o.set("buffer", .int(1))
            if spec.offset != 0 { o.set("byteOffset", .int(spec.offset)) }
            o.set("byteLength", .int(spec.length))
            o.set("byteStride", spec.stride.map { .int($0) })
            o.set("target", spec.target.map { .int($0) })
            o.set("extensions", .members([JSONMember("EXT_meshopt_compression", ext.value)]))
        } else {
            bin += logical[spec.offset..<(spec.offset + spec.length)]
            o.set("buffer", .int(0))
            if offset != 0 { o.set("byteOffset", .int(offset)) }
            o.set("byteLength", .int(spec.length))
            o.set("target", spec.target.map { .int($0) })
        }
        bufferViews.append(o.value)
    }

    /// Pads `bin` to 4 bytes and describes the two buffers: the BIN chunk and the fallback of
    /// `logicalLength` bytes that the views address once decoded.
    private mutating func finish(logicalLength: Int) {
        bin += [UInt8](repeating: 0, count: ((bin.count + 3) & ~3) - bin.count)
        buffers = [
            .members([JSONMember("byteLength", .int(bin.count))]),
            .members([
                JSONMember("byteLength", .int(logicalLength)),
                JSONMember(
                    "extensions",
                    .members([JSONMember("EXT_meshopt_compression", .members([JSONMember("fallback", .bool(true))]))])),
            ]),
        ]
    }

    /// The float32 values of `bytes` in the `EXPONENTIAL` filter's form (see `FloatQuantizer`), the
    /// elements of `stride` bytes from each part's `start` on with that part's exponent (`parts` in
    /// increasing `start`, the first at 0), or nil when some value cannot be held exactly (then the
    /// view is written without the filter).
    private static func exponential(
        _ bytes: UnsafeRawBufferPointer, stride: Int, parts: [(start: Int, exponent: Int)]
    ) -> [UInt32]? {
        var out = [UInt32](repeating: 0, count: bytes.count / 4)
        var part = 0
        for i in out.indices {
            while part + 1 < parts.count && parts[part + 1].start <= 4 * i / stride { part += 1 }
            let v = Float(bitPattern: UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: 4 * i, as: UInt32.self)))
            guard let bits = FloatQuantizer.exponentialBits(v, exponent: parts[part].exponent) else { return nil }
            out[i] = bits.littleEndian
        }
        return out
    }
}
