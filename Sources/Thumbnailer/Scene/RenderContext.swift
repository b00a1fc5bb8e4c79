import SceneModel

/// Everything prepared once per `Thumbnailer` call and shared by its views: the flattened
/// scene, the room analysis and the view planner.
struct RenderContext {
    let layered: LayeredScene
    let scene: RenderScene
    let analysis: RoomAnalysis
    let planner: ViewPlanner
    /// The rooms of a home (nil for a single room or another model): its walls are cut low.
    let home: HomeLayout?
    /// A home's room of each instance (−1: none); empty for other scenes.
    let roomOfInstance: [Int]
    let options: ThumbnailOptions
    var warnings: [SceneWarning]

    /// - Parameter roomColours: test renders only: each room's floor drawn over in its colour
    ///   (linear RGB, by room index), see `Thumbnailer.roomVisibility`.
    ///   `sharing`: textures already decoded by another consumer of the scene.
    init(
        _ layered: LayeredScene, options: ThumbnailOptions, roomColours: [SIMD3<Float>] = [],
        sharing: consuming SharedTextureDecodes = SharedTextureDecodes(capacity: 0)
    ) throws {
        self.layered = layered
        self.options = options
        home = HomeLayout(layered)
        var source = Self.source(layered)
        Self.addFloorIfMissing(layered, to: &source)
        if let home {
            home.drawRoomFloors(layered, to: &source)
            WallCut.apply(home, elements: layered.elements, to: &source)
            if !roomColours.isEmpty { RoomMask.addFloors(home, colours: roomColours, to: &source) }
        }
        scene = RenderScene(
            source, textureBudget: options.textureMemoryBudget, maxTextureSize: options.maxWorkingTextureSize,
            sharing: consume sharing)
        warnings = scene.warnings
        guard scene.triangleCount > 0, !scene.bounds.isEmpty else {
            throw ThumbnailerError(code: .emptyScene, message: "the scene has no drawable triangles")
        }
        // A home's merged floor and its openings (passages, see `WallCut`) are neither drawn nor framed.
        let notDrawn = home.map { h in
            h.hiddenFloors.union(layered.elements.indices.filter { layered.elements[$0].category == .opening })
        }
        analysis = RoomAnalysis(layered: layered, scene: scene, excluding: notDrawn ?? [])
        var rooms: [Int] = []
        if let home {
            let added = source.roomOfAddedNode
            for inst in scene.instances {
                let e = Int(inst.element)
                rooms.append(e >= 0 ? (e < home.roomOfElement.count ? home.roomOfElement[e] ?? -1 : -1) : added[inst.node] ?? -1)
            }
        }
        roomOfInstance = rooms
        planner = ViewPlanner(analysis: analysis, elements: layered.elements, home: home)
    }

    /// Which nodes draw, their elements and (room-like scenes) the category colours.
    static func source(_ layered: LayeredScene) -> RenderScene.Source {
        let s = layered.scene
        let n = s.nodes.count
        var elementOfNode = [Int32](repeating: -1, count: n)
        var ownElement = [Int32](repeating: -1, count: n)
        for (i, e) in layered.elements.enumerated() where e.node.rawValue >= 0 && e.node.rawValue < n {
            ownElement[e.node.rawValue] = Int32(i)
        }
        var hiddenLayerNode = [Bool](repeating: false, count: n)
        for l in layered.layers where !l.defaultVisible && l.node.rawValue >= 0 && l.node.rawValue < n {
            hiddenLayerNode[l.node.rawValue] = true
        }
        var drawNode = [Bool](repeating: true, count: n)
        // Resolve ancestors iteratively with memoisation (cycles and deep chains are capped).
        var resolved = [Bool](repeating: false, count: n)
        for start in 0..<n where !resolved[start] {
            var chain: [Int] = []
            var cur = start
            var element: Int32 = -1
            var hidden = false
            while true {
                if resolved[cur] {
                    element = elementOfNode[cur]
                    hidden = !drawNode[cur]
                    break
                }
                chain.append(cur)
                if chain.count > 4096 { break }
                guard let p = s.nodes[cur].parent?.rawValue, p >= 0, p < n, !chain.contains(p) else { break }
                cur = p
            }
            for node in chain.reversed() {
                if ownElement[node] >= 0 { element = ownElement[node] }
                if hiddenLayerNode[node] { hidden = true }
                elementOfNode[node] = element
                drawNode[node] = !hidden
                resolved[node] = true
            }
        }
        let roomLike = layered.elements.contains { $0.category == .wall }
        let tints: [SIMD3<Float>?] = layered.elements.map { e in
            guard roomLike, let hex = CategoryPalette.surface(e.category) else { return nil }
            return ColorSpace.linear(hex: hex)
        }
        return RenderScene.Source(scene: s, elementOfNode: elementOfNode, drawNode: drawNode, tintOfElement: tints)
    }

    /// Rooms scanned without a floor (RoomPlan before iOS 17) get one for the 3D views: the wall
    /// outline at the walls' base, in the floor colour.
    static func addFloorIfMissing(_ layered: LayeredScene, to source: inout RenderScene.Source) {
        guard !layered.elements.contains(where: { $0.category == .floor }) else { return }
        let walls = layered.elements.enumerated().filter { $0.element.category == .wall }
            .compactMap { RoomAnalysis.shape(of: $0.element, index: $0.offset, scene: nil, instances: []) }
        guard !walls.isEmpty else { return }
        var floorY = Double.infinity
        for w in walls {
            for i in 0..<8 {
                floorY = min(
                    floorY,
                    w.point(
                        SIMD3(
                            i & 1 == 0 ? w.lo.x : w.hi.x, i & 2 == 0 ? w.lo.y : w.hi.y,
                            i & 4 == 0 ? w.lo.z : w.hi.z)
                    ).y)
            }
        }
        let outline = ElementShape.floorOutline(walls: walls)
        let triangles = PolygonTriangulator.triangulate(outline).triangles
        guard floorY.isFinite, !triangles.isEmpty else { return }
        var positions: [Float] = [], normals: [Float] = [], indices: [UInt32] = []
        for p in outline {
            positions += [Float(p.x), Float(floorY), Float(p.y)]
            normals += [0, 1, 0]
        }
        for (a, b, c) in triangles { indices += [UInt32(a), UInt32(c), UInt32(b)] }  // counter-clockwise from above
        let colour = ColorSpace.linear(hex: CategoryPalette.surface(.floor) ?? 0xD9CDBB)
        source.addDrawing(
            Material(name: "floor (outline of the walls)", baseColor: SIMD4(colour, 1)), name: "floor",
            positions: positions, normals: normals, indices: indices)
    }

    /// Instances hidden by the cutaway for an eye position.
    func hiddenInstances(eye: SIMD3<Double>) -> [Bool] {
        var hidden = [Bool](repeating: false, count: scene.instances.count)
        for e in planner.cutawayElements(eye: eye) where e < analysis.instancesOfElement.count {
            for i in analysis.instancesOfElement[e] { hidden[i] = true }
        }
        return hidden
    }

    /// Samples per pixel and axis for a view of `width × height`: the option, or by the view's
    /// size when it is 0 (`ThumbnailOptions.supersampling`).
    func supersampling(width: Int, height: Int) -> Int {
        if options.supersampling > 0 { return min(options.supersampling, 4) }
        return ThumbnailSize(width: width, height: height).isDense ? 2 : 3
    }

    /// Renders a perspective (or orthographic mesh) view of the scene with the room styling;
    /// `flat` draws every surface in its base colour, one sample per pixel, no edges (masks);
    /// `onlyRoom` draws a home's room alone (its elements, floor and wall caps); `storage`: an
    /// image buffer to draw into (`ViewRenderer.render`).
    func renderScene(
        camera: ThumbnailCamera, width: Int, height: Int, cutaway: Bool, cullBackFaces: Bool = true, flat: Bool = false,
        onlyRoom: Int? = nil, reusing storage: consuming [UInt8] = []
    )
        -> ViewRenderer.Output
    {
        let cam = RenderCamera(camera, width: width, height: height, origin: scene.origin, sceneRadius: analysis.radius)
        var settings = RenderSettings()
        settings.supersampling = supersampling(width: width, height: height)
        settings.occlusionFactor = ThumbnailSize(width: width, height: height).isDense ? 4 : 2
        settings.adaptive = options.adaptiveSupersampling
        settings.idEdges = analysis.roomLike
        settings.cullBackFaces = cullBackFaces
        if flat {
            settings.supersampling = 1
            settings.lit = false
            settings.ambientOcclusion = false
            settings.edges = false
            settings.idEdges = false
        }
        var hidden =
            cutaway ? hiddenInstances(eye: camera.position) : [Bool](repeating: false, count: scene.instances.count)
        if let onlyRoom, roomOfInstance.count == hidden.count {
            for i in hidden.indices where roomOfInstance[i] != onlyRoom { hidden[i] = true }
        }
        return ViewRenderer.render(
            scene: scene, camera: cam, hiddenInstance: hidden, settings: settings,
            sceneRadius: analysis.radius, reusing: storage)
    }

    /// Renders the plan view: a top view of the meshes (both faces drawn), or an oblique
    /// orthographic view when the top view shows almost nothing. (A room's plan thumbnail is the
    /// vector floor plan, drawn by the composer.) Returns the camera actually used.
    func renderPlan(
        camera: ThumbnailCamera, width: Int, height: Int
    ) -> (output: ViewRenderer.Output, camera: ThumbnailCamera) {
        let top = renderScene(camera: camera, width: width, height: height, cutaway: false, cullBackFaces: false)
        if top.covered * 500 >= width * height { return (top, camera) }
        let oblique = planner.obliquePlanCamera(width: width, height: height)
        return (
            renderScene(camera: oblique, width: width, height: height, cutaway: false, cullBackFaces: false),
            oblique
        )
    }
}

extension RenderScene.Source {
    /// Adds a mesh of one material on a root node of no element (drawn, never cut away).
    /// `room`: the home's room it belongs to, if any.
    mutating func addDrawing(
        _ material: Material, name: String, positions: [Float], normals: [Float], indices: [UInt32], room: Int? = nil
    ) {
        let m = scene.addMaterial(material)
        let mesh = scene.addMesh(
            Mesh(
                name: name, positions: positions, normals: normals, indices: indices,
                primitives: [Mesh.Primitive(indexStart: 0, indexCount: indices.count, material: m)]))
        let node = scene.addNode(Node(name: name, mesh: mesh))
        if let room { roomOfAddedNode[node.rawValue] = room }
        elementOfNode.append(-1)
        drawNode.append(true)
    }
}
