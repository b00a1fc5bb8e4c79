import SceneModel

/// Finds prepared meshes with the same content (every written stream and index bit for bit, and
/// the same glTF material for each primitive; names and source paths aside), so that each is
/// written once and every node that draws one of them refers to the same glTF mesh: the catalog
/// chair a room repeats six times is stored once, and each chair keeps its own element node.
///
/// Materials are compared as written, not as scene materials: every instance of a referenced
/// model (RoomPlan's `.model` export references one catalog file per object) composes its own
/// copy of the model's material, and those copies become one glTF material.
enum MeshDeduplicator {
    /// The meshes to write (first occurrence of each content, in order) and, for every input
    /// mesh, the index of the written mesh that stands for it. `material` gives the glTF material
    /// a primitive's scene material is written as.
    static func unique(_ meshes: [PreparedMesh], material: (MaterialIndex?) -> Int) -> (meshes: [PreparedMesh], index: [Int]) {
        var byHash: [Int: [Int]] = [:]  // content hash → indices into `out`
        var out: [PreparedMesh] = []
        var index: [Int] = []
        index.reserveCapacity(meshes.count)
        for mesh in meshes {
            let h = contentHash(mesh)
            if let same = byHash[h]?.first(where: { sameContent(out[$0], mesh, material: material) }) {
                index.append(same)
                continue
            }
            byHash[h, default: []].append(out.count)
            index.append(out.count)
            out.append(mesh)
        }
        return (out, index)
    }

    /// A hash of the sizes and a sample of the content; `sameContent` decides.
    private static func contentHash(_ m: PreparedMesh) -> Int {
        var h = Hasher()
        h.combine(m.vertexCount)
        h.combine(m.indices.count)
        h.combine(m.primitives.count)
        let p = m.mesh.positions
        for i in stride(from: 0, to: p.count, by: max(1, p.count / 64)) { h.combine(p[i].bitPattern) }
        for i in stride(from: 0, to: m.indices.count, by: max(1, m.indices.count / 64)) { h.combine(m.indices[i]) }
        return h.finalize()
    }

    private static func sameContent(_ a: PreparedMesh, _ b: PreparedMesh, material: (MaterialIndex?) -> Int) -> Bool {
        func same(_ x: [Float], _ y: [Float]) -> Bool {
            x.count == y.count && x.withUnsafeBytes { xb in y.withUnsafeBytes { yb in xb.elementsEqual(yb) } }
        }
        guard a.vertexCount == b.vertexCount, a.writesTexcoords == b.writesTexcoords,
            a.writesColors == b.writesColors, a.extraSource == b.extraSource, a.indices == b.indices,
            a.primitives.count == b.primitives.count,
            zip(a.primitives, b.primitives).allSatisfy({
                $0.indexStart == $1.indexStart && $0.indexCount == $1.indexCount && material($0.material) == material($1.material)
            }),
            same(a.mesh.positions, b.mesh.positions),
            (a.generatedNormals == nil) == (b.generatedNormals == nil)
        else { return false }
        if let ga = a.generatedNormals, let gb = b.generatedNormals {
            if !same(ga, gb) { return false }
        } else if !same(a.mesh.normals, b.mesh.normals) {
            return false
        }
        return (!a.writesTexcoords || same(a.mesh.uv0, b.mesh.uv0)) && (!a.writesColors || same(a.mesh.colors, b.mesh.colors))
    }
}
