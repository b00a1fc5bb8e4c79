/// Size figures of the written GLB, as the manifest's `stats` object records them: the figures the
/// GLB writer reports, every count ≥ 0. Stored data is counted once per glTF mesh, so a mesh drawn
/// by several nodes counts once here (`layers[].triangles` in the manifest counts drawn instances).
public struct Stats: Hashable, Sendable {
    /// glTF meshes written.
    public var meshes: Int
    /// Triangles stored over the glTF meshes, each mesh counted once.
    public var triangles: Int
    /// Vertices stored over the glTF meshes, each mesh counted once.
    public var vertices: Int
    /// glTF materials written.
    public var materials: Int
    /// glTF textures written.
    public var textures: Int
    /// Size of the `.glb` file in bytes.
    public var glbBytes: Int

    /// Figures as reported by the GLB writer.
    public init(meshes: Int, triangles: Int, vertices: Int, materials: Int, textures: Int, glbBytes: Int) {
        self.meshes = meshes
        self.triangles = triangles
        self.vertices = vertices
        self.materials = materials
        self.textures = textures
        self.glbBytes = glbBytes
    }
}
