import SceneModel
import Testing

@testable import GLBWriter

/// Writes `layered`, checks the file with the structural validator, and re-reads it.
func writeAndRead(
    _ layered: LayeredScene, smoothingAngle: Double = 40, sourceLocation: SourceLocation = #_sourceLocation
) throws -> (GLBOutput, GLBTestReader) {
    let output = try GLBWriter.write(
        layered, options: GLBOptions(generator: "CrowdRoom tests", smoothingAngleDegrees: smoothingAngle))
    let problems = GLTFStructuralValidator.validate(output.bytes)
    #expect(problems.isEmpty, "structural problems: \(problems)", sourceLocation: sourceLocation)
    return (output, try GLBTestReader(output.bytes))
}

/// A room with one layer and one element drawing `mesh` (with `materials`/`textures`).
func singleMeshRoom(
    _ mesh: Mesh, materials: [Material] = [], textures: [Texture] = [], transform: Matrix4 = .identity
) -> LayeredScene {
    var b = RoomBuilder()
    for t in textures { b.scene.addTexture(t) }
    for m in materials { b.scene.addMaterial(m) }
    let m = b.scene.addMesh(mesh)
    let layer = b.addLayer("walls")
    b.addElement("WALL-1", layer: layer, category: "wall", transform: transform, mesh: m)
    return b.layered
}

/// `singleMeshRoom` with every primitive drawn by one material that samples a texture, so the
/// mesh's texture coordinates are written (they are left out when no material reads them).
func texturedRoom(_ mesh: Mesh) -> LayeredScene {
    var m = mesh
    m.primitives = MeshPreparerRanges.all(mesh).map { Mesh.Primitive(indexStart: $0.0, indexCount: $0.1, material: MaterialIndex(0)) }
    return singleMeshRoom(
        m, materials: [Material(name: "textured", baseColor: .one, baseColorTexture: TextureRef(texture: TextureIndex(0)))],
        textures: [Texture(bytes: Images.png, mimeType: "image/png", sourcePath: "0/t.png")])
}

/// The primitive ranges of a mesh (its own, or one over every index).
enum MeshPreparerRanges {
    static func all(_ mesh: Mesh) -> [(Int, Int)] {
        mesh.primitives.isEmpty ? [(0, mesh.indices.count)] : mesh.primitives.map { ($0.indexStart, $0.indexCount) }
    }
}

/// glTF accessor index of attribute `name` of primitive `p` of mesh `m`.
func attribute(_ reader: GLBTestReader, mesh m: Int = 0, primitive p: Int = 0, _ name: String) -> Int? {
    let prims = reader.meshes[m]["primitives"] as? [[String: Any]] ?? []
    return int((prims[p]["attributes"] as? [String: Any])?[name])
}

/// glTF accessor index of the indices of primitive `p` of mesh `m`.
func indicesAccessor(_ reader: GLBTestReader, mesh m: Int = 0, primitive p: Int = 0) -> Int? {
    let prims = reader.meshes[m]["primitives"] as? [[String: Any]] ?? []
    return int(prims[p]["indices"])
}

/// Little-endian bytes of floats, for hand-computed expectations.
func le(_ values: [Float]) -> [UInt8] {
    values.flatMap { v -> [UInt8] in
        let b = v.bitPattern
        return [UInt8(b & 0xFF), UInt8(b >> 8 & 0xFF), UInt8(b >> 16 & 0xFF), UInt8(b >> 24)]
    }
}
