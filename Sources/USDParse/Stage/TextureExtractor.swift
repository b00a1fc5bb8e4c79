import SceneModel

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Converts `UsdUVTexture` shaders into `TextureRef`s: loads the bytes through the caller's
/// `loadAsset`, de-duplicates textures (same asset path and layer → one texture; identical bytes
/// from different paths → one texture), and reads sampling state (wrap modes, scale/bias, the
/// primvar reader's UV set and an optional `UsdTransform2d`).
final class TextureExtractor {
    /// A texture reference plus the UV set (primvar name) its primvar reader asks for.
    struct Resolved {
        var ref: TextureRef
        var varname: String?
    }

    private var byKey: [String: TextureIndex?] = [:]
    /// Textures by byte count: two files can only be identical when their sizes are, so bytes are
    /// compared only within a size (no hashing of every texture's bytes).
    private var bySize: [Int: [TextureIndex]] = [:]

    /// Builds the reference for output `output` (`rgb`, `r`, …) of the shader at `shader`; nil
    /// (with a warning) when it is not a UsdUVTexture or its file cannot be loaded.
    func resolve(shader: Int, output: String, materialPath: SdfPath, ctx: StageBuildContext) throws -> Resolved? {
        let stage = ctx.stage
        let prim = stage.prims[shader]
        guard ShaderGraph.shaderID(prim) == "UsdUVTexture" else {
            ctx.warn(
                "USD_MATERIAL_UNSUPPORTED_SHADER",
                "input connected to \(ShaderGraph.shaderID(prim) ?? "an unknown shader") (\(prim.path)); "
                    + "only UsdUVTexture is read",
                materialPath)
            return nil
        }
        guard case .value(let fileValue, let layer)? = ShaderGraph.resolve(shader, "inputs:file", stage: stage),
            let path = fileValue.token, !path.isEmpty
        else {
            ctx.warn("USD_TEXTURE_NOT_FOUND", "\(prim.path) has no inputs:file", materialPath)
            return nil
        }
        guard let texture = try loadTexture(path: path, layer: layer ?? "", ctx: ctx, materialPath: materialPath) else {
            return nil
        }
        var ref = TextureRef(texture: texture)
        ref.channel = output
        ref.wrapS = wrap(shader, "inputs:wrapS", ctx: ctx, materialPath: materialPath)
        ref.wrapT = wrap(shader, "inputs:wrapT", ctx: ctx, materialPath: materialPath)
        if let s = AttributeValues.vector(ShaderGraph.value(shader, "inputs:scale", stage: stage), count: 4) {
            ref.scale = SIMD4(Float(s[0]), Float(s[1]), Float(s[2]), Float(s[3]))
        }
        if let b = AttributeValues.vector(ShaderGraph.value(shader, "inputs:bias", stage: stage), count: 4) {
            ref.bias = SIMD4(Float(b[0]), Float(b[1]), Float(b[2]), Float(b[3]))
        }
        let (varname, transform) = texcoordSource(shader, stage: stage)
        ref.uvTransform = transform
        return Resolved(ref: ref, varname: varname)
    }

    /// Loads (once) the texture authored as `path` in `layer`.
    /// - Throws: `USD_LIMIT_EXCEEDED` when its PNG or JPEG header declares a side longer than
    ///   `maxTextureDimension` pixels (see `TextureHeader`); `USD_MEMORY_BUDGET_EXCEEDED`.
    private func loadTexture(path: String, layer: String, ctx: StageBuildContext, materialPath: SdfPath) throws
        -> TextureIndex?
    {
        let key = path + "\u{0}" + layer
        if let cached = byKey[key] { return cached }
        guard let bytes = ctx.loadAsset(path, layer), !bytes.isEmpty else {
            byKey[key] = .some(nil)
            let udim = path.contains("<UDIM>") ? " (UDIM tiles are not supported)" : ""
            ctx.warn(
                "USD_TEXTURE_NOT_FOUND", "texture \(path) (from \(layer.isEmpty ? "?" : layer)) could not be loaded\(udim)",
                materialPath)
            return nil
        }
        if let size = TextureHeader.declaredSize(bytes),
            max(size.width, size.height) > ctx.limits.maxTextureDimension
        {
            throw USDParseError(
                .limitExceeded,
                "texture \(path) declares \(size.width)×\(size.height) pixels; "
                    + "maxTextureDimension is \(ctx.limits.maxTextureDimension)",
                primPath: materialPath.string)
        }
        if let candidates = bySize[bytes.count] {
            for c in candidates where Self.equal(ctx.scene.textures[c.rawValue].bytes, bytes) {
                byKey[key] = c
                return c
            }
        }
        try ctx.charge(bytes.count, "texture \(path)")
        let index = ctx.scene.addTexture(
            Texture(
                bytes: bytes, mimeType: Texture.sniffMIMEType(bytes),
                sourcePath: TextureExtractor.anchoredPath(path, layer: layer)))
        bySize[bytes.count, default: []].append(index)
        byKey[key] = index
        return index
    }

    /// Byte-wise equality of two equally long buffers with one `memcmp`.
    private static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        guard !a.isEmpty else { return true }
        return a.withUnsafeBytes { pa in b.withUnsafeBytes { pb in memcmp(pa.baseAddress!, pb.baseAddress!, a.count) == 0 } }
    }

    private func wrap(_ shader: Int, _ name: String, ctx: StageBuildContext, materialPath: SdfPath) -> TextureRef.Wrap {
        switch AttributeValues.token(ShaderGraph.value(shader, name, stage: ctx.stage)) {
        case "clamp": return .clamp
        case "mirror": return .mirror
        case "black":
            ctx.warn("USD_TEXTURE_WRAP_BLACK", "\(name) = black is approximated by clamp", materialPath)
            return .clamp
        default: return .repeatTexture  // repeat, useMetadata, unauthored
        }
    }

    /// The primvar name and UV transform feeding the texture's `inputs:st`.
    private func texcoordSource(_ shader: Int, stage: UsdStage) -> (String?, UVTransform?) {
        guard case .output(var node, _)? = ShaderGraph.resolve(shader, "inputs:st", stage: stage) else {
            return (nil, nil)
        }
        var transform: UVTransform?
        if ShaderGraph.shaderID(stage.prims[node]) == "UsdTransform2d" {
            transform = TextureExtractor.uvTransform(node, stage: stage)
            guard case .output(let reader, _)? = ShaderGraph.resolve(node, "inputs:in", stage: stage) else {
                return (nil, transform)
            }
            node = reader
        }
        guard ShaderGraph.shaderID(stage.prims[node])?.hasPrefix("UsdPrimvarReader") == true else {
            return (nil, transform)
        }
        let varname = ShaderGraph.value(node, "inputs:varname", stage: stage)?.token
        return (varname.flatMap { $0.isEmpty ? nil : $0 }, transform)
    }

    /// Converts a `UsdTransform2d` (scale → rotate → translate in USD's UV space, v up) into the
    /// equivalent transform of the scene's flipped coordinates (`v' = 1 − v`, see
    /// `SceneBuilder`): conjugating by the flip keeps the scale, negates the rotation and moves
    /// the translation to `(tx − sy·sin θ, 1 − ty − sy·cos θ)`. Identity transforms give nil.
    static func uvTransform(_ node: Int, stage: UsdStage) -> UVTransform? {
        let s = AttributeValues.vector(ShaderGraph.value(node, "inputs:scale", stage: stage), count: 2) ?? [1, 1]
        let degrees = AttributeValues.double(ShaderGraph.value(node, "inputs:rotation", stage: stage)) ?? 0
        let t = AttributeValues.vector(ShaderGraph.value(node, "inputs:translation", stage: stage), count: 2) ?? [0, 0]
        let theta = degrees.isFinite ? degrees * Double.pi / 180 : 0
        if s == [1, 1] && theta == 0 && t == [0, 0] { return nil }
        let tx = t[0] - s[1] * sin(theta)
        let ty = 1 - t[1] - s[1] * cos(theta)
        return UVTransform(
            translation: SIMD2(Float(tx), Float(ty)), rotation: Float(-theta), scale: SIMD2(Float(s[0]), Float(s[1])))
    }

    /// A display path for a texture: the asset path anchored at its layer's folder
    /// (`./tex/a.png` in `assets/x.usda` → `assets/tex/a.png`). Package-bracketed and absolute
    /// paths are returned unchanged.
    static func anchoredPath(_ path: String, layer: String) -> String {
        if path.contains("[") || path.hasPrefix("/") { return path }
        var parts: [Substring] = []
        if let slash = layer.lastIndex(of: "/") { parts = layer[..<slash].split(separator: "/") }
        for part in path.split(separator: "/") {
            if part == "." || part.isEmpty { continue }
            if part == ".." {
                if !parts.isEmpty { parts.removeLast() }
                continue
            }
            parts.append(part)
        }
        return parts.joined(separator: "/")
    }
}
