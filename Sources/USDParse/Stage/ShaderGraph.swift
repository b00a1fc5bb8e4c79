/// Where a shader input gets its value from after following connections.
enum ShaderInput {
    /// An authored value and the layer that authored it (asset paths resolve against it).
    case value(SdfValue, layer: String?)
    /// The output `name` (without the `outputs:` prefix) of the Shader prim at `shader`.
    case output(shader: Int, name: String)
}

/// Follows UsdShade connections: shader inputs → other shaders' outputs, or → Material /
/// NodeGraph interface inputs and NodeGraph outputs, transitively with a depth cap.
enum ShaderGraph {
    /// Longest chain of connections followed before giving up.
    static let maxConnectionDepth = 16

    /// Resolves attribute `name` of the prim at `primIndex`. A connection wins over a value; when
    /// a connection cannot be followed (missing target, cycle, depth cap), the last authored
    /// value on the chain is used, else nil.
    static func resolve(_ primIndex: Int, _ name: String, stage: UsdStage) -> ShaderInput? {
        var prim = primIndex
        var attrName = name
        var fallback: ShaderInput?
        for _ in 0..<maxConnectionDepth {
            guard prim >= 0, prim < stage.prims.count, let attr = stage.prims[prim].attributes[attrName] else {
                return fallback
            }
            if let v = attr.value { fallback = .value(v, layer: attr.valueLayer) }
            guard let target = attr.connections.first else { return fallback }
            guard let targetName = target.propertyName, let targetPrim = stage.primIndex(at: target.primPath) else {
                return fallback
            }
            if targetName.hasPrefix("outputs:"), stage.prims[targetPrim].typeName == "Shader" {
                return .output(shader: targetPrim, name: String(targetName.dropFirst("outputs:".count)))
            }
            if targetPrim == prim && targetName == attrName { return fallback }
            prim = targetPrim
            attrName = targetName
        }
        return fallback
    }

    /// A shader's implementation id (`info:id`), e.g. `UsdPreviewSurface`.
    static func shaderID(_ prim: UsdPrim) -> String? { prim.token("info:id") }

    /// The value of an input after resolution, when it resolves to a value.
    static func value(_ primIndex: Int, _ name: String, stage: UsdStage) -> SdfValue? {
        if case .value(let v, _)? = resolve(primIndex, name, stage: stage) { return v }
        return nil
    }
}
