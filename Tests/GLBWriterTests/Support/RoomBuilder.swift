import SceneModel

/// Builds `LayeredScene`s by hand, following the node layout contract: layer root nodes named
/// `NodeName.layer(id)`, element nodes below them named by identifier with the element's transform.
struct RoomBuilder {
    var scene = Scene()
    var layers: [RoomLayer] = []
    var elements: [RoomElement] = []

    /// Adds a layer (root node) and returns its position in `layers`.
    @discardableResult
    mutating func addLayer(_ id: LayerID, kind: LayerKind? = nil, category: ElementCategory? = nil) -> Int {
        let node = scene.addNode(Node(name: NodeName.layer(id)))
        layers.append(RoomLayer(id: id, kind: kind ?? id.kind, category: category, node: node))
        return layers.count - 1
    }

    /// Adds an element node under layer `layer`, optionally drawing `mesh`.
    @discardableResult
    mutating func addElement(
        _ identifier: String, layer: Int, category: ElementCategory, transform: Matrix4 = .identity, mesh: MeshIndex? = nil,
        confidence: String? = "high", dimensions: SIMD3<Double>? = nil, attributes: [String: String] = [:],
        isOpen: Bool? = nil, parent: String? = nil, story: Int? = nil, geometry: GeometrySource = .usd,
        sourcePrimPath: String? = nil
    ) -> NodeIndex {
        let node = scene.addNode(
            Node(
                name: identifier, parent: layers[layer].node, localTransform: transform, mesh: mesh))
        elements.append(
            RoomElement(
                identifier: identifier, category: category, layer: layers[layer].id, confidence: confidence,
                dimensions: dimensions, transform: transform, parentIdentifier: parent, story: story,
                attributes: attributes,
                isOpen: isOpen, sourcePrimPath: sourcePrimPath, geometry: geometry, node: node))
        layers[layer].elements.append(elements.count - 1)
        return node
    }

    /// Adds a plain node below `parent`.
    @discardableResult
    mutating func addChild(_ name: String, of parent: NodeIndex, transform: Matrix4 = .identity, mesh: MeshIndex? = nil)
        -> NodeIndex
    {
        scene.addNode(Node(name: name, parent: parent, localTransform: transform, mesh: mesh))
    }

    var layered: LayeredScene { LayeredScene(scene: scene, layers: layers, elements: elements, isRoomPlan: true) }
}

/// Meshes for the tests.
enum Meshes {
    /// One triangle in the XY plane, (0,0,0) (1,0,0) (0,1,0), optionally with +Z normals.
    static func triangle(normals: Bool = true, material: MaterialIndex? = nil) -> Mesh {
        Mesh(
            name: "triangle", positions: [0, 0, 0, 1, 0, 0, 0, 1, 0],
            normals: normals ? [0, 0, 1, 0, 0, 1, 0, 0, 1] : [],
            indices: [0, 1, 2], primitives: [.init(indexStart: 0, indexCount: 3, material: material)])
    }

    /// A unit quad in XY with UVs, two triangles.
    static func quad(material: MaterialIndex? = nil, colors: [Float] = []) -> Mesh {
        Mesh(
            name: "quad", positions: [0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0],
            normals: [0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1],
            uv0: [0, 1, 1, 1, 1, 0, 0, 0], colors: colors, indices: [0, 1, 2, 0, 2, 3],
            primitives: [.init(indexStart: 0, indexCount: 6, material: material)])
    }

    /// A unit cube centred at the origin with 8 shared vertices and no normals (12 triangles,
    /// counter-clockwise seen from outside). Vertex i has coordinates ±0.5 from bits x=1, y=2, z=4.
    static func cube8(material: MaterialIndex? = nil) -> Mesh {
        var positions: [Float] = []
        for i in 0..<8 {
            positions += [i & 1 == 0 ? -0.5 : 0.5, i & 2 == 0 ? -0.5 : 0.5, i & 4 == 0 ? -0.5 : 0.5]
        }
        let indices: [UInt32] = [
            1, 3, 7, 1, 7, 5,  // +X
            0, 4, 6, 0, 6, 2,  // -X
            2, 6, 7, 2, 7, 3,  // +Y
            0, 1, 5, 0, 5, 4,  // -Y
            4, 5, 7, 4, 7, 6,  // +Z
            0, 2, 3, 0, 3, 1,  // -Z
        ]
        return Mesh(
            name: "cube", positions: positions, indices: indices,
            primitives: [.init(indexStart: 0, indexCount: indices.count, material: material)])
    }

    /// A UV sphere of radius 1 with shared vertices (single pole vertices, no seam), no normals.
    static func sphere(rings: Int = 12, segments: Int = 24) -> Mesh {
        var positions: [Float] = [0, 1, 0]
        for r in 1..<rings {
            let theta = Double.pi * Double(r) / Double(rings)
            for s in 0..<segments {
                let phi = 2 * Double.pi * Double(s) / Double(segments)
                positions += [Float(sin(theta) * cos(phi)), Float(cos(theta)), Float(sin(theta) * sin(phi))]
            }
        }
        positions += [0, -1, 0]
        let south = UInt32(positions.count / 3 - 1)
        func ring(_ r: Int, _ s: Int) -> UInt32 { UInt32(1 + (r - 1) * segments + (s % segments)) }
        var indices: [UInt32] = []
        for s in 0..<segments {
            indices += [0, ring(1, s), ring(1, s + 1)]
            indices += [south, ring(rings - 1, s + 1), ring(rings - 1, s)]
            for r in 1..<(rings - 1) {
                indices += [ring(r, s), ring(r + 1, s), ring(r + 1, s + 1)]
                indices += [ring(r, s), ring(r + 1, s + 1), ring(r, s + 1)]
            }
        }
        // Orient every triangle outward (its normal agrees with its centroid direction).
        for t in stride(from: 0, to: indices.count, by: 3) {
            func p(_ i: UInt32) -> SIMD3<Float> {
                SIMD3(positions[Int(i) * 3], positions[Int(i) * 3 + 1], positions[Int(i) * 3 + 2])
            }
            let a = p(indices[t])
            let b = p(indices[t + 1])
            let c = p(indices[t + 2])
            let e1 = b - a
            let e2 = c - a
            let n = SIMD3(e1.y * e2.z - e1.z * e2.y, e1.z * e2.x - e1.x * e2.z, e1.x * e2.y - e1.y * e2.x)
            if (n * (a + b + c)).sum() < 0 { indices.swapAt(t + 1, t + 2) }
        }
        return Mesh(
            name: "sphere", positions: positions, indices: indices,
            primitives: [.init(indexStart: 0, indexCount: indices.count, material: nil)])
    }

    /// A grid of `n`×`n` quads (so (n+1)² vertices) in XZ, with +Y normals.
    static func grid(_ n: Int) -> Mesh {
        var positions: [Float] = []
        var normals: [Float] = []
        var indices: [UInt32] = []
        positions.reserveCapacity((n + 1) * (n + 1) * 3)
        for z in 0...n {
            for x in 0...n {
                positions += [Float(x), 0, Float(z)]
                normals += [0, 1, 0]
            }
        }
        for z in 0..<n {
            for x in 0..<n {
                let a = UInt32(z * (n + 1) + x)
                let b = a + 1
                let c = a + UInt32(n + 1)
                let d = c + 1
                indices += [a, c, d, a, d, b]
            }
        }
        return Mesh(
            name: "grid", positions: positions, normals: normals, indices: indices,
            primitives: [.init(indexStart: 0, indexCount: indices.count, material: nil)])
    }
}

/// Tiny valid image files.
enum Images {
    /// A 2×2 RGBA PNG.
    static let png: [UInt8] = [
        0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00,
        0x00, 0x02, 0x00, 0x00, 0x00, 0x02, 0x08, 0x06, 0x00, 0x00, 0x00, 0x72, 0xB6, 0x0D, 0x24, 0x00, 0x00, 0x00,
        0x11, 0x49, 0x44, 0x41, 0x54, 0x78, 0xDA, 0x63, 0x38, 0x51, 0xA1, 0xF1, 0x1F, 0x84, 0x19, 0x60, 0x0C, 0x00,
        0x55, 0xE4, 0x09, 0x9D, 0x58, 0x11, 0xE5, 0x51, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42,
        0x60, 0x82,
    ]
    /// A 2×2 grey baseline JPEG.
    static let jpeg: [UInt8] = [
        0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01,
        0x00, 0x00, 0xFF, 0xDB, 0x00, 0x43, 0x00, 0x10, 0x0B, 0x0C, 0x0E, 0x0C, 0x0A, 0x10, 0x0E, 0x0D, 0x0E, 0x12,
        0x11, 0x10, 0x13, 0x18, 0x28, 0x1A, 0x18, 0x16, 0x16, 0x18, 0x31, 0x23, 0x25, 0x1D, 0x28, 0x3A, 0x33, 0x3D,
        0x3C, 0x39, 0x33, 0x38, 0x37, 0x40, 0x48, 0x5C, 0x4E, 0x40, 0x44, 0x57, 0x45, 0x37, 0x38, 0x50, 0x6D, 0x51,
        0x57, 0x5F, 0x62, 0x67, 0x68, 0x67, 0x3E, 0x4D, 0x71, 0x79, 0x70, 0x64, 0x78, 0x5C, 0x65, 0x67, 0x63, 0xFF,
        0xC0, 0x00, 0x0B, 0x08, 0x00, 0x02, 0x00, 0x02, 0x01, 0x01, 0x11, 0x00, 0xFF, 0xC4, 0x00, 0x14, 0x00, 0x01,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xFF, 0xC4,
        0x00, 0x14, 0x10, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0xFF, 0xDA, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x3F, 0x00, 0x37, 0xFF, 0xD9,
    ]
    /// A RIFF/WEBP header: not embeddable in core glTF.
    static let webp: [UInt8] =
        Array("RIFF".utf8) + [0x1A, 0, 0, 0] + Array("WEBPVP8L".utf8) + [0x0D, 0, 0, 0, 0x2F, 0, 0, 0]
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
