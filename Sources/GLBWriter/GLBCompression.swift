/// How the `.glb`'s geometry is stored.
public enum GLBCompression: String, Sendable, CaseIterable {
    /// Float32 vertex streams and plain u16/u32 indices: readable by every glTF 2.0 loader.
    case none
    /// `EXT_meshopt_compression` buffers with `KHR_mesh_quantization`: positions stay float32, on a
    /// power-of-two grid within the stated error bound, written with the `EXPONENTIAL` filter;
    /// normals are 8-bit octahedral-encoded; vertices equal in everything written are stored once;
    /// vertex and index order is optimised for the codecs, and every vertex and index stream is
    /// compressed with meshoptimizer. Loaders need a meshopt decoder (three.js: `MeshoptDecoder`).
    case meshopt

    /// The glTF extensions a loader must support to read a model written this way.
    public var extensionsRequired: [String] {
        switch self {
        case .none: return []
        case .meshopt: return ["EXT_meshopt_compression", "KHR_mesh_quantization"]
        }
    }
}
