import SceneModel
import JSONCore

/// Where a written glTF mesh comes from.
enum MeshSource {
    /// A scene mesh, written once however many nodes draw it.
    case scene(MeshIndex)
    /// A copy with a node's non-decomposable transform baked in, drawn by that node only.
    case baked(Mesh, node: NodeIndex)
}

/// One glTF node to write.
struct PlannedNode {
    var source: NodeIndex
    var name: String?
    /// glTF indices of the children, in scene order.
    var children: [Int] = []
    /// Column-major matrix; nil for identity.
    var matrix: Matrix4?
    /// glTF mesh index.
    var mesh: Int?
    var extras: JSONValue?
}

/// The node forest to write and the meshes it draws, in glTF index order.
struct NodePlan {
    var nodes: [PlannedNode] = []
    /// glTF indices of the scene's root nodes (the layer nodes, in layer order).
    var roots: [Int] = []
    var nodeIndex: [NodeIndex: Int] = [:]
    var meshes: [MeshSource] = []
    /// Per planned mesh: the largest factor by which a node drawing it stretches lengths from the
    /// mesh's units to the scene's (`PositionGrid.stretch` of each written matrix, multiplied down
    /// the tree), which sets the grid its positions are put on.
    var meshStretch: [Double] = []
    var warnings: [SceneWarning] = []
}

/// Turns the layered scene's node tree into the glTF node forest.
///
/// - Roots are the layer nodes, in `layers` order; nodes outside every layer's subtree are not
///   written (`GLB_NODES_OUTSIDE_LAYERS`).
/// - Nodes are numbered in depth-first pre-order; children keep the scene's array order.
/// - Names follow `NodeName` (`LayeredScene.nodeNames(others:)`): `layer_<id>` for layer nodes,
///   the identifier for element nodes, the scene name for the others, all loader-safe and unique.
/// - Layer and element nodes are always written (they carry the semantics the editor shows, even
///   without geometry). Any other node is written only when it draws a non-empty mesh or has a
///   written child; empty helper nodes are dropped.
/// - A mesh without triangles is not written; its node keeps no mesh.
/// - Transforms follow `TransformRule`; a node whose transform is not decomposable is written
///   without a transform, its mesh is baked with that transform into a dedicated copy, and the
///   transform is carried down into its children's transforms (`GLB_TRANSFORM_BAKED`).
struct NodeTreePlanner {
    let layered: LayeredScene

    func plan() throws -> NodePlan {
        let scene = layered.scene
        let nodeCount = scene.nodes.count
        let (layerOf, elementOf) = try roles()

        let children = scene.childrenByNode()
        let drawsMesh: [Bool] = scene.nodes.map { node in
            guard let m = node.mesh else { return false }
            return MeshPreparer.hasTriangles(scene.meshes[m.rawValue])
        }

        // Pre-order of the layer subtrees, then keep flags bottom-up (children follow parents).
        let (order, visited) = preOrder(children: children)
        var keep = [Bool](repeating: false, count: nodeCount)
        for n in order.reversed() {
            keep[n] =
                layerOf[n] != nil || elementOf[n] != nil || drawsMesh[n] || children[n].contains { keep[$0.rawValue] }
        }
        for element in layered.elements where !visited[element.node.rawValue] {
            throw GLBWriterError.invalidScene(
                "element \(element.identifier) node \(element.node.rawValue) is not below any layer node")
        }

        var plan = NodePlan()
        let outside = (0..<nodeCount).filter { !visited[$0] && scene.nodes[$0].parent == nil }
        if !outside.isEmpty {
            plan.warnings.append(
                SceneWarning(
                    code: "GLB_NODES_OUTSIDE_LAYERS",
                    message: "\(outside.count) root node(s) are not layer nodes and were not written",
                    primPath: scene.nodes[outside[0]].sourcePath.isEmpty ? nil : scene.nodes[outside[0]].sourcePath))
        }

        let helpers = order.filter { keep[$0] && layerOf[$0] == nil && elementOf[$0] == nil }.map { NodeIndex($0) }
        let names = layered.nodeNames(others: helpers)
        var sharedMesh: [Int: Int] = [:]
        // (scene node, glTF parent, transform carried down from a baked ancestor, the parent's stretch)
        var work: [(node: Int, parent: Int?, carried: Matrix4?, stretch: Double)] = layered.layers.reversed().map {
            ($0.node.rawValue, nil, nil, 1)
        }
        while let item = work.popLast() {
            let n = item.node
            let node = scene.nodes[n]
            let index = plan.nodes.count
            var out = PlannedNode(source: NodeIndex(n), name: names[NodeIndex(n)])
            if let l = layerOf[n] {
                out.extras = NodeExtras.layer(layered.layers[l])
            } else if let e = elementOf[n] {
                out.extras = NodeExtras.element(layered.elements[e])
            }
            let effective = item.carried.map { $0 * node.localTransform } ?? node.localTransform
            var carryDown: Matrix4?
            switch TransformRule.decide(effective) {
            case .identity: break
            case .matrix(let m): out.matrix = m
            case .bake:
                carryDown = effective
                plan.warnings.append(
                    SceneWarning(
                        code: "GLB_TRANSFORM_BAKED",
                        message: "node \(out.name ?? String(n)) has a transform with shear or projection; "
                            + "written as identity with the transform baked into its geometry",
                        primPath: node.sourcePath.isEmpty ? nil : node.sourcePath))
            }
            let stretch = item.stretch * PositionGrid.stretch(out.matrix)
            if drawsMesh[n], let m = node.mesh {
                out.mesh = planMesh(m, of: n, baking: carryDown, stretch: stretch, in: &plan, shared: &sharedMesh)
            }
            plan.nodes.append(out)
            plan.nodeIndex[NodeIndex(n)] = index
            if let p = item.parent { plan.nodes[p].children.append(index) } else { plan.roots.append(index) }
            for child in children[n].reversed() where keep[child.rawValue] {
                work.append((child.rawValue, index, carryDown, stretch))
            }
        }
        return plan
    }

    /// The layer subtrees' nodes in depth-first pre-order (children in array order), and which
    /// nodes that visits.
    private func preOrder(children: [[NodeIndex]]) -> (order: [Int], visited: [Bool]) {
        let nodeCount = layered.scene.nodes.count
        var order: [Int] = []
        order.reserveCapacity(nodeCount)
        var visited = [Bool](repeating: false, count: nodeCount)
        var stack = layered.layers.map(\.node.rawValue).reversed() as [Int]
        while let n = stack.popLast() {
            guard !visited[n] else { continue }
            visited[n] = true
            order.append(n)
            stack.append(contentsOf: children[n].map(\.rawValue).reversed())
        }
        return (order, visited)
    }

    /// The written mesh of node `n`, which draws scene mesh `m`: a copy baked with `bake` when
    /// given, else the scene mesh, written once for every node that draws it (with the largest
    /// of their stretches).
    private func planMesh(
        _ m: MeshIndex, of n: Int, baking bake: Matrix4?, stretch: Double, in plan: inout NodePlan,
        shared sharedMesh: inout [Int: Int]
    ) -> Int {
        if let bake {
            let (baked, repaired) = MeshBaker.bake(layered.scene.meshes[m.rawValue], transform: bake)
            if repaired > 0 {
                plan.warnings.append(
                    SceneWarning(
                        code: "GLB_VERTEX_DATA_REPAIRED",
                        message:
                            "\(repaired) baked position(s) of mesh \(baked.name) were not finite; set to 0",
                        primPath: baked.sourcePath.isEmpty ? nil : baked.sourcePath))
            }
            plan.meshes.append(.baked(baked, node: NodeIndex(n)))
            plan.meshStretch.append(stretch)
            return plan.meshes.count - 1
        } else if let existing = sharedMesh[m.rawValue] {
            plan.meshStretch[existing] = max(plan.meshStretch[existing], stretch)
            return existing
        } else {
            sharedMesh[m.rawValue] = plan.meshes.count
            plan.meshes.append(.scene(m))
            plan.meshStretch.append(stretch)
            return plan.meshes.count - 1
        }
    }

    /// For each scene node, the layer (`layerOf`) or element (`elementOf`) it is the node of.
    /// Throws when a layer node is out of range, not a root or shared, or an element node is out
    /// of range or shared.
    private func roles() throws -> (layerOf: [Int?], elementOf: [Int?]) {
        let nodeCount = layered.scene.nodes.count
        var layerOf = [Int?](repeating: nil, count: nodeCount)
        var elementOf = [Int?](repeating: nil, count: nodeCount)
        for (i, layer) in layered.layers.enumerated() {
            let n = layer.node.rawValue
            guard n >= 0, n < nodeCount else {
                throw GLBWriterError.invalidScene("layer \(layer.id) node \(n) is out of range")
            }
            guard layered.scene.nodes[n].parent == nil else {
                throw GLBWriterError.invalidScene("layer \(layer.id) node \(n) is not a root node")
            }
            guard layerOf[n] == nil else {
                throw GLBWriterError.invalidScene("layer \(layer.id) shares node \(n) with another layer")
            }
            layerOf[n] = i
        }
        for (j, element) in layered.elements.enumerated() {
            let n = element.node.rawValue
            guard n >= 0, n < nodeCount else {
                throw GLBWriterError.invalidScene("element \(element.identifier) node \(n) is out of range")
            }
            guard layerOf[n] == nil, elementOf[n] == nil else {
                throw GLBWriterError.invalidScene("element \(element.identifier) shares node \(n)")
            }
            elementOf[n] = j
        }
        return (layerOf, elementOf)
    }
}
