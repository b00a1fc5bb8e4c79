import SceneModel

/// The elements of a scan in the order they are assembled — JSON elements first (file order),
/// then the USD elements no JSON element links to (scene order) — with what the assembly and the
/// measurements need besides: curved walls, floors measured from their USD geometry, and the
/// findings about unmatched, synthesized and unclassified elements.
struct ElementPlan {
    var planned: [PlannedElement] = []
    /// The curve of a planned (curved) wall, by planned index.
    var curveOfPlanned: [Int: CapturedRoom.Curve] = [:]
    /// Planned index → USD element index, for floors measured from their USD geometry.
    var usdFloorRoots: [Int: Int] = [:]
    /// The USD-only elements: planned index and USD element index.
    var usdPlanned: [(planned: Int, usd: Int)] = []
    var unmatchedJSON: [String] = []
    var unmatchedUSD: [String] = []
    var synthesizedCount = 0
    var unclassified = 0
    /// Findings, in the order they were made.
    var warnings: [SceneWarning] = []

    private mutating func warn(_ code: String, _ message: String) {
        warnings.append(SceneWarning(code: code, message: message))
    }

    /// Plans every JSON element: with its linked USD element's geometry, or with geometry built
    /// from the JSON (`hasUSD`: whether a USD scene was given, so that the element counts as
    /// unmatched).
    mutating func addJSONElements(
        _ json: [JSONElement], usd: [USDElement], link: ElementLinker, hasUSD: Bool,
        synthesizer: inout GeometrySynthesizer
    ) {
        for (j, e) in json.enumerated() {
            var el = RoomElement(
                identifier: e.identifier, category: e.category, layer: e.category.layer,
                confidence: e.confidence, dimensions: e.dimensions, transform: e.transform,
                parentIdentifier: e.parentIdentifier, story: e.story, attributes: e.attributes,
                isOpen: e.category == .door ? e.isOpen : nil, geometry: .synthesized, node: NodeIndex(-1),
                polygonCorners: e.polygonCorners)
            if let u = link.usdForJSON[j] {
                let ue = usd[u]
                if let c = ue.category, c != e.category {
                    warn(LayeringWarningCode.categoryMismatch,
                         "\(e.jsonPath) is a \(e.category) but its USD element \(ue.sourcePath) is a \(c); the JSON wins")
                }
                el.sourcePrimPath = ue.sourcePath
                el.geometry = .usd
                if e.polygonCorners.count < 3, e.category == .floor { usdFloorRoots[planned.count] = u }
                planned.append(PlannedElement(element: el, geometry: .usd(root: ue.root, includeDescendants: ue.includeDescendants)))
            } else {
                if hasUSD { unmatchedJSON.append(e.identifier) }
                synthesizedCount += 1
                let mesh = synthesizer.mesh(for: e)
                planned.append(PlannedElement(element: el, geometry: .synthesized(mesh, materialCategory: e.category)))
            }
            if let c = e.curve { curveOfPlanned[planned.count - 1] = c }
        }
    }

    /// Plans the USD elements no JSON element links to, with their USD identity (`hasJSON`:
    /// whether a JSON was given, so that a RoomPlan element counts as unmatched).
    mutating func addUSDOnlyElements(_ usd: [USDElement], link: ElementLinker, hasJSON: Bool) {
        for (u, ue) in usd.enumerated() where link.jsonForUSD[u] == nil {
            let category = ue.category ?? .unclassified
            var dims = ue.dimensions
            if category.isSurface { dims.z = 0 }
            let el = RoomElement(
                identifier: ue.uuid ?? "usd:" + ue.sourcePath, category: category,
                layer: ue.layerOverride ?? category.layer, dimensions: dims, transform: ue.frame,
                isOpen: category == .door ? ue.isOpen : nil, sourcePrimPath: ue.sourcePath, geometry: .usd,
                node: NodeIndex(-1))
            if ue.category == nil {
                if ue.layerOverride == nil { unclassified += 1 }
            } else if hasJSON {
                unmatchedUSD.append(el.identifier)
            }
            if category == .floor { usdFloorRoots[planned.count] = u }
            usdPlanned.append((planned.count, u))
            planned.append(PlannedElement(element: el, geometry: .usd(root: ue.root, includeDescendants: ue.includeDescendants)))
        }
    }

    /// Makes the identifiers unique: a repeated one gets `#2`, `#3`, … (with a warning).
    mutating func makeIdentifiersUnique() {
        var seen: [String: Int] = [:]
        for i in planned.indices {
            let id = planned[i].element.identifier
            if let n = seen[id] {
                var k = n + 1
                while seen["\(id)#\(k)"] != nil { k += 1 }
                seen[id] = k
                planned[i].element.identifier = "\(id)#\(k)"
                seen[planned[i].element.identifier] = 1
                warn(LayeringWarningCode.duplicateIdentifier, "identifier \(id) is used more than once; renamed \(id)#\(k)")
            } else {
                seen[id] = 1
            }
        }
    }

    /// The curved walls' curves by element identifier.
    func curves() -> [String: CapturedRoom.Curve] {
        var curves: [String: CapturedRoom.Curve] = [:]
        for (p, c) in curveOfPlanned { curves[planned[p].element.identifier] = c }
        return curves
    }

    /// Gives each USD-only element whose USD element has a host the host's identifier as its
    /// parent.
    mutating func linkHosts(usd: [USDElement], link: ElementLinker) {
        var identifierOfUSD = [String?](repeating: nil, count: usd.count)
        for (j, u) in link.usdForJSON.enumerated() { if let u { identifierOfUSD[u] = planned[j].element.identifier } }
        for (p, u) in usdPlanned { identifierOfUSD[u] = planned[p].element.identifier }
        for (p, u) in usdPlanned {
            if let h = usd[u].hostElement { planned[p].element.parentIdentifier = identifierOfUSD[h] }
        }
    }

    /// Area and perimeter of the floors measured from their USD geometry, by element identifier.
    func floorMeasures(index: SourceSceneIndex, usd: [USDElement]) -> [String: (area: Double, perimeter: Double)] {
        var floorMeasures: [String: (area: Double, perimeter: Double)] = [:]
        for (p, u) in usdFloorRoots {
            if let m = index.horizontalMeasure(of: usd[u].root, includeDescendants: usd[u].includeDescendants) {
                floorMeasures[planned[p].element.identifier] = m
            }
        }
        return floorMeasures
    }

    /// The findings with counts: unmatched elements both ways, synthesized geometry and
    /// unclassified meshes.
    mutating func reportFindings() {
        func list(_ ids: [String]) -> String {
            ids.count <= 20 ? ids.joined(separator: ", ") : ids.prefix(20).joined(separator: ", ") + ", …"
        }
        if !unmatchedJSON.isEmpty {
            warn(LayeringWarningCode.jsonElementUnmatched,
                 "\(unmatchedJSON.count) JSON elements have no USD element: \(list(unmatchedJSON))")
        }
        if !unmatchedUSD.isEmpty {
            warn(LayeringWarningCode.usdElementUnmatched,
                 "\(unmatchedUSD.count) USD elements have no JSON element: \(list(unmatchedUSD))")
        }
        if synthesizedCount > 0 {
            warn(LayeringWarningCode.geometrySynthesized, "\(synthesizedCount) elements have geometry built from the JSON")
        }
        if unclassified > 0 {
            warn(LayeringWarningCode.unclassifiedGeometry,
                 "\(unclassified) USD meshes have no RoomPlan identity; they are in the unclassified layer")
        }
    }
}
