import Foundation
import SceneModel
@testable import Thumbnailer

/// Scenes built by hand for the tests.
enum TestScenes {
    /// A scene of loose triangles (positions xyz per vertex, three vertices per triangle), one
    /// material.
    static func triangles(
        _ positions: [Float], material: Material = Material(name: "m", baseColor: SIMD4(1, 1, 1, 1)),
        uv: [Float] = [], colors: [Float] = []
    ) -> Scene {
        var s = Scene()
        let m = s.addMaterial(material)
        let n = positions.count / 3
        let mesh = s.addMesh(
            Mesh(
                name: "tris", positions: positions, uv0: uv, colors: colors, indices: (0..<n).map { UInt32($0) },
                primitives: [Mesh.Primitive(indexStart: 0, indexCount: n, material: m)]))
        s.addNode(Node(name: "tris", mesh: mesh))
        return s
    }

    /// One layer per top-level node, its children as elements (the non-RoomPlan layout).
    static func layered(_ scene: Scene) -> LayeredScene {
        var out = Scene(
            meshes: scene.meshes, materials: scene.materials, textures: scene.textures, metadata: scene.metadata)
        let children = scene.childrenByNode()
        var layers: [RoomLayer] = []
        var elements: [RoomElement] = []
        var map = [Int: NodeIndex]()
        func copy(_ i: Int, parent: NodeIndex?) {
            var n = scene.nodes[i]
            n.parent = parent
            let ni = out.addNode(n)
            map[i] = ni
            for c in children[i] { copy(c.rawValue, parent: ni) }
        }
        for root in scene.roots {
            let layerNode = out.addNode(Node(name: NodeName.layer(.group("\(root.rawValue)"))))
            var layer = RoomLayer(id: .group("\(root.rawValue)"), kind: .group, node: layerNode)
            copy(root.rawValue, parent: layerNode)
            let en = map[root.rawValue]!
            layer.elements.append(elements.count)
            elements.append(
                RoomElement(
                    identifier: "e\(root.rawValue)", category: .unclassified, layer: layer.id,
                    geometry: .usd, node: en))
            layers.append(layer)
        }
        return LayeredScene(scene: out, layers: layers, elements: elements)
    }

    /// An orthographic camera looking down −Z at the XY plane where one world unit is one pixel
    /// of a `width` × `height` image whose top-left corner is at (0, height).
    static func pixelCamera(width: Int, height: Int) -> ThumbnailCamera {
        let cx = Double(width) / 2, cy = Double(height) / 2
        return .orthographic(
            position: SIMD3(cx, cy, 10), target: SIMD3(cx, cy, 0), up: SIMD3(0, 1, 0),
            halfExtent: Double(height) / 2)
    }

    /// Exact-pixel settings: no supersampling, unlit, no occlusion, no edges.
    static func exact(ss: Int = 1) -> RenderSettings {
        var s = RenderSettings()
        s.supersampling = ss
        s.lit = false
        s.ambientOcclusion = false
        s.edges = false
        s.background = .zero
        s.tilePixels = 4
        return s
    }

    /// Renders a plain scene with internal settings.
    static func render(
        _ scene: Scene, camera: ThumbnailCamera, width: Int, height: Int, settings: RenderSettings
    )
        -> ViewRenderer.Output
    {
        let layered = Self.layered(scene)
        let rs = RenderScene(RenderContext.source(layered), textureBudget: 64 << 20, maxTextureSize: 2048)
        let b = rs.bounds
        let radius =
            b.isEmpty
            ? 1 : max((b.size.x * b.size.x + b.size.y * b.size.y + b.size.z * b.size.z).squareRoot() / 2, 1e-3)
        let cam = RenderCamera(camera, width: width, height: height, origin: rs.origin, sceneRadius: radius)
        return ViewRenderer.render(scene: rs, camera: cam, hiddenInstance: [], settings: settings, sceneRadius: radius)
    }

    /// Where debug images go (`THUMBNAILER_TEST_IMAGES`), if anywhere.
    static func saveDebugImage(_ name: String, rgba: [UInt8], width: Int, height: Int) {
        guard let dir = ProcessInfo.processInfo.environment["THUMBNAILER_TEST_IMAGES"] else { return }
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let png = PNGWriter.encode(rgba: rgba, width: width, height: height)
        FileManager.default.createFile(atPath: dir + "/" + name + ".png", contents: Data(png))
    }
}
