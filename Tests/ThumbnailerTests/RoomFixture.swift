import SceneModel

/// A hand-built RoomPlan-like room: four (or three) walls as boxes, a door, a window, a floor
/// polygon, a table, two chairs and a sofa, laid out as `Layering` lays out RoomPlan scenes.
enum RoomFixture {
    struct Spec {
        var origin: SIMD3<Double>
        var x: SIMD3<Double>
        var z: SIMD3<Double>
        var category: String
        var size: SIMD3<Double>
        /// Box extent along local z (walls extrude outward, toward −z).
        var zRange: ClosedRange<Double>
        var parent: String?
        var corners: [SIMD3<Double>] = []
    }

    static func transform(origin o: SIMD3<Double>, x: SIMD3<Double>, z: SIMD3<Double>) -> Matrix4 {
        let y = SIMD3(z.y * x.z - z.z * x.y, z.z * x.x - z.x * x.z, z.x * x.y - z.y * x.x)
        return Matrix4(columnMajor: [x.x, x.y, x.z, 0, y.x, y.y, y.z, 0, z.x, z.y, z.z, 0, o.x, o.y, o.z, 1])
    }

    /// Box mesh (24 vertices, per-face normals, counter-clockwise).
    static func box(_ lo: SIMD3<Float>, _ hi: SIMD3<Float>) -> (positions: [Float], normals: [Float], indices: [UInt32])
    {
        var p: [Float] = [], n: [Float] = [], idx: [UInt32] = []
        func quad(_ a: SIMD3<Float>, _ b: SIMD3<Float>, _ c: SIMD3<Float>, _ d: SIMD3<Float>, _ nn: SIMD3<Float>) {
            let base = UInt32(p.count / 3)
            for v in [a, b, c, d] {
                p += [v.x, v.y, v.z]
                n += [nn.x, nn.y, nn.z]
            }
            idx += [base, base + 1, base + 2, base, base + 2, base + 3]
        }
        let (x0, y0, z0, x1, y1, z1) = (lo.x, lo.y, lo.z, hi.x, hi.y, hi.z)
        quad(SIMD3(x0, y0, z1), SIMD3(x1, y0, z1), SIMD3(x1, y1, z1), SIMD3(x0, y1, z1), SIMD3(0, 0, 1))
        quad(SIMD3(x1, y0, z0), SIMD3(x0, y0, z0), SIMD3(x0, y1, z0), SIMD3(x1, y1, z0), SIMD3(0, 0, -1))
        quad(SIMD3(x1, y0, z1), SIMD3(x1, y0, z0), SIMD3(x1, y1, z0), SIMD3(x1, y1, z1), SIMD3(1, 0, 0))
        quad(SIMD3(x0, y0, z0), SIMD3(x0, y0, z1), SIMD3(x0, y1, z1), SIMD3(x0, y1, z0), SIMD3(-1, 0, 0))
        quad(SIMD3(x0, y1, z1), SIMD3(x1, y1, z1), SIMD3(x1, y1, z0), SIMD3(x0, y1, z0), SIMD3(0, 1, 0))
        quad(SIMD3(x0, y0, z0), SIMD3(x1, y0, z0), SIMD3(x1, y0, z1), SIMD3(x0, y0, z1), SIMD3(0, -1, 0))
        return (p, n, idx)
    }

    /// The room; `withoutEastWall` leaves out the wall at x = 5 (and its window).
    static func room(withoutEastWall: Bool = false) -> LayeredScene {
        let h = 2.5
        var specs: [(String, Spec)] = [
            (
                "WALL-A",
                Spec(
                    origin: SIMD3(2.5, h / 2, 0), x: SIMD3(1, 0, 0), z: SIMD3(0, 0, 1), category: "wall",
                    size: SIMD3(5, h, 0), zRange: -0.1...0)
            ),
            (
                "WALL-C",
                Spec(
                    origin: SIMD3(2.5, h / 2, 4), x: SIMD3(-1, 0, 0), z: SIMD3(0, 0, -1), category: "wall",
                    size: SIMD3(5, h, 0), zRange: -0.1...0)
            ),
            (
                "WALL-D",
                Spec(
                    origin: SIMD3(0, h / 2, 2), x: SIMD3(0, 0, -1), z: SIMD3(1, 0, 0), category: "wall",
                    size: SIMD3(4, h, 0), zRange: -0.1...0)
            ),
            (
                "DOOR-1",
                Spec(
                    origin: SIMD3(1, 1.0, 0), x: SIMD3(1, 0, 0), z: SIMD3(0, 0, 1), category: "door",
                    size: SIMD3(0.9, 2.0, 0), zRange: -0.025...0.025, parent: "WALL-A")
            ),
            (
                "FLOOR-1",
                Spec(
                    origin: SIMD3(2.5, 0, 2), x: SIMD3(1, 0, 0), z: SIMD3(0, 1, 0), category: "floor",
                    size: SIMD3(5, 4, 0), zRange: -0.01...0,
                    corners: [SIMD3(-2.5, -2, 0), SIMD3(2.5, -2, 0), SIMD3(2.5, 2, 0), SIMD3(-2.5, 2, 0)])
            ),
            (
                "TABLE-1",
                Spec(
                    origin: SIMD3(2.5, 0.375, 2), x: SIMD3(1, 0, 0), z: SIMD3(0, 0, 1), category: "table",
                    size: SIMD3(1.4, 0.75, 0.8), zRange: -0.4...0.4)
            ),
            (
                "CHAIR-1",
                Spec(
                    origin: SIMD3(2.5, 0.45, 2.8), x: SIMD3(-1, 0, 0), z: SIMD3(0, 0, -1), category: "chair",
                    size: SIMD3(0.5, 0.9, 0.5), zRange: -0.25...0.25)
            ),
            (
                "CHAIR-2",
                Spec(
                    origin: SIMD3(2.5, 0.45, 1.2), x: SIMD3(1, 0, 0), z: SIMD3(0, 0, 1), category: "chair",
                    size: SIMD3(0.5, 0.9, 0.5), zRange: -0.25...0.25)
            ),
            (
                "SOFA-1",
                Spec(
                    origin: SIMD3(2.5, 0.425, 3.5), x: SIMD3(-1, 0, 0), z: SIMD3(0, 0, -1), category: "sofa",
                    size: SIMD3(2.0, 0.85, 0.9), zRange: -0.45...0.45)
            ),
        ]
        if !withoutEastWall {
            specs.insert(
                (
                    "WALL-B",
                    Spec(
                        origin: SIMD3(5, h / 2, 2), x: SIMD3(0, 0, 1), z: SIMD3(-1, 0, 0), category: "wall",
                        size: SIMD3(4, h, 0), zRange: -0.1...0)
                ), at: 1)
            specs.append(
                (
                    "WINDOW-1",
                    Spec(
                        origin: SIMD3(5, 1.4, 2.5), x: SIMD3(0, 0, 1), z: SIMD3(-1, 0, 0),
                        category: "window", size: SIMD3(1.2, 1.0, 0), zRange: -0.025...0.025,
                        parent: "WALL-B")
                ))
        }
        var scene = Scene()
        let material = scene.addMaterial(Material(name: "white", baseColor: SIMD4(1, 1, 1, 1)))
        func layerID(_ c: String) -> String {
            switch c {
            case "wall": return "walls"
            case "door": return "doors"
            case "window": return "windows"
            case "floor": return "floors"
            default: return "objects.\(c)"
            }
        }
        let order = ["walls", "doors", "windows", "floors", "objects.chair", "objects.sofa", "objects.table"]
        var layers: [RoomLayer] = []
        var elements: [RoomElement] = []
        for id in order {
            let members = specs.filter { layerID($0.1.category) == id }.sorted { $0.0 < $1.0 }
            guard !members.isEmpty else { continue }
            let layerNode = scene.addNode(Node(name: NodeName.layer(LayerID(id))))
            var layer = RoomLayer(id: LayerID(id), kind: LayerID(id).kind, node: layerNode)
            for (name, s) in members {
                let t = transform(origin: s.origin, x: s.x, z: s.z)
                let en = scene.addNode(Node(name: name, parent: layerNode, localTransform: t))
                let hx = Float(s.size.x / 2), hy = Float(s.category == "floor" ? s.size.y / 2 : s.size.y / 2)
                let lo: SIMD3<Float>, hi: SIMD3<Float>
                if s.category == "floor" {
                    lo = SIMD3(-hx, -hy, Float(s.zRange.lowerBound))
                    hi = SIMD3(hx, hy, Float(s.zRange.upperBound))
                } else {
                    lo = SIMD3(-hx, -hy, Float(s.zRange.lowerBound))
                    hi = SIMD3(hx, hy, Float(s.zRange.upperBound))
                }
                let b = box(lo, hi)
                let mesh = scene.addMesh(
                    Mesh(
                        name: name, positions: b.positions, normals: b.normals, indices: b.indices,
                        primitives: [Mesh.Primitive(indexStart: 0, indexCount: b.indices.count, material: material)]))
                scene.addNode(Node(name: name + "_geom", parent: en, mesh: mesh))
                layer.elements.append(elements.count)
                elements.append(
                    RoomElement(
                        identifier: name, category: ElementCategory(s.category), layer: LayerID(id), dimensions: s.size, transform: t,
                        parentIdentifier: s.parent, isOpen: s.category == "door" ? false : nil, geometry: .synthesized,
                        node: en, polygonCorners: s.corners))
            }
            layers.append(layer)
        }
        return LayeredScene(scene: scene, layers: layers, elements: elements, isRoomPlan: true)
    }
}
