import SceneModel

/// Merges the vertices of a prepared meshopt mesh that are equal in everything written: the
/// position on its grid, the 8-bit octahedral normal, and the texture coordinates and colours when
/// they are written. Such vertices decode to the same values, so merging them loses nothing and
/// leaves fewer vertices to store (a sphere's poles and seams, a box's shared corners when normals
/// agree). Vertices no drawn triangle uses are dropped. Work and memory are linear in the vertex
/// count.
enum VertexWelder {
    static func weld(_ prepared: PreparedMesh) -> PreparedMesh {
        let n = prepared.vertexCount
        guard n > 0 else { return prepared }
        let mesh = prepared.mesh
        let sourceCount = mesh.positions.count / 3
        // Output vertex → the mesh vertex whose streams it copies (split vertices copy their source).
        func source(_ v: Int) -> Int { v < sourceCount ? v : Int(prepared.extraSource[v - sourceCount]) }
        let (normals, repaired) = MeshPreparer.unitNormals(prepared)
        let octahedral = MeshoptCodec.encodeOctahedral(normals)
        let keyWords = 3 + 1 + (prepared.writesTexcoords ? 2 : 0) + (prepared.writesColors ? 4 : 0)
        var keys = [UInt32](repeating: 0, count: n * keyWords)
        for v in 0..<n {
            let s = source(v)
            var k = v * keyWords
            for c in 0..<3 { keys[k + c] = mesh.positions[3 * s + c].bitPattern }
            k += 3
            keys[k] = UInt32(octahedral[4 * v]) | UInt32(octahedral[4 * v + 1]) << 8
                | UInt32(octahedral[4 * v + 2]) << 16 | UInt32(octahedral[4 * v + 3]) << 24
            k += 1
            if prepared.writesTexcoords {
                for c in 0..<2 { keys[k + c] = mesh.uv0[2 * s + c].bitPattern }
                k += 2
            }
            if prepared.writesColors {
                for c in 0..<4 { keys[k + c] = mesh.colors[4 * s + c].bitPattern }
            }
        }
        var drawn: [UInt32] = []
        for p in prepared.primitives { drawn += prepared.indices[p.indexStart..<(p.indexStart + p.indexCount)] }
        guard drawn.allSatisfy({ Int($0) < n }) else { return prepared }
        let (remap, unique) = MeshoptCodec.vertexRemap(drawn, vertexCount: n, keys: keys, keyWords: keyWords)
        guard unique < n else { return prepared }

        var welded = mesh
        welded.positions = [Float](repeating: 0, count: unique * 3)
        welded.normals = [Float](repeating: 0, count: unique * 3)
        if prepared.writesTexcoords { welded.uv0 = [Float](repeating: 0, count: unique * 2) }
        if prepared.writesColors { welded.colors = [Float](repeating: 0, count: unique * 4) }
        for v in 0..<n where remap[v] != UInt32.max {
            let target = Int(remap[v]), s = source(v)
            for c in 0..<3 {
                welded.positions[3 * target + c] = mesh.positions[3 * s + c]
                welded.normals[3 * target + c] = normals[3 * v + c]
            }
            if prepared.writesTexcoords { for c in 0..<2 { welded.uv0[2 * target + c] = mesh.uv0[2 * s + c] } }
            if prepared.writesColors { for c in 0..<4 { welded.colors[4 * target + c] = mesh.colors[4 * s + c] } }
        }
        if !prepared.writesTexcoords { welded.uv0 = [] }
        if !prepared.writesColors { welded.colors = [] }
        // Indices outside every primitive are never written; they are set to 0 to stay in range.
        welded.indices = prepared.indices.map { i in remap[Int(i)] == UInt32.max ? 0 : remap[Int(i)] }
        var out = prepared
        out.mesh = welded
        out.vertexCount = unique
        out.extraSource = []
        out.generatedNormals = nil
        out.indices = welded.indices
        out.repairedNormals += repaired
        (out.minPosition, out.maxPosition) = MeshPreparer.bounds(welded.positions)
        for i in out.primitives.indices {
            let p = out.primitives[i]
            out.primitives[i].shortIndices = MeshPreparer.maxIndex(out.indices, p.indexStart, p.indexCount) < 65535
        }
        return out
    }
}
