import Foundation
import SceneModel
import Testing

@testable import GLBWriter

/// Writes sample files for external loaders (scripts/check-glb.py) when `GLB_OUT_DIR` is set;
/// always checks them with the structural validator. With `GLB_VALIDATE_DIR` set, also runs the
/// structural validator over every `.glb` in that folder (files written elsewhere).
@Suite struct SampleOutputTests {
    static func samples() -> [(String, LayeredScene)] {
        let png = Texture(bytes: Images.png, mimeType: "image/png", sourcePath: "0/wood.png")
        let jpeg = Texture(bytes: Images.jpeg, mimeType: "image/jpeg", sourcePath: "0/fabric.jpg")
        var transform = TextureRef(texture: TextureIndex(1), wrapS: .mirror, wrapT: .clamp)
        transform.uvTransform = UVTransform(translation: SIMD2(0.1, 0.2), rotation: 0.3, scale: SIMD2(2, 2))
        var room = RoundTripTests.room()
        room.scene.textures = [png, jpeg]
        room.scene.materials = [
            Material(
                name: "wood", baseColor: .one, baseColorTexture: TextureRef(texture: TextureIndex(0)),
                roughness: 0.8),
            Material(name: "fabric", baseColorTexture: transform, alphaMode: .mask(cutoff: 0.4), doubleSided: true),
            Material(name: "glass", baseColor: SIMD4(0.7, 0.8, 0.9, 0.3), alphaMode: .blend),
        ]
        room.scene.meshes[0].primitives[0].material = MaterialIndex(0)
        room.scene.meshes[1].primitives = [
            .init(indexStart: 0, indexCount: 18, material: MaterialIndex(1)),
            .init(indexStart: 18, indexCount: 18, material: MaterialIndex(2)),
        ]
        var shear = Matrix4.identity
        shear[0, 1] = 0.3
        var baked = RoomBuilder()
        let m = baked.scene.addMesh(Meshes.sphere())
        let layer = baked.addLayer("objects.table", kind: "objects", category: "table")
        baked.addElement("TABLE-1", layer: layer, category: "table", transform: shear, mesh: m)
        var big = RoomBuilder()
        let g = big.scene.addMesh(Meshes.grid(300))
        big.addElement("FLOOR-1", layer: big.addLayer("floors"), category: "floor", mesh: g)
        return [
            ("tiny", singleMeshRoom(Meshes.triangle())),
            ("room", room),
            ("baked", baked.layered),
            ("u32-floor", big.layered),
        ]
    }

    @Test func samplesAreValidAndWrittenWhenAsked() throws {
        let dir = ProcessInfo.processInfo.environment["GLB_OUT_DIR"]
        if let dir { try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) }
        for (name, layered) in Self.samples() {
            let (output, _) = try writeAndRead(layered)
            if let dir {
                try Data(output.bytes).write(to: URL(fileURLWithPath: dir).appendingPathComponent(name + ".glb"))
            }
        }
    }

    static let validateDirectory = ProcessInfo.processInfo.environment["GLB_VALIDATE_DIR"]

    @Test(.enabled(if: SampleOutputTests.validateDirectory != nil)) func filesInValidateDirPassTheValidator() throws {
        let dir = try #require(Self.validateDirectory)
        let names = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".glb") }.sorted()
        #expect(!names.isEmpty)
        for name in names {
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir).appendingPathComponent(name)))
            let problems = GLTFStructuralValidator.validate(bytes)
            #expect(problems.isEmpty, "\(name): \(problems)")
        }
    }
}
