/// The second half of composition: child order, and each field resolved to the strongest opinion
/// across the prim's sites (list ops combined the way USD combines them).
extension StageComposer.Builder {
    // MARK: Resolution

    func childNames(_ sites: [PrimIndex.Node]) -> [String] {
        var names: [String] = []
        var seen: Set<String> = []
        for s in sites.reversed() {
            for m in s.stack.members.reversed() {
                guard let spec = cache.layers[m.layer].specs[s.path] else { continue }
                for n in spec.fields["primChildren"]?.tokens ?? [] where seen.insert(n).inserted { names.append(n) }
            }
        }
        return names
    }

    func resolvePrim(path: SdfPath, parent: Int?, sites: [PrimIndex.Node]) -> UsdPrim {
        var prim = UsdPrim(path: path, parent: parent)
        var specifier: SdfSpecifier?
        var sawOver = false
        var propertyNames: [String] = []
        var seenProps: Set<String> = []
        // The prim's specs, strongest first (each looked up once).
        var specs: [SdfSpec] = []
        for s in sites {
            for m in s.stack.members {
                if let spec = cache.layers[m.layer].specs[s.path] { specs.append(spec) }
            }
        }
        for spec in specs {
            // Sdf's fallback specifier is `over`; crate writers omit the field then.
            if spec.fields["specifier"] == nil, spec.type == .prim { sawOver = true }
            for (key, value) in spec.fields {
                switch key {
                case "specifier":
                    if case .specifier(let sp) = value {
                        if sp == .over { sawOver = true } else if specifier == nil { specifier = sp }
                    }
                case "typeName":
                    if prim.typeName.isEmpty, let t = value.token { prim.typeName = t }
                case "primChildren", "properties", "variantSetChildren", "references", "payload", "inheritPaths",
                    "specializes", "variantSelection", "variantSetNames":
                    break
                case "customData", "assetInfo":
                    prim.metadata[key] = Self.mergeDictionaries(stronger: prim.metadata[key], weaker: value)
                default:
                    if prim.metadata[key] == nil { prim.metadata[key] = value }
                }
            }
        }
        // Property names: strongest-first union (order does not matter for lookup).
        for spec in specs {
            for n in spec.fields["properties"]?.tokens ?? [] where seenProps.insert(n).inserted {
                propertyNames.append(n)
            }
        }
        prim.specifier = specifier ?? (sawOver ? .over : .def)
        if path.isRoot { prim.specifier = .def }
        for name in propertyNames { resolveProperty(name, sites: sites, into: &prim) }
        // Identity of each referenced layer's root prim (RoomPlan element UUIDs live there).
        for s in sites where s.introducedHere && (s.arc == .reference || s.arc == .payload) {
            if case .dictionary(let d)? = field("customData", stack: s.stack, path: s.path) {
                prim.referencedLayerCustomData.append(d)
            } else {
                prim.referencedLayerCustomData.append([:])
            }
        }
        return prim
    }

    static func mergeDictionaries(stronger: SdfValue?, weaker: SdfValue) -> SdfValue {
        guard case .dictionary(let s)? = stronger else { return stronger ?? weaker }
        guard case .dictionary(let w) = weaker else { return .dictionary(s) }
        var out = w
        for (k, v) in s {
            if case .dictionary = v, let wv = w[k] { out[k] = mergeDictionaries(stronger: v, weaker: wv) } else { out[k] = v }
        }
        return .dictionary(out)
    }

    func resolveProperty(_ name: String, sites: [PrimIndex.Node], into prim: inout UsdPrim) {
        var specType: SdfSpecType?
        var attr = UsdAttribute(name: name)
        var variability: SdfVariability?
        var connections: [SdfPath] = []
        var targets: [SdfPath] = []
        var relMeta: [String: SdfValue] = [:]
        var samplesFound = false
        var valueDecided = false
        // The property's path at each site, made once (each is a new path node, hashed on creation).
        let propertyPaths = sites.map { $0.path.appendingProperty(name) }
        // Strongest first for scalar fields.
        for (s, path) in zip(sites, propertyPaths) {
            for m in s.stack.members {
                let layer = cache.layers[m.layer]
                guard let spec = layer.specs[path] else { continue }
                if specType == nil { specType = spec.type }
                // The strongest spec decides the kind, so only that kind's metadata is kept.
                let isRelationship = specType == .relationship
                var hasValue = false
                defer { if hasValue { valueDecided = true } }
                for (key, value) in spec.fields {
                    switch key {
                    case "typeName": if attr.typeName.isEmpty, let t = value.token { attr.typeName = t }
                    case "variability": if variability == nil, case .variability(let v) = value { variability = v }
                    case "default":
                        hasValue = true
                        if attr.defaultValue == nil {
                            attr.defaultValue = value
                            if !samplesFound { attr.valueLayer = layer.identifier }
                        }
                    case "timeSamples":
                        hasValue = true
                        // The strongest spec with any value opinion decides: a stronger default
                        // (or block) hides weaker samples; in one spec samples beat the default.
                        if !samplesFound, !valueDecided, case .timeSamples(let ts) = value {
                            samplesFound = true
                            let off = s.offset.composed(with: m.offset)
                            attr.timeSamples = SdfTimeSamples(times: ts.times.map(off.apply), values: ts.values)
                            attr.valueLayer = layer.identifier
                        }
                    case "connectionPaths", "targetPaths", "custom":
                        break
                    default:
                        if isRelationship {
                            if relMeta[key] == nil { relMeta[key] = value }
                        } else if attr.metadata[key] == nil {
                            attr.metadata[key] = value
                        }
                    }
                }
            }
        }
        // List ops: weakest applied first, each mapped into stage namespace.
        for (s, path) in zip(sites, propertyPaths).reversed() {
            for m in s.stack.members.reversed() {
                guard let spec = cache.layers[m.layer].specs[path] else { continue }
                if case .pathListOp(let op)? = spec.fields["connectionPaths"] {
                    connections = Self.mapped(op, s).applied(to: connections)
                }
                if case .pathListOp(let op)? = spec.fields["targetPaths"] {
                    targets = Self.mapped(op, s).applied(to: targets)
                }
            }
        }
        if specType == .relationship {
            prim.relationships[name] = UsdRelationship(name: name, targets: targets, metadata: relMeta)
        } else {
            attr.variability = variability ?? .varying
            attr.connections = connections
            prim.attributes[name] = attr
        }
    }

    static func mapped(_ op: SdfListOp<SdfPath>, _ site: PrimIndex.Node) -> SdfListOp<SdfPath> {
        func m(_ a: [SdfPath]) -> [SdfPath] { a.compactMap { site.mapToStage($0) } }
        var out = op
        out.explicitItems = m(op.explicitItems)
        out.addedItems = m(op.addedItems)
        out.prependedItems = m(op.prependedItems)
        out.appendedItems = m(op.appendedItems)
        out.deletedItems = m(op.deletedItems)
        out.orderedItems = m(op.orderedItems)
        return out
    }
}
