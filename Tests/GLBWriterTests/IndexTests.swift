import SceneModel
import Testing

@testable import GLBWriter

/// 16-bit indices when every index is below 65535, 32-bit otherwise.
@Suite struct IndexTests {
    /// `vertexCount` vertices along X (normals given), triangles fanning so the last vertex is used.
    func strip(_ vertexCount: Int, primitives: [(Int, Int)]? = nil, indices custom: [UInt32]? = nil) -> Mesh {
        var positions = [Float](repeating: 0, count: vertexCount * 3)
        var normals = [Float](repeating: 0, count: vertexCount * 3)
        for v in 0..<vertexCount {
            positions[3 * v] = Float(v)
            positions[3 * v + 1] = Float(v % 2)
            normals[3 * v + 2] = 1
        }
        let last = UInt32(vertexCount - 1)
        let indices = custom ?? [0, 1, last, 1, 2, last]
        let prims = (primitives ?? [(0, indices.count)]).map {
            Mesh.Primitive(indexStart: $0.0, indexCount: $0.1, material: nil)
        }
        return Mesh(name: "strip", positions: positions, normals: normals, indices: indices, primitives: prims)
    }

    func componentTypes(_ reader: GLBTestReader) -> [Int] {
        let prims = reader.meshes[0]["primitives"] as? [[String: Any]] ?? []
        return prims.indices.map { int(reader.accessors[indicesAccessor(reader, primitive: $0)!]["componentType"])! }
    }

    @Test func largestIndex65534UsesUnsignedShort() throws {
        let (_, reader) = try writeAndRead(singleMeshRoom(strip(65535)))
        #expect(componentTypes(reader) == [5123])
        #expect(try reader.integers(indicesAccessor(reader)!) == [0, 1, 65534, 1, 2, 65534])
    }

    @Test func index65535UsesUnsignedIntNeverTheRestartValue() throws {
        let (_, reader) = try writeAndRead(singleMeshRoom(strip(65536)))
        #expect(componentTypes(reader) == [5125])
        #expect(try reader.integers(indicesAccessor(reader)!) == [0, 1, 65535, 1, 2, 65535])
    }

    @Test func widthIsChosenPerPrimitive() throws {
        let mesh = strip(70000, primitives: [(0, 3), (3, 3)], indices: [0, 1, 2, 1, 2, 69_999])
        let (_, reader) = try writeAndRead(singleMeshRoom(mesh))
        #expect(componentTypes(reader) == [5123, 5125])
        #expect(try reader.integers(indicesAccessor(reader, primitive: 1)!) == [1, 2, 69_999])
    }

    @Test func primitivesShareTheVertexAccessors() throws {
        var mesh = Meshes.quad()
        mesh.primitives = [
            .init(indexStart: 0, indexCount: 3, material: nil),
            .init(indexStart: 3, indexCount: 3, material: nil),
        ]
        let (_, reader) = try writeAndRead(singleMeshRoom(mesh))
        let prims = reader.meshes[0]["primitives"] as? [[String: Any]] ?? []
        #expect(prims.count == 2)
        #expect(attribute(reader, primitive: 0, "POSITION") == attribute(reader, primitive: 1, "POSITION"))
        #expect(try reader.integers(indicesAccessor(reader, primitive: 1)!) == [0, 2, 3])
    }
}
