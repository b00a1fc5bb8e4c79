import SceneModel

/// The result of `GLBWriter.write(_:options:)`: the `.glb` bytes plus what the manifest and the
/// worker's logs need to know about them. The caller owns `bytes`.
public struct GLBOutput: Sendable {
    /// The complete binary glTF 2.0 file (header, JSON chunk, BIN chunk when there is binary data).
    public var bytes: [UInt8]
    /// glTF node index of every written scene node. Layer and element nodes are always present;
    /// other nodes only when written (empty helper nodes and subtrees outside the layers are not).
    public var nodeIndex: [NodeIndex: Int]
    /// glTF meshes written (a mesh shared by several nodes counts once; baked copies count each).
    public var meshCount: Int
    /// Triangles over the written glTF meshes, each mesh counted once (not per instance).
    public var triangleCount: Int
    /// Vertices over the written glTF meshes (after splitting for generated normals), each mesh once.
    public var vertexCount: Int
    /// glTF materials written, including the shared default material when one is needed.
    public var materialCount: Int
    /// glTF textures written (after de-duplication and dropped images).
    public var textureCount: Int
    /// glTF images embedded in the BIN chunk.
    public var imageCount: Int
    /// How the geometry is stored (`.none` also for a `.meshopt` request with nothing to compress).
    public var compression: GLBCompression
    /// `extensionsRequired` of the file: what a loader must support (empty for `.none`).
    public var extensionsRequired: [String]
    /// Findings with stable codes, in the order they were found: `GLB_IMAGE_DROPPED`,
    /// `GLB_TEXTURE_CHANNELS`, `GLB_TEXTURE_SCALE_BIAS`, `GLB_TRANSFORM_BAKED`,
    /// `GLB_NODES_OUTSIDE_LAYERS`, `GLB_VERTEX_DATA_REPAIRED`, `GLB_MATERIAL_CLAMPED`.
    /// Only the writer's own findings; `LayeredScene.warnings` are not repeated.
    public var warnings: [SceneWarning]

    public init(
        bytes: [UInt8], nodeIndex: [NodeIndex: Int], meshCount: Int, triangleCount: Int, vertexCount: Int,
        materialCount: Int, textureCount: Int, imageCount: Int, compression: GLBCompression = .none,
        extensionsRequired: [String] = [], warnings: [SceneWarning]
    ) {
        self.bytes = bytes
        self.nodeIndex = nodeIndex
        self.meshCount = meshCount
        self.triangleCount = triangleCount
        self.vertexCount = vertexCount
        self.materialCount = materialCount
        self.textureCount = textureCount
        self.imageCount = imageCount
        self.compression = compression
        self.extensionsRequired = extensionsRequired
        self.warnings = warnings
    }
}
