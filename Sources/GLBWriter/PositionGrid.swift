import SceneModel

/// The grid each mesh's positions are put on with `.meshopt`. The bound
/// `GLBOptions.positionError` holds in the room, as the mesh is drawn: it is divided by the
/// largest factor by which a node drawing the mesh stretches lengths (`stretch`), so a catalog
/// model authored in centimetres and drawn at 0.01 is put on a grid 64 times coarser than a mesh
/// in metres, and a mesh drawn six times its size on a finer one.
///
/// A mesh keeps the grid of an unstretched mesh when the stretched grid would write the very same
/// values (a unit cube's ±0.5 corners drawn 6 m long, a card whose corners are whole centimetres):
/// the values then say nothing new, and one exponent for the whole stream compresses best.
///
/// Meshes of identical content (the copies each instance of a referenced model composes) get the
/// grid of the most stretched copy, so they stay identical after snapping and are written once.
enum PositionGrid {
    /// A bound on how much `m` stretches lengths: its largest basis column length (the exact
    /// largest stretch for the orthogonal columns every written node matrix has).
    static func stretch(_ m: Matrix4?) -> Double {
        guard let e = m?.m else { return 1 }
        var largest = 0.0
        for c in 0..<3 {
            let x = e[4 * c], y = e[4 * c + 1], z = e[4 * c + 2]
            largest = max(largest, (x * x + y * y + z * z).squareRoot())
        }
        return largest
    }

    /// The grid exponent for `positions` drawn with at most `stretch`:
    /// `FloatQuantizer.gridExponent(error: error / stretch)`, unless every value snaps to the same
    /// float on that grid and on the unstretched one (`gridExponent(error:)`), which is then kept.
    /// A stretch that is zero, negative or not finite (a collapsed node) keeps the unstretched grid.
    static func exponent(_ positions: [Float], error: Double, stretch: Double) -> Int {
        let plain = FloatQuantizer.gridExponent(error: error)
        guard stretch.isFinite, stretch > 0 else { return plain }
        let drawn = FloatQuantizer.gridExponent(error: error / stretch)
        guard drawn != plain else { return plain }
        for v in positions
        where FloatQuantizer.snap(v, exponent: drawn).bitPattern != FloatQuantizer.snap(v, exponent: plain).bitPattern {
            return drawn
        }
        return plain
    }

    /// For every mesh, the index of the first mesh with the same content (itself when none before
    /// it): the same streams, indices and primitive ranges bit for bit, and primitives drawn with the
    /// same glTF material (`material`). Names and source paths aside.
    static func firstOfSameContent(_ meshes: [Mesh], material: (MaterialIndex?) -> Int) -> [Int] {
        var byHash: [Int: [Int]] = [:]
        var out: [Int] = []
        out.reserveCapacity(meshes.count)
        for (i, mesh) in meshes.enumerated() {
            var h = Hasher()
            h.combine(mesh.positions.count)
            h.combine(mesh.indices.count)
            let p = mesh.positions
            for k in stride(from: 0, to: p.count, by: max(1, p.count / 64)) { h.combine(p[k].bitPattern) }
            let key = h.finalize()
            if let same = byHash[key]?.first(where: { sameContent(meshes[$0], mesh, material: material) }) {
                out.append(same)
            } else {
                byHash[key, default: []].append(i)
                out.append(i)
            }
        }
        return out
    }

    private static func sameContent(_ a: Mesh, _ b: Mesh, material: (MaterialIndex?) -> Int) -> Bool {
        func same(_ x: [Float], _ y: [Float]) -> Bool {
            x.count == y.count && x.withUnsafeBytes { xb in y.withUnsafeBytes { yb in xb.elementsEqual(yb) } }
        }
        let ra = MeshPreparer.drawRanges(a), rb = MeshPreparer.drawRanges(b)
        return ra.count == rb.count
            && zip(ra, rb).allSatisfy { $0.start == $1.start && $0.count == $1.count && material($0.material) == material($1.material) }
            && a.indices == b.indices && same(a.positions, b.positions) && same(a.normals, b.normals)
            && same(a.uv0, b.uv0) && same(a.colors, b.colors)
    }
}
