import SceneModel

/// Writes a `LayeredScene` as one binary glTF 2.0 file (`.glb`): metres, +Y up, one root node per
/// layer, one child node per element, semantics in node `extras`, PBR metallic-roughness
/// materials, embedded PNG/JPEG images. Pure: no IO, no logging; findings come back as warnings.
///
/// Layout of the output (see the type docs of the internal stages for every rule):
/// - `scene: 0` lists the layer nodes in `layers` order. Each layer node is named `layer_<id>`
///   (`layer_walls`, `layer_objects_chair`) with `extras.crowdroom = {kind: "layer", layer,
///   layerKind, category?, defaultVisible}`; each element node is named by its identifier with
///   `extras.crowdroom = {kind: "element", identifier, category, layer, geometry, attributes,
///   confidence?, dimensions?, parent?, story?, isOpen?, sourcePrimPath?}` (keys sorted; absent
///   optionals omitted). The scene's node tree below element nodes is kept with its names. Every
///   name follows `NodeName` (`LayeredScene.nodeNames(others:)`): only `A–Z a–z 0–9 _ -`, at most
///   63 characters, unique in the file, so three.js, Blender and other loaders show it unchanged.
/// - Layer and element nodes are always written; other nodes only when they draw a non-empty mesh or
///   have a written child. Nodes outside the layers are not written.
/// - Transforms: `matrix` (column-major) when not the identity; a matrix glTF cannot decompose into
///   TRS is baked into a dedicated mesh copy instead (`GLB_TRANSFORM_BAKED`).
/// - One glTF mesh per scene mesh, shared by every node that draws it; one primitive per
///   `Mesh.Primitive`, sharing the mesh's vertex accessors. Normals are always written (computed
///   when absent); COLOR_0 only when colours vary; indices u16 when every index is below 65535.
/// - Node order is depth-first pre-order; mesh order is first use; materials in scene order.
///
/// Determinism: the same input and options give byte-identical output (no hash-order iteration, no
/// clocks, fixed key order, shortest round-trip numbers).
public enum GLBWriter {
    /// Writes the layered scene as one `.glb`. Deterministic: same input → same bytes.
    ///
    /// The scene is checked with `SceneValidator` first (`checkValid`), unless
    /// `options.sceneValidated` says the caller did. Cost is linear in the size of the scene's
    /// streams (normal generation adds a term quadratic in the faces around positions whose faces
    /// spread wider than half the smoothing angle); memory is the output plus, for meshes without
    /// normals, the split vertex data.
    ///
    /// - Parameters:
    ///   - layered: the room; must follow the node layout contract of `LayeredScene`.
    ///   - options: generator text and the smoothing angle for generated normals.
    /// - Returns: the file bytes (owned by the caller), glTF node indices and statistics.
    /// - Throws: `GLBWriterError` with code `GLB_INVALID_SCENE` (validator errors or a broken node
    ///   layout contract) or `GLB_TOO_LARGE` (binary buffer over 2 GiB).
    public static func write(_ layered: LayeredScene, options: GLBOptions) throws -> GLBOutput {
        try GLTFDocumentBuilder(layered: layered, options: options).build()
    }

    /// Runs `SceneValidator` on `scene`: the one check every consumer of a scene may trust (the
    /// pipeline runs it once, before the model, the plan and the pictures read the scene). Cost is
    /// linear in the size of the scene.
    /// - Throws: `GLBWriterError` `GLB_INVALID_SCENE` when the validator reports errors (up to
    ///   three are quoted): a fault of the scene built, permanent.
    public static func checkValid(_ scene: Scene) throws(GLBWriterError) {
        let errors = SceneValidator.validate(scene).filter { $0.severity == .error }
        guard errors.isEmpty else {
            let quoted = errors.prefix(3).map(\.description).joined(separator: "; ")
            throw GLBWriterError.invalidScene(
                "scene has \(errors.count) validation error(s): \(quoted)\(errors.count > 3 ? "; …" : "")")
        }
    }
}
