import SceneModel

/// One glTF primitive: a range of the (possibly rewritten) index buffer with one material.
struct PreparedPrimitive {
    var indexStart: Int
    /// A positive multiple of 3.
    var indexCount: Int
    var material: MaterialIndex?
    /// UNSIGNED_SHORT when every index is below 65535 (65535 is the primitive-restart value of
    /// some graphics APIs and is never written as a 16-bit index), else UNSIGNED_INT.
    var shortIndices: Bool
}

/// A mesh ready to encode: its sizes, bounds and streams are final, so the buffer can be laid out
/// before any byte is written.
struct PreparedMesh {
    var name: String
    var sourcePath: String
    /// The mesh whose streams are written (a scene mesh, shared, or a baked copy).
    var mesh: Mesh
    /// Output vertices: `mesh`'s vertices, then the copies listed in `extraSource`.
    var vertexCount: Int
    var extraSource: [UInt32]
    /// Normals computed for a mesh without them (one per output vertex); nil when `mesh.normals`
    /// is written (normalised while encoding).
    var generatedNormals: [Float]?
    /// The indices the primitives address (the mesh's own unless normals split vertices).
    var indices: [UInt32]
    var primitives: [PreparedPrimitive]
    var minPosition: SIMD3<Float>
    var maxPosition: SIMD3<Float>
    var writesTexcoords: Bool
    /// COLOR_0 is written only when the colours vary; a constant colour adds nothing a material
    /// cannot say, and the parser already folds constant display colours into materials.
    var writesColors: Bool

    var triangleCount: Int { primitives.reduce(0) { $0 + $1.indexCount / 3 } }
}

/// Prepares meshes for encoding: primitive ranges, generated normals, position bounds and index
/// widths. Work is linear in the mesh's size.
enum MeshPreparer {
    /// The primitive ranges a mesh draws: its primitives, each cut to whole triangles, empty ones
    /// skipped; a mesh without primitives draws all its indices with the default material.
    static func drawRanges(_ mesh: Mesh) -> [(start: Int, count: Int, material: MaterialIndex?)] {
        if mesh.primitives.isEmpty {
            let count = mesh.indices.count - mesh.indices.count % 3
            return count > 0 ? [(0, count, nil)] : []
        }
        return mesh.primitives.compactMap { p in
            let count = p.indexCount - p.indexCount % 3
            guard count > 0, p.indexStart >= 0, p.indexStart + count <= mesh.indices.count else { return nil }
            return (p.indexStart, count, p.material)
        }
    }

    /// True when the mesh draws at least one triangle (a mesh without any is not written).
    static func hasTriangles(_ mesh: Mesh) -> Bool {
        mesh.vertexCount > 0 && !drawRanges(mesh).isEmpty
    }

    static func prepare(_ source: Mesh, options: GLBOptions) -> PreparedMesh {
        var mesh = source
        if options.compression == .meshopt { quantizePositions(&mesh.positions, error: options.positionError) }
        let vertexCount = mesh.positions.count / 3
        var indices = mesh.indices
        var extraSource: [UInt32] = []
        var generated: [Float]?
        if mesh.normals.count != vertexCount * 3 || vertexCount == 0 {
            let g = NormalGenerator.generate(
                positions: mesh.positions, indices: mesh.indices, smoothingAngleDegrees: options.smoothingAngleDegrees)
            indices = g.indices
            extraSource = g.extraSource
            generated = g.normals
        }
        if options.compression == .meshopt {
            MeshoptCodec.optimizeVertexCache(
                &indices, ranges: drawRanges(mesh).map { $0.start..<($0.start + $0.count) },
                vertexCount: vertexCount + extraSource.count)
        }
        let primitives = drawRanges(mesh).map { range in
            PreparedPrimitive(
                indexStart: range.start, indexCount: range.count, material: range.material,
                shortIndices: maxIndex(indices, range.start, range.count) < 65535)
        }
        let (lo, hi) = bounds(mesh.positions)
        return PreparedMesh(
            name: mesh.name, sourcePath: mesh.sourcePath, mesh: mesh, vertexCount: vertexCount + extraSource.count,
            extraSource: extraSource, generatedNormals: generated, indices: indices, primitives: primitives,
            minPosition: lo, maxPosition: hi,
            writesTexcoords: !mesh.uv0.isEmpty && mesh.uv0.count == vertexCount * 2,
            writesColors: mesh.colors.count == vertexCount * 4 && colorsVary(mesh.colors))
    }

    /// Rounds every coordinate to the mantissa bits the mesh's largest coordinate needs to stay
    /// within `error` (so bounds computed afterwards are exact for the written data).
    static func quantizePositions(_ positions: inout [Float], error: Double) {
        var largest: Float = 0
        for v in positions where v.isFinite { largest = max(largest, abs(v)) }
        let bits = FloatQuantizer.mantissaBits(maxMagnitude: largest, error: error)
        guard bits < 23 else { return }
        for i in positions.indices { positions[i] = FloatQuantizer.round(positions[i], bits: bits) }
    }

    static func maxIndex(_ indices: [UInt32], _ start: Int, _ count: Int) -> UInt32 {
        indices.withUnsafeBufferPointer { p in
            var m: UInt32 = 0
            for i in start..<(start + count) { m = max(m, p[i]) }
            return m
        }
    }

    /// Component-wise min and max over all positions (every element of the accessor, used or not).
    static func bounds(_ positions: [Float]) -> (SIMD3<Float>, SIMD3<Float>) {
        positions.withUnsafeBufferPointer { p in
            guard p.count >= 3 else { return (.zero, .zero) }
            var lo = SIMD3(p[0], p[1], p[2])
            var hi = lo
            var i = 3
            while i + 2 < p.count {
                let v = SIMD3(p[i], p[i + 1], p[i + 2])
                lo = pointwiseMin(lo, v)
                hi = pointwiseMax(hi, v)
                i += 3
            }
            // Written min/max must equal the data exactly; -0 and 0 compare equal, keep +0.
            lo.replace(with: 0, where: lo .== 0)
            hi.replace(with: 0, where: hi .== 0)
            return (lo, hi)
        }
    }

    static func colorsVary(_ colors: [Float]) -> Bool {
        colors.withUnsafeBufferPointer { c in
            guard c.count >= 8 else { return false }
            var i = 4
            while i + 3 < c.count {
                if c[i].bitPattern != c[0].bitPattern || c[i + 1].bitPattern != c[1].bitPattern
                    || c[i + 2].bitPattern != c[2].bitPattern || c[i + 3].bitPattern != c[3].bitPattern
                {
                    return true
                }
                i += 4
            }
            return false
        }
    }
}
