import Foundation
import SceneModel
import Testing

@testable import GLBWriter

/// `EXT_meshopt_compression`: decoded with meshoptimizer's own decoders, the compressed model
/// holds the uncompressed model's geometry within the stated bounds, with the same node tree.
@Suite struct MeshoptCompressionTests {
    /// A wavy grid of `n × n` quads in two primitives (two materials), with normals, UVs and
    /// per-vertex colours, placed away from the origin; material `a` samples a texture, so the
    /// texture coordinates are written.
    static func grid(_ n: Int) -> (Mesh, [Material]) {
        var positions: [Float] = [], normals: [Float] = [], uv: [Float] = [], colors: [Float] = []
        for j in 0...n {
            for i in 0...n {
                let x = Float(i) * 0.37, z = Float(j) * 0.29
                positions += [x + 12.5, 0.2 * sin(x * 3) + 1.25, z - 7.75]
                let nrm = SIMD3<Float>(-0.6 * cos(x * 3), 1, 0.1)
                let l = (nrm * nrm).sum().squareRoot()
                normals += [nrm.x / l, nrm.y / l, nrm.z / l]
                uv += [Float(i) / Float(n), Float(j) / Float(n)]
                colors += [Float(i) / Float(n), 0.5, Float(j) / Float(n), 1]
            }
        }
        var indices: [UInt32] = []
        for j in 0..<n {
            for i in 0..<n {
                let a = UInt32(j * (n + 1) + i), b = a + 1, c = a + UInt32(n + 1), d = c + 1
                indices += [a, c, b, b, c, d]
            }
        }
        let half = (indices.count / 6 / 2) * 6
        let mesh = Mesh(
            name: "grid", positions: positions, normals: normals, uv0: uv, colors: colors, indices: indices,
            primitives: [
                Mesh.Primitive(indexStart: 0, indexCount: half, material: MaterialIndex(0)),
                Mesh.Primitive(indexStart: half, indexCount: indices.count - half, material: MaterialIndex(1)),
            ])
        return (mesh, [Material(name: "a", baseColor: SIMD4(1, 0, 0, 1), baseColorTexture: TextureRef(texture: TextureIndex(0))), Material(name: "b")])
    }

    static let texture = Texture(bytes: Images.png, mimeType: "image/png", sourcePath: "0/grid.png")

    func write(_ layered: LayeredScene, _ compression: GLBCompression, error: Double = 0.001) throws -> GLBTestReader {
        let out = try GLBWriter.write(
            layered, options: GLBOptions(generator: "CrowdRoom tests", compression: compression, positionError: error))
        let problems = GLTFStructuralValidator.validate(out.bytes)
        #expect(problems.isEmpty, "\(problems)")
        return try GLBTestReader(out.bytes)
    }

    /// Triangles of primitive `p` as corner tuples of (position, normal, uv, colour) values.
    func triangles(
        _ r: GLBTestReader, _ d: MeshoptTestDecoder?, primitive p: Int, positionsAndNormalsOnly: Bool = false
    ) throws -> [[[Double]]] {
        func values(_ accessor: Int) throws -> [[Double]] {
            if let d { return try d.values(accessor) }
            return try MeshoptTestDecoder.plainValues(r, accessor)
        }
        let pos = try values(attribute(r, primitive: p, "POSITION")!)
        let nrm = try values(attribute(r, primitive: p, "NORMAL")!)
        let count = pos.count
        let uv = !positionsAndNormalsOnly ? try values(attribute(r, primitive: p, "TEXCOORD_0")!) : Array(repeating: [0, 0], count: count)
        let col = !positionsAndNormalsOnly ? try values(attribute(r, primitive: p, "COLOR_0")!) : Array(repeating: [0, 0, 0, 0], count: count)
        let idx = try values(indicesAccessor(r, primitive: p)!).map { Int($0[0]) }
        return stride(from: 0, to: idx.count, by: 3).map { t in
            (0..<3).map { k in
                let v = idx[t + k]
                return pos[v] + nrm[v] + uv[v] + col[v]
            }
        }
    }

    /// Corners equal within the bounds: position components within 1 mm, normal components within
    /// 8-bit octahedral precision, texture coordinates within 2⁻¹³, colours exact.
    /// The index codec may rotate a triangle's corners (keeping its winding), so any rotation counts.
    static func sameCorners(_ a: [[Double]], _ b: [[Double]]) -> Bool {
        rotations: for r in 0..<3 {
            for k in 0..<3 {
                let x = a[(k + r) % 3], y = b[k]
                for c in 0..<3 where abs(x[c] - y[c]) > 0.001 { continue rotations }
                for c in 3..<6 where abs(x[c] - y[c]) > 0.02 { continue rotations }
                for c in 6..<8 where abs(x[c] - y[c]) > 0x1p-13 { continue rotations }
                for c in 8..<12 where x[c] != y[c] { continue rotations }
            }
            return true
        }
        return false
    }

    /// Triangles as index triples rotated to start at their smallest index (winding kept).
    static func canonical(_ i: [UInt32]) -> [[UInt32]] {
        stride(from: 0, to: i.count, by: 3).map { t in
            let tri = [i[t], i[t + 1], i[t + 2]]
            let r = tri.firstIndex(of: tri.min()!)!
            return [tri[r], tri[(r + 1) % 3], tri[(r + 2) % 3]]
        }
    }

    @Test func decodedGeometryMatchesTheUncompressedModelWithinItsBounds() throws {
        let (mesh, materials) = Self.grid(24)
        let layered = singleMeshRoom(mesh, materials: materials, textures: [Self.texture])
        let plain = try write(layered, .none)
        let packed = try write(layered, .meshopt)
        let decoded = try MeshoptTestDecoder(packed)
        #expect(packed.json["extensionsRequired"] as? [String] == ["EXT_meshopt_compression", "KHR_mesh_quantization"])
        // Selection intact: the same nodes, names, extras and mesh references.
        #expect(NSDictionary(dictionary: ["n": packed.nodes]) == NSDictionary(dictionary: ["n": plain.nodes]))
        #expect((packed.bin?.count ?? 0) * 2 < (plain.bin?.count ?? 0), "compressed BIN \(packed.bin?.count ?? 0)")
        for p in 0..<2 {
            var want = try triangles(plain, nil, primitive: p)
            let got = try triangles(packed, decoded, primitive: p)
            #expect(got.count == want.count)
            // Triangle order changes (vertex cache order); match each decoded triangle to one of the
            // originals with the same winding: positions within 1 mm, normals within 8-bit
            // octahedral precision, texture coordinates within 2⁻¹³, colours exact.
            for tri in got {
                let match = want.firstIndex { w in Self.sameCorners(tri, w) }
                guard let match else {
                    Issue.record("decoded triangle \(tri) has no counterpart")
                    return
                }
                want.remove(at: match)
            }
            #expect(want.isEmpty)
        }
        // POSITION min/max describe the written (rounded) data exactly.
        let position = attribute(packed, "POSITION")!
        let all = try decoded.values(position)
        let lo = (0..<3).map { c in all.map { $0[c] }.min()! }, hi = (0..<3).map { c in all.map { $0[c] }.max()! }
        #expect(packed.accessors[position]["min"] as? [Double] == lo)
        #expect(packed.accessors[position]["max"] as? [Double] == hi)
    }

    @Test func positionsSnapToAGridWithinTheBoundAndTheFilterHoldsThemExactly() throws {
        for error in [0.0001, 0.001, 0.01] {
            let e = FloatQuantizer.gridExponent(error: error)
            let step = Double(sign: .plus, exponent: e, significand: 1)
            #expect(step / 2 <= error && step > error, "step \(step) for \(error)")
            var values: [Float] = []
            for k in 0..<4000 { values.append(Float(k - 2000) * 0.0123457 + (k % 3 == 0 ? 0.000_031 : 0)) }
            values += [0, -0.0, 1e-7, 8191.9, -8191.9, 40_000, -123_456.7, 3.0e9]
            var bits: [UInt32] = []
            for v in values {
                let q = FloatQuantizer.snap(v, exponent: e)
                // On the grid: within the bound; beyond it (|v| ≥ 2^(23+e)): 23 significant bits.
                let bound = abs(Double(v)) < Double(FloatQuantizer.mantissaLimit) * step ? error : abs(Double(v)) * 0x1p-23
                #expect(abs(Double(q) - Double(v)) <= bound, "\(v) → \(q)")
                bits.append(try #require(FloatQuantizer.exponentialBits(q, exponent: e), "\(q)"))
            }
            // meshoptimizer's own decoder turns the filter's form back into exactly the snapped values.
            var bytes = bits.flatMap { w in (0..<4).map { UInt8(truncatingIfNeeded: w >> (8 * $0)) } }
            MeshoptCodec.decodeExponential(&bytes, count: bits.count, stride: 4)
            for (i, v) in values.enumerated() {
                let decoded = Float(bitPattern: GLBTestReader.u32(bytes, 4 * i))
                #expect(decoded == FloatQuantizer.snap(v, exponent: e), "\(v)")
            }
        }
        #expect(FloatQuantizer.snap(.nan, exponent: -9).isNaN && FloatQuantizer.snap(.infinity, exponent: -9) == .infinity)
        #expect(FloatQuantizer.exponentialBits(.nan, exponent: -9) == nil)
        // A value off the grid is refused (the packer then writes the view without the filter).
        #expect(FloatQuantizer.exponentialBits(0.3, exponent: -9) == nil)
    }

    @Test func sameInputSameBytesAndTheStructureAsSpecified() throws {
        let (mesh, materials) = Self.grid(8)
        let layered = singleMeshRoom(mesh, materials: materials, textures: [Self.texture])
        let a = try GLBWriter.write(layered, options: GLBOptions(generator: "t", compression: .meshopt)).bytes
        let b = try GLBWriter.write(layered, options: GLBOptions(generator: "t", compression: .meshopt)).bytes
        #expect(a == b)
        let r = try GLBTestReader(a)
        let buffers = r.array("buffers")
        #expect(buffers.count == 2 && int(buffers[0]["byteLength"]) == r.bin?.count)
        #expect(((buffers[1]["extensions"] as? [String: Any])?["EXT_meshopt_compression"] as? [String: Any])?["fallback"] as? Bool == true)
        for view in r.bufferViews where view["target"] != nil {  // vertex and index data; the image is stored as is
            let ext = (view["extensions"] as? [String: Any])?["EXT_meshopt_compression"] as? [String: Any]
            #expect(ext != nil && int(view["buffer"]) == 1)
            #expect(int(ext?["buffer"]) == 0 && (int(ext?["byteOffset"]) ?? 0) % 4 == 0)
        }
        let normal = r.accessors[attribute(r, "NORMAL")!]
        #expect(int(normal["componentType"]) == 5120 && normal["normalized"] as? Bool == true)
        func filter(_ attributeName: String) -> String? {
            let view = r.bufferViews[int(r.accessors[attribute(r, attributeName)!]["bufferView"])!]
            return ((view["extensions"] as? [String: Any])?["EXT_meshopt_compression"] as? [String: Any])?["filter"] as? String
        }
        #expect(filter("POSITION") == "EXPONENTIAL" && filter("NORMAL") == "OCTAHEDRAL" && filter("TEXCOORD_0") == "EXPONENTIAL")
        #expect(int(r.accessors[attribute(r, "POSITION")!]["componentType"]) == 5126, "positions stay float32")
    }

    @Test func theValidatorRefusesBrokenCompressionStructure() throws {
        let (mesh, materials) = Self.grid(4)
        let bytes = try GLBWriter.write(
            singleMeshRoom(mesh, materials: materials, textures: [Self.texture]),
            options: GLBOptions(generator: "t", compression: .meshopt)).bytes
        #expect(GLTFStructuralValidator.validate(bytes).isEmpty)
        func edited(_ from: String, _ to: String) -> [UInt8] {
            // Same-length edits of the JSON text keep every chunk length valid.
            precondition(from.utf8.count == to.utf8.count)
            let text = String(decoding: bytes, as: UTF8.self)
            return Array(text.replacingOccurrences(of: from, with: to).utf8)
        }
        let broken = [
            edited("\"OCTAHEDRAL\"", "\"OCTAHEDRAX\""),  // unknown filter
            edited("\"TRIANGLES\"", "\"TRIANGLEZ\""),  // unknown mode
            edited("\"fallback\":true", "\"fallback\":null"),  // buffer 1 not a fallback
        ]
        for b in broken {
            #expect(b != bytes)
            #expect(!GLTFStructuralValidator.validate(b).isEmpty)
        }
        // Compressed data that does not decode.
        let reader = try GLBTestReader(bytes)
        var corrupt = bytes
        let binStart = 20 + reader.jsonChunk.count + 8
        for i in binStart..<(binStart + 16) { corrupt[i] = 0xFF }
        #expect(!GLTFStructuralValidator.validate(corrupt).isEmpty)
    }

    @Test func verticesEqualInEverythingWrittenAreStoredOnce() throws {
        // A quad of two triangles whose shared corners are duplicated, and an unused vertex.
        let quad = Mesh(
            name: "quad", positions: [0, 0, 0, 1, 0, 0, 1, 0, 1, 1, 0, 1, 0, 0, 1, 0, 0, 0, 7, 7, 7],
            normals: [0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0],
            indices: [0, 2, 1, 3, 5, 4], primitives: [.init(indexStart: 0, indexCount: 6, material: nil)])
        let packed = try write(singleMeshRoom(quad), .meshopt)
        let plain = try write(singleMeshRoom(quad), .none)
        let position = try #require(attribute(packed, "POSITION"))
        #expect(int(packed.accessors[position]["count"]) == 4, "duplicated corners merged, the unused vertex dropped")
        #expect(int(plain.accessors[attribute(plain, "POSITION")!]["count"]) == 7, "the uncompressed model keeps every vertex")
        let decoded = try MeshoptTestDecoder(packed)
        let got = try triangles(packed, decoded, primitive: 0, positionsAndNormalsOnly: true)
        let want = try triangles(plain, nil, primitive: 0, positionsAndNormalsOnly: true)
        #expect(got.count == 2 && want.allSatisfy { w in got.contains { Self.sameCorners($0, w) } })
        #expect(packed.accessors[position]["max"] as? [Double] == [1, 0, 1], "bounds of the stored vertices")
        // Texture coordinates that differ keep vertices apart (a UV seam), when they are written.
        var seam = quad
        seam.uv0 = [0, 0, 1, 0, 1, 1, 0.5, 1, 0, 1, 0, 0, 0, 0]
        let seamed = try write(texturedRoom(seam), .meshopt)
        #expect(int(seamed.accessors[attribute(seamed, "POSITION")!]["count"]) == 5)
    }

    @Test func texcoordsAreWrittenOnlyWhenAMaterialSamplesATexture() throws {
        let (mesh, _) = Self.grid(2)
        for compression in [GLBCompression.none, .meshopt] {
            let untextured = try write(singleMeshRoom(mesh, materials: [Material(name: "a"), Material(name: "b")]), compression)
            #expect(attribute(untextured, "TEXCOORD_0") == nil)
            #expect(attribute(try write(texturedRoom(mesh), compression), "TEXCOORD_0") != nil)
        }
    }

    @Test func codecRoundTripsAreExact() throws {
        var bytes = [UInt8](repeating: 0, count: 64 * 12)
        for i in bytes.indices { bytes[i] = UInt8(truncatingIfNeeded: i * 37 + i / 12) }
        let encoded = bytes.withUnsafeBytes { MeshoptCodec.encodeVertices($0, count: 64, stride: 12) }
        #expect(MeshoptCodec.decodeVertices(encoded, count: 64, stride: 12) == bytes)
        #expect(MeshoptCodec.decodeVertices(Array(encoded.prefix(encoded.count / 2)), count: 64, stride: 12) == nil)
        let indices: [UInt32] = [0, 1, 2, 2, 1, 3, 3, 1, 4, 4, 5, 3]
        let packed = MeshoptCodec.encodeTriangles(indices, vertexCount: 6)
        let decoded = try #require(MeshoptCodec.decodeTriangles(packed, count: indices.count, indexSize: 4))
        // The codec may rotate a triangle's corners; the triangles and their winding are kept.
        #expect(Self.canonical((0..<indices.count).map { GLBTestReader.u32(decoded, 4 * $0) }) == Self.canonical(indices))
    }
}

extension MeshoptTestDecoder {
    /// Accessor values of an uncompressed model (float32 or integer components, tightly packed).
    static func plainValues(_ r: GLBTestReader, _ accessor: Int) throws -> [[Double]] {
        let (raw, count, components, type) = try r.accessorBytes(accessor)
        let b = Array(raw)
        return (0..<count).map { k in
            (0..<components).map { c in
                let i = k * components + c
                switch type {
                case 5126: return Double(Float(bitPattern: GLBTestReader.u32(b, 4 * i)))
                case 5123: return Double(UInt16(b[2 * i]) | UInt16(b[2 * i + 1]) << 8)
                default: return Double(GLBTestReader.u32(b, 4 * i))
                }
            }
        }
    }
}
