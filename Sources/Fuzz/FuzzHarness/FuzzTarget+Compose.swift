import USDParse

extension FuzzTarget {
    /// Composition over a layer stack, then the stage → scene conversion: a `.usdz` is composed as
    /// a package; anything else is split by `FuzzSections` into a root layer and the files beside it
    /// (sublayers, references, payloads, textures).
    public static let compose = FuzzTarget(
        name: "compose",
        summary: "stage composer and scene builder (input: a .usdz, or layers joined by FuzzSections)"
    ) { bytes in
        let limits = ParseLimits.default
        let files = FuzzSections.split(bytes)
        let root = files[0]
        var others: [String: [UInt8]] = [:]
        for f in files.dropFirst() { others[f.name] = f.bytes }
        let siblings: (any AssetProvider)? = others.isEmpty ? nil : InMemoryAssetProvider(files: others)
        do {
            let (scene, opened) = try USDParser.parseScene(root.bytes, name: root.name, limits: limits, siblings: siblings)
            return .accepted(
                summary: "\(opened.stage.layerIdentifiers.count) layers, \(opened.stage.prims.count) prims, "
                    + "\(scene.meshes.count) meshes, \(scene.warnings.count) warnings")
        } catch {
            return .refused(error)
        }
    }
}
