/// The neutral scene every feature module reads: flat arrays addressed by typed indices.
/// Units are metres, +Y up, right-handed, counter-clockwise front faces.
public struct Scene: Hashable, Sendable {
    public var nodes: [Node]
    public var meshes: [Mesh]
    public var materials: [Material]
    public var textures: [Texture]
    public var metadata: SceneMetadata
    public var warnings: [SceneWarning]

    public init(
        nodes: [Node] = [], meshes: [Mesh] = [], materials: [Material] = [], textures: [Texture] = [],
        metadata: SceneMetadata = SceneMetadata(), warnings: [SceneWarning] = []
    ) {
        self.nodes = nodes
        self.meshes = meshes
        self.materials = materials
        self.textures = textures
        self.metadata = metadata
        self.warnings = warnings
    }

    /// Appends a node and returns its index.
    @discardableResult
    public mutating func addNode(_ node: Node) -> NodeIndex {
        nodes.append(node)
        return NodeIndex(nodes.count - 1)
    }

    /// Appends a mesh and returns its index.
    @discardableResult
    public mutating func addMesh(_ mesh: Mesh) -> MeshIndex {
        meshes.append(mesh)
        return MeshIndex(meshes.count - 1)
    }

    /// Appends a material and returns its index.
    @discardableResult
    public mutating func addMaterial(_ material: Material) -> MaterialIndex {
        materials.append(material)
        return MaterialIndex(materials.count - 1)
    }

    /// Appends a texture and returns its index.
    @discardableResult
    public mutating func addTexture(_ texture: Texture) -> TextureIndex {
        textures.append(texture)
        return TextureIndex(textures.count - 1)
    }

    /// Nodes without a parent, in array order.
    public var roots: [NodeIndex] {
        nodes.indices.filter { nodes[$0].parent == nil }.map(NodeIndex.init)
    }

    /// Children of every node, in array order (computed in one pass).
    public func childrenByNode() -> [[NodeIndex]] {
        var out = [[NodeIndex]](repeating: [], count: nodes.count)
        for (i, n) in nodes.enumerated() {
            if let p = n.parent, p.rawValue >= 0, p.rawValue < nodes.count { out[p.rawValue].append(NodeIndex(i)) }
        }
        return out
    }

    /// World transform of every node (parents precede children is not assumed).
    public func worldTransforms() -> [Matrix4] {
        var world = [Matrix4?](repeating: nil, count: nodes.count)
        func resolve(_ i: Int, depth: Int) -> Matrix4 {
            if let w = world[i] { return w }
            let local = nodes[i].localTransform
            var w = local
            if let p = nodes[i].parent, p.rawValue >= 0, p.rawValue < nodes.count, p.rawValue != i, depth < 4096 {
                w = resolve(p.rawValue, depth: depth + 1) * local
            }
            world[i] = w
            return w
        }
        return nodes.indices.map { resolve($0, depth: 0) }
    }

    /// Total triangles over all mesh instances (a mesh drawn by two nodes counts twice).
    public var instancedTriangleCount: Int {
        nodes.reduce(0) { acc, n in acc + (n.mesh.map { meshes[$0.rawValue].triangleCount } ?? 0) }
    }
}
