import SceneModel

/// World-space bounds and triangle counts of node subtrees, for the layer and element entries.
///
/// A node's box is its mesh's local axis-aligned box transformed by the node's world matrix (the
/// box of the eight transformed corners), the same rule as `Bounds.of(scene:)` and three.js
/// `Box3.setFromObject`. A subtree's box is the union over its nodes; its triangle count sums the
/// mesh of every node, so a mesh drawn by two nodes counts twice (instancing).
struct SubtreeGeometry {
    private let children: [[NodeIndex]]
    private let nodeBounds: [Bounds]
    private let nodeTriangles: [Int]

    init(scene: Scene) {
        let world = scene.worldTransforms()
        var meshBounds = [Bounds?](repeating: nil, count: scene.meshes.count)
        var bounds = [Bounds](repeating: .empty, count: scene.nodes.count)
        var triangles = [Int](repeating: 0, count: scene.nodes.count)
        for (i, node) in scene.nodes.enumerated() {
            guard let mi = node.mesh?.rawValue, mi >= 0, mi < scene.meshes.count else { continue }
            if meshBounds[mi] == nil { meshBounds[mi] = Bounds.of(positions: scene.meshes[mi].positions) }
            bounds[i] = meshBounds[mi]!.transformed(by: world[i])
            triangles[i] = scene.meshes[mi].triangleCount
        }
        self.children = scene.childrenByNode()
        self.nodeBounds = bounds
        self.nodeTriangles = triangles
    }

    /// Bounds of every mesh in the scene (equal to `Bounds.of(scene:)`).
    var sceneBounds: Bounds {
        var out = Bounds.empty
        for b in nodeBounds { out.include(b) }
        return out
    }

    /// Bounds and triangle count of `root` and all its descendants. Each node is visited once even
    /// if the hierarchy is malformed.
    func summary(of root: NodeIndex) -> (bounds: Bounds, triangles: Int) {
        guard root.rawValue >= 0, root.rawValue < nodeBounds.count else { return (.empty, 0) }
        var bounds = Bounds.empty
        var triangles = 0
        var visited = Set<Int>()
        var stack = [root.rawValue]
        while let i = stack.popLast() {
            guard visited.insert(i).inserted else { continue }
            bounds.include(nodeBounds[i])
            triangles += nodeTriangles[i]
            stack.append(contentsOf: children[i].map(\.rawValue))
        }
        return (bounds, triangles)
    }
}
