import SceneModel

/// An element ready to be placed: its semantics and where its geometry comes from.
struct PlannedElement {
    enum Geometry {
        /// A subtree of the source scene (or only its root node).
        case usd(root: Int, includeDescendants: Bool)
        /// A mesh in the element's local frame, drawn with the category's shared material.
        case synthesized(Mesh, materialCategory: ElementCategory)
        case none
    }

    /// `node` is filled in by the assembler.
    var element: RoomElement
    var geometry: Geometry
}

/// Builds the output scene following the node layout contract of `LayeredScene`:
/// roots are layer nodes named `NodeName.layer(id)` (`layer_walls`) (identity transform) in `RoomLayer.canonicalOrder` then id; below
/// each, one node per element named by its identifier, sorted by identifier, whose local transform
/// is the element's world transform; below that, the element's geometry: USD nodes copied with the
/// root's transform made relative to the element (`inverse(elementWorld) × geometryWorld`) and
/// descendants keeping theirs, or the synthesized mesh on the element node itself. Only meshes,
/// materials and textures that are used are carried over, re-indexed in first-use order.
struct LayeredSceneAssembler {
    private let source: SourceSceneIndex?
    private var scene: Scene
    private var meshMap: [Int: MeshIndex] = [:]
    private var materialMap: [Int: MaterialIndex] = [:]
    private var textureMap: [Int: TextureIndex] = [:]
    private var sharedMaterials: [ElementCategory: MaterialIndex] = [:]

    private init(source: SourceSceneIndex?, metadata: SceneMetadata, warnings: [SceneWarning]) {
        self.source = source
        self.scene = Scene(metadata: metadata, warnings: warnings)
    }

    static func layerOrder(_ a: LayerID, _ b: LayerID) -> Bool {
        (a.kind.displayRank, a.rawValue) < (b.kind.displayRank, b.rawValue)
    }

    static func assemble(
        _ planned: [PlannedElement], source: SourceSceneIndex?, metadata: SceneMetadata, sceneWarnings: [SceneWarning]
    ) -> (scene: Scene, layers: [RoomLayer], elements: [RoomElement]) {
        var a = LayeredSceneAssembler(source: source, metadata: metadata, warnings: sceneWarnings)
        var byLayer: [LayerID: [Int]] = [:]
        for (i, p) in planned.enumerated() { byLayer[p.element.layer, default: []].append(i) }
        let layerIDs = byLayer.keys.sorted(by: layerOrder)
        var layers: [RoomLayer] = []
        var elements: [RoomElement] = []
        for id in layerIDs {
            let layerNode = a.scene.addNode(Node(name: NodeName.layer(id), sourcePath: "", kind: "group"))
            var layer = RoomLayer(id: id, kind: id.kind, category: id.objectCategory, node: layerNode)
            let members = byLayer[id]!.sorted {
                (planned[$0].element.identifier, $0) < (planned[$1].element.identifier, $1)
            }
            for i in members {
                var e = planned[i].element
                e.node = a.place(e, geometry: planned[i].geometry, under: layerNode)
                layer.elements.append(elements.count)
                elements.append(e)
            }
            layers.append(layer)
        }
        return (a.scene, layers, elements)
    }

    private mutating func place(_ e: RoomElement, geometry: PlannedElement.Geometry, under layer: NodeIndex) -> NodeIndex {
        // The element node is new (no prim): its source path stays empty, the prim path is in the
        // element and on the copied geometry nodes.
        let node = scene.addNode(Node(name: e.identifier, parent: layer, localTransform: e.transform, kind: "component"))
        switch geometry {
        case .none: break
        case .synthesized(let mesh, let category):
            var m = mesh
            let material = sharedMaterial(category)
            m.primitives = m.primitives.map { Mesh.Primitive(indexStart: $0.indexStart, indexCount: $0.indexCount, material: material) }
            scene.nodes[node.rawValue].mesh = scene.addMesh(m)
        case .usd(let root, let includeDescendants):
            guard let src = source else { break }
            let inverse = e.transform.inverse ?? .identity
            var stack: [(src: Int, parent: NodeIndex, isRoot: Bool)] = [(root, node, true)]
            while let (s, parent, isRoot) = stack.popLast() {
                let original = src.node(s)
                var copy = original
                copy.parent = parent
                copy.localTransform = isRoot ? inverse * src.world[s] : original.localTransform
                if copy.localTransform.m.count != 16 || !copy.localTransform.isFinite { copy.localTransform = .identity }
                copy.mesh = src.mesh(of: s).map { copyMesh($0, from: src.scene) }
                let ni = scene.addNode(copy)
                if includeDescendants || !isRoot {
                    for c in src.children[s].reversed() { stack.append((c, ni, false)) }
                }
            }
        }
        return node
    }

    private mutating func sharedMaterial(_ category: ElementCategory) -> MaterialIndex {
        if let m = sharedMaterials[category] { return m }
        let m = scene.addMaterial(GeometrySynthesizer.material(for: category))
        sharedMaterials[category] = m
        return m
    }

    private mutating func copyMesh(_ i: Int, from s: Scene) -> MeshIndex {
        if let m = meshMap[i] { return m }
        var mesh = s.meshes[i]
        mesh.primitives = mesh.primitives.map {
            Mesh.Primitive(indexStart: $0.indexStart, indexCount: $0.indexCount,
                           material: $0.material.flatMap { copyMaterial($0.rawValue, from: s) })
        }
        let m = scene.addMesh(mesh)
        meshMap[i] = m
        return m
    }

    private mutating func copyMaterial(_ i: Int, from s: Scene) -> MaterialIndex? {
        guard i >= 0, i < s.materials.count else { return nil }
        if let m = materialMap[i] { return m }
        var mat = s.materials[i]
        mat.baseColorTexture = mat.baseColorTexture.flatMap { remap($0, from: s) }
        mat.metallicRoughnessTexture = mat.metallicRoughnessTexture.flatMap { remap($0, from: s) }
        mat.emissiveTexture = mat.emissiveTexture.flatMap { remap($0, from: s) }
        mat.normalTexture = mat.normalTexture.flatMap { remap($0, from: s) }
        mat.occlusionTexture = mat.occlusionTexture.flatMap { remap($0, from: s) }
        let m = scene.addMaterial(mat)
        materialMap[i] = m
        return m
    }

    private mutating func remap(_ ref: TextureRef, from s: Scene) -> TextureRef? {
        let i = ref.texture.rawValue
        guard i >= 0, i < s.textures.count else { return nil }
        var out = ref
        if let t = textureMap[i] {
            out.texture = t
        } else {
            let t = scene.addTexture(s.textures[i])
            textureMap[i] = t
            out.texture = t
        }
        return out
    }
}
