/// Where one stream of one mesh lives: a buffer view and the byte offset of the mesh's first
/// element in it (0 when the view holds only this stream).
struct StreamRef: Equatable {
    var view: Int
    var byteOffset: Int = 0
}

/// The streams of one prepared mesh (nil when the stream is not written), and one index range per
/// primitive.
struct MeshViews {
    var position: StreamRef
    var normal: StreamRef
    var texcoord: StreamRef?
    var color: StreamRef?
    var indices: [StreamRef]
}

/// Reserves the buffer views of the meshes.
///
/// Uncompressed, every stream of every mesh and every primitive's indices get a view of their own
/// (tightly packed). For meshopt, the streams of one kind share one view across all meshes
/// (positions, normals, texture coordinates, colours, 16-bit and 32-bit indices): six encoded
/// streams for the whole model instead of several per mesh, which keeps the document small and
/// gives the codecs longer runs. Accessors then address their mesh's part by `byteOffset`.
enum MeshLayout {
    static func layout(_ meshes: [PreparedMesh], in layout: inout BinaryLayout, compression: GLBCompression)
        -> [MeshViews]
    {
        guard compression == .meshopt else {
            return meshes.map { mesh in
                let n = mesh.vertexCount
                func view(_ stride: Int) -> StreamRef {
                    StreamRef(view: layout.add(length: n * stride, target: BinaryLayout.arrayBuffer))
                }
                return MeshViews(
                    position: view(12), normal: view(12), texcoord: mesh.writesTexcoords ? view(8) : nil,
                    color: mesh.writesColors ? view(16) : nil,
                    indices: mesh.primitives.map {
                        StreamRef(view: layout.add(
                            length: $0.indexCount * ($0.shortIndices ? 2 : 4), target: BinaryLayout.elementArrayBuffer))
                    })
            }
        }
        // Shared views: total sizes first, then each mesh's offsets.
        var totals = [Int](repeating: 0, count: 6)  // position, normal, uv, colour, u16, u32 (bytes)
        for mesh in meshes {
            totals[0] += mesh.vertexCount * 12
            totals[1] += mesh.vertexCount * 4
            if mesh.writesTexcoords { totals[2] += mesh.vertexCount * 8 }
            if mesh.writesColors { totals[3] += mesh.vertexCount * 16 }
            for p in mesh.primitives { totals[p.shortIndices ? 4 : 5] += p.indexCount * (p.shortIndices ? 2 : 4) }
        }
        let strides = [12, 4, 8, 16, 2, 4]
        let views: [Int?] = totals.indices.map { k in
            guard totals[k] > 0 else { return nil }
            return k < 4
                ? layout.add(length: totals[k], target: BinaryLayout.arrayBuffer, stride: strides[k])
                : layout.add(length: totals[k], target: BinaryLayout.elementArrayBuffer)
        }
        var cursor = [Int](repeating: 0, count: 6)
        func take(_ k: Int, _ bytes: Int) -> StreamRef {
            defer { cursor[k] += bytes }
            return StreamRef(view: views[k]!, byteOffset: cursor[k])
        }
        return meshes.map { mesh in
            let n = mesh.vertexCount
            return MeshViews(
                position: take(0, n * 12), normal: take(1, n * 4), texcoord: mesh.writesTexcoords ? take(2, n * 8) : nil,
                color: mesh.writesColors ? take(3, n * 16) : nil,
                indices: mesh.primitives.map { p in
                    p.shortIndices ? take(4, p.indexCount * 2) : take(5, p.indexCount * 4)
                })
        }
    }
}

extension BinaryLayout {
    /// The BIN offset of a stream's first byte.
    func offset(of stream: StreamRef) -> Int { views[stream.view].offset + stream.byteOffset }
}
