import Manifest
import SceneModel

/// A small hand-built RoomPlan-style room for the manifest tests: a 4 m × 3 m room with three
/// walls, a door hosted by the back wall, a floor with polygon corners, a table with two chairs
/// that point to it (the chairs share one mesh: instancing), two sections, metrics and a grade.
///
/// Scene nodes are created layer nodes first, then element nodes, then geometry nodes, so the
/// GLB writer's depth-first glTF node order (`glbNodeIndex`) differs from the scene's node order.
enum SampleRoom {
    static let wallBack = "6EA34F07-2B1C-4E52-9A0F-3C1D2E4F5A60"
    static let wallLeft = "C075CC7F-726D-4C6E-9DBD-0FA9BFFA6473"
    static let wallRight = "C6A664A9-0D3B-4F7A-8E21-5B9C7D1E2F30"
    static let door = "1F2E3D4C-5B6A-4798-8A7B-6C5D4E3F2A10"
    static let floor = "A0B1C2D3-E4F5-4A6B-8C7D-9E0F1A2B3C4D"
    static let table = "5D3777E0-B4CE-42DA-BD80-7111C9D182B4"
    static let chairA = "9BFA2EB8-7157-4262-AD3D-ADF7BF8F43B4"
    static let chairB = "2C4E6A8B-1D3F-4B5A-9C7E-8F0A2B4C6D8E"

    /// A unit quad in the local XY plane, centred on the origin (2 triangles).
    static let quad = Mesh(
        name: "quad", positions: [-0.5, -0.5, 0, 0.5, -0.5, 0, 0.5, 0.5, 0, -0.5, 0.5, 0], indices: [0, 1, 2, 0, 2, 3],
        primitives: [.init(indexStart: 0, indexCount: 6, material: nil)])

    /// A unit cube centred on the origin (12 triangles).
    static let box: Mesh = {
        var p: [Float] = []
        for i in 0..<8 { p += [i & 1 == 0 ? -0.5 : 0.5, i & 2 == 0 ? -0.5 : 0.5, i & 4 == 0 ? -0.5 : 0.5] }
        let faces: [UInt32] = [0, 2, 3, 0, 3, 1, 4, 5, 7, 4, 7, 6, 0, 1, 5, 0, 5, 4, 2, 6, 7, 2, 7, 3, 0, 4, 6, 0, 6, 2,
                               1, 3, 7, 1, 7, 5]
        return Mesh(name: "box", positions: p, indices: faces, primitives: [.init(indexStart: 0, indexCount: 36, material: nil)])
    }()

    /// Rotation of 90° about +Y followed by a translation, written out exactly.
    static func yaw90(_ x: Double, _ y: Double, _ z: Double) -> Matrix4 {
        Matrix4(columnMajor: [0, 0, -1, 0, 0, 1, 0, 0, 1, 0, 0, 0, x, y, z, 1])
    }

    static func yawMinus90(_ x: Double, _ y: Double, _ z: Double) -> Matrix4 {
        Matrix4(columnMajor: [0, 0, 1, 0, 0, 1, 0, 0, -1, 0, 0, 0, x, y, z, 1])
    }

    static func yaw180(_ x: Double, _ y: Double, _ z: Double) -> Matrix4 {
        Matrix4(columnMajor: [-1, 0, 0, 0, 0, 1, 0, 0, 0, 0, -1, 0, x, y, z, 1])
    }

    /// The floor's frame: local XY is the world XZ plane (rotation of −90° about X).
    static let floorFrame = Matrix4(columnMajor: [1, 0, 0, 0, 0, 0, -1, 0, 0, 1, 0, 0, 0, 0, 0, 1])

    struct ElementSpec {
        var element: RoomElement
        var mesh: MeshIndex?
        var meshScale: SIMD3<Double>
        var geometryName: String
    }

    static func layered() -> LayeredScene {
        var scene = Scene(metadata: SceneMetadata(sourceUpAxis: .y, sourceMetersPerUnit: 1, sourceFormat: "usdz"))
        let quadIndex = scene.addMesh(quad)
        let boxIndex = scene.addMesh(box)
        let layerSpecs: [(id: String, kind: String, category: String?)] = [
            ("walls", "walls", nil), ("doors", "doors", nil), ("floors", "floors", nil),
            ("objects.chair", "objects", "chair"), ("objects.table", "objects", "table"),
        ]
        let layerNodes = layerSpecs.map { scene.addNode(Node(name: NodeName.layer(LayerID($0.id)))) }
        let placeholder = NodeIndex(0)
        func wall(_ id: String, _ t: Matrix4, width: Double, confidence: String, prim: String) -> ElementSpec {
            ElementSpec(
                element: RoomElement(
                    identifier: id, category: ElementCategory("wall"), layer: LayerID("walls"), confidence: confidence,
                    dimensions: SIMD3(width, 2.5, 0), transform: t, story: 0, sourcePrimPath: prim, geometry: .usd,
                    node: placeholder),
                mesh: quadIndex, meshScale: SIMD3(width, 2.5, 1), geometryName: prim.split(separator: "/").last.map(String.init)!)
        }
        func chair(_ id: String, _ t: Matrix4, prim: String) -> ElementSpec {
            ElementSpec(
                element: RoomElement(
                    identifier: id, category: ElementCategory("chair"), layer: LayerID("objects.chair"), confidence: "high",
                    dimensions: SIMD3(0.5, 0.9, 0.5), transform: t, parentIdentifier: table, story: 0,
                    attributes: ["ChairType": "dining", "ChairArmType": "missing"], sourcePrimPath: prim,
                    geometry: .usd, node: placeholder),
                mesh: boxIndex, meshScale: SIMD3(0.5, 0.9, 0.5), geometryName: "Chair")
        }
        let specs: [[ElementSpec]] = [
            [
                wall(wallBack, .translation(0, 1.25, -1.5), width: 4, confidence: "high",
                     prim: "/Room/Parametric_grp/Arch_grp/Wall_0_grp/Wall0"),
                wall(wallLeft, yaw90(-2, 1.25, 0), width: 3, confidence: "high",
                     prim: "/Room/Parametric_grp/Arch_grp/Wall_1_grp/Wall1"),
                wall(wallRight, yawMinus90(2, 1.25, 0), width: 3, confidence: "medium",
                     prim: "/Room/Parametric_grp/Arch_grp/Wall_2_grp/Wall2"),
            ],
            [
                ElementSpec(
                    element: RoomElement(
                        identifier: door, category: ElementCategory("door"), layer: LayerID("doors"), confidence: "medium",
                        dimensions: SIMD3(0.9, 2, 0), transform: .translation(1, 1, -1.5), parentIdentifier: wallBack,
                        story: 0, isOpen: true, geometry: .synthesized, node: placeholder),
                    mesh: quadIndex, meshScale: SIMD3(0.9, 2, 1), geometryName: "synthesized"),
            ],
            [
                ElementSpec(
                    element: RoomElement(
                        identifier: floor, category: ElementCategory("floor"), layer: LayerID("floors"), confidence: "high",
                        dimensions: SIMD3(4, 3, 0), transform: floorFrame, story: 0,
                        sourcePrimPath: "/Room/Parametric_grp/Floor_grp/Floor0", geometry: .usd, node: placeholder,
                        polygonCorners: [SIMD3(-2, -1.5, 0), SIMD3(2, -1.5, 0), SIMD3(2, 1.5, 0), SIMD3(-2, 1.5, 0)]),
                    mesh: quadIndex, meshScale: SIMD3(4, 3, 1), geometryName: "Floor0"),
            ],
            [
                chair(chairA, yaw180(-0.4, 0.45, 0.9), prim: "/Room/Parametric_grp/Object_grp/Chair0"),
                chair(chairB, yaw180(0.4, 0.45, 0.9), prim: "/Room/Parametric_grp/Object_grp/Chair1"),
            ],
            [
                ElementSpec(
                    element: RoomElement(
                        identifier: table, category: ElementCategory("table"), layer: LayerID("objects.table"), confidence: "high",
                        dimensions: SIMD3(1.2, 0.75, 0.8), transform: .translation(0, 0.375, 0.2), story: 0,
                        attributes: ["TableType": "rectangular"],
                        sourcePrimPath: "/Room/Parametric_grp/Object_grp/Table0", geometry: .usd, node: placeholder),
                    mesh: boxIndex, meshScale: SIMD3(1.2, 0.75, 0.8), geometryName: "Table"),
            ],
        ]
        var elements: [RoomElement] = []
        var layers: [RoomLayer] = []
        var geometryJobs: [(parent: NodeIndex, spec: ElementSpec)] = []
        for (li, layerSpec) in layerSpecs.enumerated() {
            var indices: [Int] = []
            for spec in specs[li] {
                var e = spec.element
                e.node = scene.addNode(Node(
                    name: e.identifier, parent: layerNodes[li], localTransform: e.transform,
                    sourcePath: e.sourcePrimPath ?? ""))
                indices.append(elements.count)
                elements.append(e)
                geometryJobs.append((e.node, spec))
            }
            layers.append(RoomLayer(
                id: LayerID(layerSpec.id), kind: LayerKind(layerSpec.kind), category: layerSpec.category.map { ElementCategory($0) },
                node: layerNodes[li],
                elements: indices))
        }
        for job in geometryJobs {
            let s = job.spec.meshScale
            scene.addNode(Node(
                name: job.spec.geometryName, parent: job.parent, localTransform: .scale(s.x, s.y, s.z), mesh: job.spec.mesh))
        }
        return LayeredScene(
            scene: scene, layers: layers, elements: elements,
            sections: [
                RoomSection(label: "livingRoom", center: SIMD3(-0.8, 0, 0.4), story: 0),
                RoomSection(label: "diningRoom", center: SIMD3(0.6, 0, 0.5), story: 0),
            ],
            metrics: RoomMetrics(
                floorArea: 12, floorAreaSource: "floor", perimeter: 14, wallCount: 3, wallLength: 10,
                ceilingHeight: 2.5,
                countsPerLayer: [LayerID("walls"): 3, LayerID("doors"): 1, LayerID("floors"): 1, LayerID("objects.chair"): 2, LayerID("objects.table"): 1],
                countsPerStory: [0: 8]),
            quality: QualityGrade(
                grade: "B", highConfidenceWallShare: 2.0 / 3.0, wallConfidenceGrade: "B", furnitureCount: 3,
                furnitureGrade: "A", wallsClosed: true, closureGrade: "A",
                notes: ["2 of 3 walls have high confidence"]),
            isRoomPlan: true)
    }

    /// glTF node indices as a writer that emits nodes depth-first from the roots would assign them.
    static func depthFirstNodeIndex(_ scene: Scene) -> [NodeIndex: Int] {
        let children = scene.childrenByNode()
        var out: [NodeIndex: Int] = [:]
        func visit(_ n: NodeIndex) {
            out[n] = out.count
            children[n.rawValue].forEach(visit)
        }
        scene.roots.forEach(visit)
        return out
    }

    static let usdSHA = "3a7bd3e2360a3d29eea436fcfb7e44c735d117c42d1c1835420b6b9942dd4f1b"
    static let jsonSHA = "2CF24DBA5FB0A30E26E83B2AC5B9E29E1B161E5C1FA7425E73043362938B9824"
    static let glbSHA = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
    static let redactedSHA = "fcde2b2edba56bf408601fb721fe9b5c338d10ee429ea04fae5511b68fbf8fb9"

    /// The complete input of the golden manifest.
    static func input() -> ManifestInput {
        let layered = layered()
        return ManifestInput(
            layered: layered, generator: "crowdroom-transcode-worker", generatorVersion: "0.1.0",
            versionId: "9b0c6f3e-1d2a-4c5b-8e7f-0a1b2c3d4e5f", roomId: "4f1c2d3e-5a6b-4c7d-8e9f-a0b1c2d3e4f5",
            inputs: [
                InputFile(role: "roomplan_json", name: "roomplan.json", format: "json", bytes: 18_342, sha256: jsonSHA),
                InputFile(role: "usd", name: "source.usdz", format: "usdz", bytes: 1_204_736, sha256: usdSHA),
            ],
            glb: Artifact(path: "model.glb", bytes: 48_213, sha256: glbSHA),
            glbNodeIndex: depthFirstNodeIndex(layered.scene),
            thumbnails: [
                Thumbnail(
                    kind: "plan", path: "thumbs/plan.webp", width: 512, height: 512, bytes: 9_120,
                    camera: Camera(position: SIMD3(0, 10, 0), target: SIMD3(0, 0, 0), up: SIMD3(0, 0, -1), orthoHalfExtent: 2.2)),
                Thumbnail(
                    kind: "hero", path: "thumbs/hero.webp", width: 1024, height: 768, bytes: 41_877,
                    camera: Camera(position: SIMD3(3.2, 1.6, 3.6), target: SIMD3(0, 1, 0), fovDegrees: 50)),
            ],
            redactions: [
                TextureSubstitution(texturePath: "0/texture_3.png", replacementName: "redacted-0.png", replacementSHA256: redactedSHA,
                                    regions: 2),
            ],
            stats: Stats(meshes: 2, triangles: 46, vertices: 12, materials: 2, textures: 1, glbBytes: 48_213),
            warnings: [
                SceneWarning(code: "USDZ_DEFLATED_ENTRY", message: "entry \"0/texture_3.png\" is deflated; read through zlib"),
                SceneWarning(
                    code: "LAYERING_SYNTHESIZED", message: "door has no USD element; geometry synthesized (0.9 × 2 m)",
                    primPath: "/Room/Parametric_grp/Arch_grp/Wall_0_grp"),
            ],
            plan: PlanRecord(
                files: [
                    PlanRecord.File(path: "plan.svg", mediaType: "image/svg+xml", bytes: 14_197, sha256: glbSHA),
                    PlanRecord.File(path: "plan.pdf", mediaType: "application/pdf", bytes: 17_671, sha256: jsonSHA),
                    PlanRecord.File(path: "plan.dxf", mediaType: "image/vnd.dxf", bytes: 23_295, sha256: usdSHA),
                ],
                units: "metric", locale: "en", wallThickness: 0.1, sheets: 1, note: nil,
                rooms: [
                    {
                        var r = RoomFigures(
                            label: "livingRoom", name: "Living room", story: 0, area: 6, perimeter: 10,
                            center: SIMD3(-0.8, 0, 0.4), polygonSource: "floor+split",
                            elements: ["6EA34F07-2B1C-4E52-9A0F-3C1D2E4F5A60"],
                            polygon: [SIMD2(-2, -1.5), SIMD2(0, -1.5), SIMD2(0, 1.5), SIMD2(-2, 1.5)])
                        r.wallLengths = ["6EA34F07-2B1C-4E52-9A0F-3C1D2E4F5A60": 4]
                        return r
                    }(),
                    RoomFigures(
                        label: "diningRoom", name: "Dining room", story: 0, area: 6, perimeter: 10, center: SIMD3(0.6, 0, 0.5),
                        polygonSource: "floor+split", elements: [],
                        polygon: [SIMD2(0, -1.5), SIMD2(2, -1.5), SIMD2(2, 1.5), SIMD2(0, 1.5)]),
                ]))
    }
}
