/// Composes a stage from a root layer: sublayers, references (external and internal), payloads,
/// inherits, specializes, variant selections and instancing, with depth and cycle guards.
///
/// The result lists every prim in pre-order with its fields resolved to the strongest opinion;
/// children of inactive prims are not composed (as in USD). Child order follows USD: names from
/// weaker sites first, stronger sites' new names appended.
public enum StageComposer {
    /// Composes the stage whose root layer is `rootLayer` (a provider path).
    ///
    /// - Throws: `USDParseError` from the layer readers; `USD_COMPOSITION_CYCLE` for reference or
    ///   sublayer cycles; `USD_LIMIT_EXCEEDED` when arcs nest deeper than
    ///   `limits.maxCompositionDepth`, the stage exceeds `limits.maxComposedPrims`, or more than
    ///   `limits.maxLayers` layers are needed.
    public static func compose(
        rootLayer: String, provider: any AssetProvider, limits: ParseLimits, budget: MemoryBudget
    ) throws -> UsdStage {
        let cache = LayerCache(provider: provider, limits: limits, budget: budget)
        let rootStack = try cache.stack(rootLayer)
        var builder = Builder(cache: cache, limits: limits)
        let rootNode = PrimIndex.Node(
            arc: .root, stack: rootStack, path: .root, maps: [], offset: .identity, chain: [],
            introducedHere: true)
        try builder.composeTree(PrimIndex(root: rootNode))
        let rootLayerIndex = try cache.layer(rootLayer)
        var identifiers = cache.layers.map(\.identifier)
        if let i = identifiers.firstIndex(of: rootLayer), i != 0 { identifiers.swapAt(0, i) }
        return UsdStage(
            prims: builder.prims, metadata: cache.layers[rootLayerIndex].metadata, layerIdentifiers: identifiers,
            warnings: cache.warnings + builder.warnings)
    }

    struct Builder {
        let cache: LayerCache
        let limits: ParseLimits
        var prims: [UsdPrim] = []
        var warnings: [StageWarning] = []

        init(cache: LayerCache, limits: ParseLimits) {
            self.cache = cache
            self.limits = limits
        }

        /// Pre-order composition without recursion on the Swift stack.
        mutating func composeTree(_ rootIndex: PrimIndex) throws {
            struct Pending {
                var index: PrimIndex
                var path: SdfPath
                var parent: Int?
                var inInstance: Bool
            }
            var work: [Pending] = [Pending(index: rootIndex, path: .root, parent: nil, inInstance: false)]
            while let item = work.popLast() {
                guard prims.count < limits.maxComposedPrims else {
                    throw USDParseError(
                        .limitExceeded, "more than maxComposedPrims (\(limits.maxComposedPrims)) prims",
                        primPath: item.path.string)
                }
                var index = item.index
                try expand(&index, primPath: item.path)
                let sites = index.flattened()
                var prim = resolvePrim(path: item.path, parent: item.parent, sites: sites)
                prim.isInstanceProxy = item.inInstance
                let me = prims.count
                prims.append(prim)
                if let p = item.parent { prims[p].children.append(me) }
                guard prim.isActive || item.path.isRoot else { continue }
                let names = childNames(sites)
                let instance = item.inInstance || (prim.metadata["instanceable"]?.bool ?? false)
                for name in names.reversed() {
                    work.append(
                        Pending(
                            index: index.child(named: name), path: item.path.appendingChild(name), parent: me,
                            inInstance: instance))
                }
            }
        }

        // MARK: Arc expansion

        /// Adds every arc authored at the index's sites (recursively), then variant selections.
        mutating func expand(_ index: inout PrimIndex, primPath: SdfPath) throws {
            if primPath.isRoot { return }
            for _ in 0..<(limits.maxCompositionDepth + 1) {
                var changed = false
                let snapshot = index
                try expandNode(&index.root, index: snapshot, primPath: primPath, changed: &changed, depth: 0)
                if !changed { return }
            }
        }

        mutating func expandNode(
            _ node: inout PrimIndex.Node, index: PrimIndex, primPath: SdfPath, changed: inout Bool, depth: Int
        ) throws {
            guard depth <= limits.maxCompositionDepth else {
                throw USDParseError(
                    .limitExceeded, "composition arcs nested deeper than maxCompositionDepth (\(limits.maxCompositionDepth))",
                    primPath: primPath.string)
            }
            if !node.expanded {
                node.expanded = true
                let added = try directArcs(of: node, primPath: primPath)
                if !added.isEmpty {
                    changed = true
                    // Direct arcs are stronger than ancestral arcs of the same kind.
                    let merged = (added.map { ($0, 0) } + node.children.map { ($0, 1) }).enumerated().sorted {
                        let a = $0.element, b = $1.element
                        if a.0.arc != b.0.arc { return a.0.arc < b.0.arc }
                        if a.1 != b.1 { return a.1 < b.1 }
                        return $0.offset < $1.offset
                    }
                    node.children = merged.map { $0.element.0 }
                }
            }
            if try addVariants(&node, index: index, primPath: primPath) { changed = true }
            for i in node.children.indices {
                try expandNode(&node.children[i], index: index, primPath: primPath, changed: &changed, depth: depth + 1)
            }
        }

        /// Field value at `path` from the strongest layer of `stack` that has it.
        func field(_ name: String, stack: LayerStack, path: SdfPath) -> SdfValue? {
            for m in stack.members {
                if let v = cache.layers[m.layer].specs[path]?.fields[name] { return v }
            }
            return nil
        }

        /// A list op composed across the layers of a stack (weakest applied first).
        func listItems<T>(_ name: String, stack: LayerStack, path: SdfPath, _ extract: (SdfValue) -> SdfListOp<T>?) -> [T] {
            var acc: [T] = []
            for m in stack.members.reversed() {
                if let v = cache.layers[m.layer].specs[path]?.fields[name], let op = extract(v) { acc = op.applied(to: acc) }
            }
            return acc
        }

        func hasSpec(_ stack: LayerStack, _ path: SdfPath) -> Bool {
            stack.members.contains { cache.layers[$0.layer].specs[path] != nil }
        }

        mutating func directArcs(of node: PrimIndex.Node, primPath: SdfPath) throws -> [PrimIndex.Node] {
            guard hasSpec(node.stack, node.path) else { return [] }
            var out: [PrimIndex.Node] = []
            let here = node.path.strippingVariantSelections
            // Inherits and specializes: class paths in this layer stack's namespace.
            let inherits = listItems("inheritPaths", stack: node.stack, path: node.path) {
                if case .pathListOp(let op) = $0 { return op }
                return nil
            }
            for path in inherits {
                if let n = try classArc(.inherit, path: path, from: node, here: here) { out.append(n) }
            }
            let references = listItems("references", stack: node.stack, path: node.path) {
                if case .referenceListOp(let op) = $0 { return op }
                return nil
            }
            for ref in references {
                if let n = try referenceArc(
                    .reference, asset: ref.assetPath, prim: ref.primPath, offset: ref.layerOffset, from: node, here: here,
                    primPath: primPath)
                {
                    out.append(n)
                }
            }
            let payloads = listItems("payload", stack: node.stack, path: node.path) { v -> SdfListOp<SdfPayload>? in
                switch v {
                case .payloadListOp(let op): return op
                case .payload(let p):
                    // A single payload; `payload = None` is stored as an empty one.
                    return SdfListOp(explicit: p.assetPath.isEmpty && p.primPath.isEmpty ? [] : [p])
                default: return nil
                }
            }
            for pl in payloads {
                if let n = try referenceArc(
                    .payload, asset: pl.assetPath, prim: pl.primPath, offset: pl.layerOffset, from: node, here: here,
                    primPath: primPath)
                {
                    out.append(n)
                }
            }
            let specializes = listItems("specializes", stack: node.stack, path: node.path) {
                if case .pathListOp(let op) = $0 { return op }
                return nil
            }
            for path in specializes {
                if let n = try classArc(.specialize, path: path, from: node, here: here) { out.append(n) }
            }
            return out
        }

        mutating func classArc(
            _ arc: PrimIndex.Arc, path: SdfPath, from node: PrimIndex.Node, here: SdfPath
        ) throws -> PrimIndex.Node? {
            guard path.isAbsolute, !path.isPropertyPath else { return nil }
            let key = PrimIndex.Site(layer: node.stack.rootIdentifier, path: path)
            if node.chain.contains(key) || path == node.path {
                throw USDParseError(.compositionCycle, "\(arc == .inherit ? "inherit" : "specialize") cycle through \(path)",
                                    primPath: here.string, layer: node.stack.rootIdentifier)
            }
            var n = PrimIndex.Node(
                arc: arc, stack: node.stack, path: path,
                maps: [PrimIndex.NamespaceMap(source: path, target: here, dropsOutside: false)] + node.maps,
                offset: node.offset, chain: node.chain + [key], introducedHere: true)
            n.expanded = false
            return n
        }

        mutating func referenceArc(
            _ arc: PrimIndex.Arc, asset: String, prim: SdfPath, offset: SdfLayerOffset, from node: PrimIndex.Node,
            here: SdfPath, primPath: SdfPath
        ) throws -> PrimIndex.Node? {
            let kind = arc == .payload ? "payload" : "reference"
            var stack = node.stack
            var anchorLayer = node.stack.rootIdentifier
            // The layer that authored the arc anchors relative asset paths.
            for m in node.stack.members where cache.layers[m.layer].specs[node.path] != nil {
                anchorLayer = cache.layers[m.layer].identifier
                break
            }
            if !asset.isEmpty {
                guard let resolved = cache.provider.resolve(asset, anchor: anchorLayer) else {
                    warnings.append(
                        StageWarning(
                            code: "USD_REFERENCE_UNRESOLVED",
                            message: "cannot resolve \(kind) @\(asset)@ inside the package (authored in \(anchorLayer))",
                            path: primPath.string))
                    return nil
                }
                do {
                    stack = try cache.stack(resolved)
                } catch let e as USDParseError where e.code == .compositionCycle || e.code == .limitExceeded {
                    throw e
                }
            }
            var target = prim
            if target.isEmpty {
                let rootLayer = cache.layers[stack.members.first?.layer ?? 0]
                guard let dp = rootLayer.defaultPrim else {
                    warnings.append(
                        StageWarning(
                            code: "USD_REFERENCE_NO_DEFAULT_PRIM",
                            message: "\(kind) @\(asset)@ names no prim and the layer has no defaultPrim",
                            path: primPath.string))
                    return nil
                }
                target = SdfPath.root.appendingChild(dp)
            }
            guard target.isAbsolute, !target.isPropertyPath, !target.isRoot else {
                warnings.append(
                    StageWarning(code: "USD_REFERENCE_INVALID_TARGET", message: "\(kind) target \(target) is not a prim path",
                                 path: primPath.string))
                return nil
            }
            let key = PrimIndex.Site(layer: stack.rootIdentifier, path: target)
            if node.chain.contains(key) {
                throw USDParseError(
                    .compositionCycle, "\(kind) cycle: @\(asset)@<\(target)> is already being composed",
                    primPath: primPath.string, layer: anchorLayer)
            }
            if node.chain.count >= limits.maxCompositionDepth {
                throw USDParseError(
                    .limitExceeded, "composition arcs nested deeper than maxCompositionDepth (\(limits.maxCompositionDepth))",
                    primPath: primPath.string)
            }
            guard hasSpec(stack, target) else {
                warnings.append(
                    StageWarning(
                        code: "USD_REFERENCE_TARGET_MISSING", message: "\(kind) target \(target) not found in \(stack.rootIdentifier)",
                        path: primPath.string))
                return nil
            }
            return PrimIndex.Node(
                arc: arc, stack: stack, path: target,
                maps: [PrimIndex.NamespaceMap(source: target, target: here, dropsOutside: true)] + node.maps,
                offset: node.offset.composed(with: offset), chain: node.chain + [key], introducedHere: true)
        }

        /// Adds the selected variant of every variant set authored at `node` (selection: the strongest
        /// opinion anywhere in the index, else the first variant). Returns true when something was added.
        mutating func addVariants(_ node: inout PrimIndex.Node, index: PrimIndex, primPath: SdfPath) throws -> Bool {
            guard hasSpec(node.stack, node.path) else { return false }
            let sets = listItems("variantSetNames", stack: node.stack, path: node.path) {
                if case .stringListOp(let op) = $0 { return op }
                if case .tokenListOp(let op) = $0 { return op }
                return nil
            }
            guard !sets.isEmpty else { return false }
            var added = false
            let sites = index.flattened()
            for set in sets {
                if node.children.contains(where: {
                    $0.arc == .variant && $0.path.variantSelection?.set == set && $0.path.parent == node.path
                }) {
                    continue
                }
                var selection: String?
                for s in sites {
                    if case .variantSelection(let sel)? = field("variantSelection", stack: s.stack, path: s.path),
                       let v = sel[set]
                    {
                        selection = v
                        break
                    }
                }
                if selection == nil {
                    let names = field("variantChildren", stack: node.stack, path: node.path.appendingVariantSelection(set: set, variant: ""))?.tokens
                    selection = names?.first
                }
                guard let sel = selection, !sel.isEmpty else { continue }
                let vpath = node.path.appendingVariantSelection(set: set, variant: sel)
                guard hasSpec(node.stack, vpath) else {
                    warnings.append(
                        StageWarning(code: "USD_VARIANT_NOT_FOUND", message: "variant \(set)=\(sel) has no opinions",
                                     path: primPath.string))
                    continue
                }
                let v = PrimIndex.Node(
                    arc: .variant, stack: node.stack, path: vpath, maps: node.maps, offset: node.offset,
                    chain: node.chain, introducedHere: true)
                // Variants are weaker than inherits, stronger than references.
                let pos = node.children.firstIndex { $0.arc > .variant } ?? node.children.count
                node.children.insert(v, at: pos)
                added = true
            }
            return added
        }
    }
}
