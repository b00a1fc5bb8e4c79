/// A triangle mesh in structure-of-arrays form. All streams are per vertex and flat:
/// `positions` holds 3 floats per vertex, `normals` 3, `uv0` 2, `colors` 4 (linear RGBA).
/// Units are metres in the owning node's local frame. Winding is counter-clockwise for front faces.
public struct Mesh: Hashable, Sendable {
    public var name: String
    /// x, y, z per vertex.
    public var positions: [Float]
    /// Unit normals, x, y, z per vertex; empty when the source had none (writers compute them).
    public var normals: [Float]
    /// Texture coordinates, u, v per vertex with v pointing down the image (glTF convention);
    /// empty when absent.
    public var uv0: [Float]
    /// Linear RGBA per vertex; empty when absent.
    public var colors: [Float]
    /// Triangle list indices into the vertex streams.
    public var indices: [UInt32]
    /// Index ranges drawn with one material each, in order, covering `indices`.
    public var primitives: [Primitive]
    /// Source path of the prim the mesh came from.
    public var sourcePath: String

    public init(
        name: String, positions: [Float] = [], normals: [Float] = [], uv0: [Float] = [], colors: [Float] = [],
        indices: [UInt32] = [], primitives: [Primitive] = [], sourcePath: String = ""
    ) {
        self.name = name
        self.positions = positions
        self.normals = normals
        self.uv0 = uv0
        self.colors = colors
        self.indices = indices
        self.primitives = primitives
        self.sourcePath = sourcePath
    }

    /// Number of vertices (positions / 3).
    public var vertexCount: Int { positions.count / 3 }
    /// Number of triangles (indices / 3).
    public var triangleCount: Int { indices.count / 3 }

    /// A range of the index buffer with one material.
    public struct Primitive: Hashable, Sendable {
        /// First index (a multiple of 3).
        public var indexStart: Int
        /// Number of indices (a multiple of 3).
        public var indexCount: Int
        /// Material; `nil` draws with the writer's default material.
        public var material: MaterialIndex?

        public init(indexStart: Int, indexCount: Int, material: MaterialIndex?) {
            self.indexStart = indexStart
            self.indexCount = indexCount
            self.material = material
        }
    }
}
