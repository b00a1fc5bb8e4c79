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
    /// Normals already sanitised by welding (zero or non-finite ones set to +Y), for the warning.
    var repairedNormals = 0
    /// With `.meshopt`: every written position is an integer multiple of `2^positionExponent`
    /// (the exponent the `EXPONENTIAL` filter writes them with; see `PositionGrid`).
    var positionExponent = 0

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

    /// Texture coordinates are written only when one of the mesh's materials samples a texture
    /// (nothing reads them otherwise). With `.meshopt`, positions are put on the grid of
    /// `2^positionExponent` (`PositionGrid.exponent`).
    static func prepare(_ source: Mesh, materials: [Material], options: GLBOptions, positionExponent: Int) -> PreparedMesh {
        var mesh = source
        if options.compression == .meshopt {
            quantizePositions(&mesh.positions, exponent: positionExponent)
            for i in mesh.uv0.indices { mesh.uv0[i] = FloatQuantizer.snap(mesh.uv0[i], exponent: GLBOptions.texcoordGridExponent) }
        }
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
        let primitives = drawRanges(mesh).map { range in
            PreparedPrimitive(
                indexStart: range.start, indexCount: range.count, material: range.material,
                shortIndices: maxIndex(indices, range.start, range.count) < 65535)
        }
        let (lo, hi) = bounds(mesh.positions)
        var prepared = PreparedMesh(
            name: mesh.name, sourcePath: mesh.sourcePath, mesh: mesh, vertexCount: vertexCount + extraSource.count,
            extraSource: extraSource, generatedNormals: generated, indices: indices, primitives: primitives,
            minPosition: lo, maxPosition: hi,
            writesTexcoords: !mesh.uv0.isEmpty && mesh.uv0.count == vertexCount * 2
                && samplesTexture(mesh, materials: materials),
            writesColors: mesh.colors.count == vertexCount * 4 && colorsVary(mesh.colors))
        if options.compression == .meshopt {
            prepared = VertexWelder.weld(prepared)
            prepared.positionExponent = positionExponent
            MeshoptCodec.optimizeVertexCache(
                &prepared.indices, ranges: prepared.primitives.map { $0.indexStart..<($0.indexStart + $0.indexCount) },
                vertexCount: prepared.vertexCount)
        }
        return prepared
    }

    /// Puts every coordinate on the grid of `2^exponent`, so each moves by at most half a step
    /// (bounds computed afterwards are exact for the written data).
    static func quantizePositions(_ positions: inout [Float], exponent: Int) {
        for i in positions.indices { positions[i] = FloatQuantizer.snap(positions[i], exponent: exponent) }
    }

    static func samplesTexture(_ mesh: Mesh, materials: [Material]) -> Bool {
        drawRanges(mesh).contains { range in
            guard let m = range.material, m.rawValue >= 0, m.rawValue < materials.count else { return false }
            let material = materials[m.rawValue]
            return material.baseColorTexture != nil || material.metallicRoughnessTexture != nil
                || material.emissiveTexture != nil || material.normalTexture != nil || material.occlusionTexture != nil
        }
    }

    /// The normals written for the mesh, one per output vertex: generated ones, or the mesh's own
    /// sanitised (zero or non-finite → +Y, counted in `repaired`) and normalised. (Split vertices
    /// exist only with generated normals, which already cover them.)
    static func unitNormals(_ prepared: PreparedMesh) -> (normals: [Float], repaired: Int) {
        if let generated = prepared.generatedNormals { return (generated, 0) }
        var repaired = 0
        let nm = prepared.mesh.normals
        var out = [Float](repeating: 0, count: prepared.vertexCount * 3)
        for v in 0..<(prepared.mesh.positions.count / 3) {
            var n = SIMD3(nm[3 * v], nm[3 * v + 1], nm[3 * v + 2])
            let len2 = n.x * n.x + n.y * n.y + n.z * n.z
            if !(len2.isFinite && len2 > 0) {
                n = SIMD3(0, 1, 0)
                repaired += 1
            } else if abs(len2 - 1) > 1e-6 {
                n = NormalGenerator.normalized(n)
            }
            out[3 * v] = n.x
            out[3 * v + 1] = n.y
            out[3 * v + 2] = n.z
        }
        return (out, repaired)
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
