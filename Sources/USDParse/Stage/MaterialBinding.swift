/// Resolves which Material prim a prim is bound to (UsdShadeMaterialBindingAPI, direct
/// bindings). `material:binding:preview` is preferred over `material:binding` on each prim; the
/// nearest binding up the hierarchy wins unless an ancestor's binding relationship carries
/// `bindMaterialAs = "strongerThanDescendants"`, in which case the outermost such ancestor wins.
/// Collection-based bindings are not evaluated.
enum MaterialBinding {
    /// Deepest ancestor walk (guards against malformed parent links).
    static let maxDepth = 4_096

    /// The relationship used for binding on `prim`, if it has a target.
    static func bindingRelationship(of prim: UsdPrim) -> UsdRelationship? {
        if let r = prim.relationships["material:binding:preview"], !r.targets.isEmpty { return r }
        if let r = prim.relationships["material:binding"], !r.targets.isEmpty { return r }
        return nil
    }

    /// The bound Material path of the prim at `primIndex` (nil when unbound).
    static func boundMaterialPath(primIndex: Int, stage: UsdStage) -> SdfPath? {
        var result: SdfPath?
        var cur: Int? = primIndex
        var steps = 0
        while let c = cur, c >= 0, c < stage.prims.count, steps < maxDepth {
            let prim = stage.prims[c]
            if let rel = bindingRelationship(of: prim), let target = rel.targets.first {
                let stronger = AttributeValues.token(rel.metadata["bindMaterialAs"]) == "strongerThanDescendants"
                if result == nil || stronger { result = target }
            }
            cur = prim.parent
            steps += 1
        }
        return result
    }
}
