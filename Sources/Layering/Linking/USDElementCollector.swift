import SceneModel

/// An element found in the USD scene, before linking.
struct USDElement {
    /// RoomPlan UUID (uppercase) from the element layer's root `customData`.
    var uuid: String?
    /// Canonical category (`wall`, `chair`, …); nil for unclassified geometry.
    var category: ElementCategory?
    var isOpen: Bool?
    /// Node whose subtree (or only itself) is the element's geometry.
    var root: Int
    var includeDescendants: Bool
    var sourcePath: String
    /// Element frame in world space (scale removed for RoomPlan elements).
    var frame: Matrix4
    /// Size of the geometry's bounds in `frame`.
    var dimensions: SIMD3<Double>
    /// True when the identity came from `customData` (Category/UUID).
    var hasIdentity: Bool
    /// Index (in the collector's list) of the wall of the same `Wall_<i>_grp` group, for doors,
    /// windows and openings.
    var hostElement: Int?
    /// `group.<name>` for the non-RoomPlan rule.
    var layerOverride: LayerID?
}

/// Finds the elements of a USD scene.
///
/// RoomPlan scenes, in this order:
/// 1. identity: every node with RoomPlan identity (`UUID`/`Category` in the root `customData` of a
///    layer referenced onto it — `Node.referencedCustomData`, one dictionary per layer — or in its
///    own `customData`) owns one element per identity. Each identity is mapped to one child of the
///    node that draws geometry (the element layer's root prim is grafted onto the group, so its
///    gprim, named like the layer's root prim — `Wall0`, `Door1` — is a child): first by the JSON
///    transform of that UUID when the JSON has it (origin and rotation within the linking
///    tolerances), then by category and name order (`Door1` before `Door2`, in reference order),
///    then to a remaining child whose name has no category;
/// 2. names: a not-yet-claimed child of a `*_grp` group that draws geometry and whose name
///    (`Wall0`, `Storage2`) or group (`Walls_grp`, `Chair_grp`) names a category (SceneKit
///    re-exports carry no customData);
/// 3. every other node drawing a mesh becomes one unclassified element (that node only).
struct USDElementCollector {
    let index: SourceSceneIndex
    let options: LayeringOptions
    /// JSON transforms by uppercase identifier, to disambiguate children of one group.
    let jsonFrames: [String: Matrix4]
    private(set) var elements: [USDElement] = []
    private(set) var warnings: [SceneWarning] = []
    private var covered: [Bool]
    private(set) var identityFound = false
    /// Most identity × child pairs compared by transform in one group.
    static let maxGuidedPairs = 1_000_000

    init(index: SourceSceneIndex, options: LayeringOptions, jsonFrames: [String: Matrix4]) {
        self.index = index
        self.options = options
        self.jsonFrames = jsonFrames
        self.covered = [Bool](repeating: false, count: index.scene.nodes.count)
    }

    struct Identity {
        var uuid: String?
        var category: ElementCategory?
        var isOpen: Bool?
    }

    static func identity(_ d: [String: MetadataValue]) -> Identity? {
        let uuid = d["UUID"]?.stringValue?.trimmingSpaces.uppercased()
        let raw = d["Category"]?.stringValue
        guard (uuid?.isEmpty == false) || raw != nil else { return nil }
        let parsed = raw.map(RoomPlanNames.parseUSDCategory)
        return Identity(uuid: uuid?.isEmpty == false ? uuid : nil, category: parsed?.category, isOpen: parsed?.isOpen)
    }

    /// Identities on a node: one per referenced layer with identity, else the node's own.
    static func identities(of node: Node) -> [Identity] {
        let referenced = node.referencedCustomData.compactMap(identity)
        if !referenced.isEmpty { return referenced }
        return identity(node.customData).map { [$0] } ?? []
    }

    /// Whether the scene has RoomPlan identity or RoomPlan group names.
    static func looksLikeRoomPlan(_ index: SourceSceneIndex) -> (identity: Bool, names: Bool) {
        var identity = false, names = false
        for i in index.preorder {
            let node = index.node(i)
            if !identity, !identities(of: node).isEmpty { identity = true }
            if !names, RoomPlanNames.structuralGroups.contains(node.name) { names = true }
            if identity && names { break }
        }
        return (identity, names)
    }

    // MARK: RoomPlan

    mutating func collectRoomPlan() {
        for n in index.preorder where !covered[n] {
            let ids = Self.identities(of: index.node(n))
            guard !ids.isEmpty else { continue }
            identityFound = true
            assign(ids, group: n)
        }
        for n in index.preorder where !covered[n] && index.hasGeometry[n] {
            guard let p = index.parent(of: n), index.node(p).name.hasSuffix("_grp") else { continue }
            guard let cat = RoomPlanNames.category(ofPrimName: index.node(n).name)
                ?? RoomPlanNames.category(ofGroupName: index.node(p).name)
            else { continue }
            add(root: n, includeDescendants: true, uuid: nil, category: cat, isOpen: nil, identity: false, removeScale: true)
        }
        collectUnclassified()
    }

    private mutating func assign(_ ids: [Identity], group n: Int) {
        let groupCategory = RoomPlanNames.category(ofGroupName: index.node(n).name)
        let candidates = index.children[n].filter { index.hasGeometry[$0] && !covered[$0] }
        if candidates.isEmpty, index.mesh(of: n) != nil, ids.count == 1 {
            // Flattened file: the identity prim draws itself.
            let id = ids[0]
            add(root: n, includeDescendants: true, uuid: id.uuid, category: id.category ?? groupCategory
                    ?? RoomPlanNames.category(ofPrimName: index.node(n).name),
                isOpen: id.isOpen, identity: true, removeScale: true)
            return
        }
        let childCategory = candidates.map { RoomPlanNames.category(ofPrimName: index.node($0).name) }
        let entryCategory = ids.map { $0.category ?? groupCategory }
        var chosen = [Int?](repeating: nil, count: ids.count)  // index into candidates
        var taken = [Bool](repeating: false, count: candidates.count)
        func compatible(_ e: Int, _ c: Int) -> Bool {
            guard let ec = entryCategory[e], let cc = childCategory[c] else { return true }
            return ec == cc
        }
        // 1. By the JSON transform of the UUID (skipped for huge groups: quadratic).
        var pairs: [(cost: Double, e: Int, c: Int)] = []
        if ids.count * candidates.count <= Self.maxGuidedPairs {
            for (e, id) in ids.enumerated() {
                guard let uuid = id.uuid, let t = jsonFrames[uuid] else { continue }
                for c in candidates.indices where compatible(e, c) {
                    let f = index.world[candidates[c]].removingScale
                    let d = t.translation - f.translation
                    let plan = (d.x * d.x + d.z * d.z).squareRoot()
                    let angle = t.rotationAngle(to: f)
                    guard plan <= options.planTolerance, abs(d.y) <= options.verticalTolerance,
                          angle <= options.rotationToleranceDegrees * Double.pi / 180
                    else { continue }
                    pairs.append((plan + abs(d.y) * 0.5 + angle * 0.5, e, c))
                }
            }
        }
        pairs.sort { ($0.cost, $0.e, $0.c) < ($1.cost, $1.e, $1.c) }
        for p in pairs where chosen[p.e] == nil && !taken[p.c] {
            chosen[p.e] = p.c
            taken[p.c] = true
        }
        // 2. By category, then name order (Door1 before Door2), in reference order; 3. remaining
        // identities take children whose names carry no category. Queues keep this linear.
        let byName = candidates.indices.sorted {
            let a = index.node(candidates[$0]).name, b = index.node(candidates[$1]).name
            let oa = RoomPlanNames.ordinal(ofPrimName: a) ?? Int.max, ob = RoomPlanNames.ordinal(ofPrimName: b) ?? Int.max
            return (oa, a, candidates[$0]) < (ob, b, candidates[$1])
        }
        var queues: [ElementCategory: [Int]] = [:]
        var unnamed: [Int] = []
        for c in byName where !taken[c] {
            if let cat = childCategory[c] { queues[cat, default: []].append(c) } else { unnamed.append(c) }
        }
        var heads: [ElementCategory: Int] = [:]
        for e in ids.indices where chosen[e] == nil {
            guard let ec = entryCategory[e], let q = queues[ec] else { continue }
            let h = heads[ec] ?? 0
            if h < q.count {
                chosen[e] = q[h]
                taken[q[h]] = true
                heads[ec] = h + 1
            }
        }
        var unnamedHead = 0
        for e in ids.indices where chosen[e] == nil && unnamedHead < unnamed.count {
            chosen[e] = unnamed[unnamedHead]
            taken[unnamed[unnamedHead]] = true
            unnamedHead += 1
        }
        var wallElement: Int?
        var hosted: [Int] = []
        for (e, id) in ids.enumerated() {
            guard let c = chosen[e] else {
                warnings.append(SceneWarning(
                    code: LayeringWarningCode.elementWithoutGeometry,
                    message: "element \(id.uuid ?? "without UUID") referenced onto the group has no geometry child",
                    primPath: index.node(n).sourcePath))
                continue
            }
            let cat = entryCategory[e] ?? childCategory[c]
            add(root: candidates[c], includeDescendants: true, uuid: id.uuid, category: cat, isOpen: id.isOpen,
                identity: true, removeScale: true)
            if cat == .wall, wallElement == nil { wallElement = elements.count - 1 }
            if cat == .door || cat == .window || cat == .opening { hosted.append(elements.count - 1) }
        }
        if let w = wallElement { for h in hosted { elements[h].hostElement = w } }
    }

    private mutating func collectUnclassified() {
        for n in index.preorder where !covered[n] && index.mesh(of: n) != nil {
            add(root: n, includeDescendants: false, uuid: nil, category: nil, isOpen: nil, identity: false,
                removeScale: false)
        }
    }

    // MARK: Non-RoomPlan rule

    /// Each child of the default prim (or of the only root; or each root when there are several
    /// and no default prim) that draws geometry becomes layer `group.<name>`, with one element per
    /// child of it that draws geometry (itself when it has no such child; its own mesh, if any, as
    /// one more element). A mesh on the container itself becomes layer `group.<container>`.
    mutating func collectGeneric() {
        var container: Int?
        if let dp = index.scene.metadata.defaultPrim, let r = index.roots.first(where: { index.node($0).name == dp }) {
            container = r
        } else if index.roots.count == 1 {
            container = index.roots[0]
        }
        if let c = container, index.mesh(of: c) != nil {
            add(root: c, includeDescendants: false, uuid: nil, category: nil, isOpen: nil, identity: false,
                removeScale: false, layer: .group(LayerID.safeName(index.node(c).name)))
        }
        let tops = container.map { index.children[$0] } ?? index.roots
        for t in tops where index.hasGeometry[t] {
            let layer = LayerID.group(LayerID.safeName(index.node(t).name))
            let kids = index.children[t].filter { index.hasGeometry[$0] }
            if kids.isEmpty {
                add(root: t, includeDescendants: true, uuid: nil, category: nil, isOpen: nil, identity: false,
                    removeScale: false, layer: layer)
                continue
            }
            if index.mesh(of: t) != nil {
                add(root: t, includeDescendants: false, uuid: nil, category: nil, isOpen: nil, identity: false,
                    removeScale: false, layer: layer)
            }
            for k in kids {
                add(root: k, includeDescendants: true, uuid: nil, category: nil, isOpen: nil, identity: false,
                    removeScale: false, layer: layer)
            }
        }
    }

    // MARK: Sections

    /// `Section_grp/<label><n>` transforms (iOS 17 exports): labels and world centres.
    func sections() -> [RoomSection] {
        var out: [RoomSection] = []
        for n in index.preorder where index.node(n).name == "Section_grp" {
            for c in index.children[n] where !index.node(c).name.hasSuffix("_centerTop") && !index.hasGeometry[c] {
                out.append(RoomSection(
                    label: RoomPlanNames.sectionLabel(ofPrimName: index.node(c).name), center: index.world[c].translation))
            }
        }
        return out
    }

    // MARK: Helpers

    private mutating func add(
        root: Int, includeDescendants: Bool, uuid: String?, category: ElementCategory?, isOpen: Bool?, identity: Bool,
        removeScale: Bool, layer: LayerID? = nil
    ) {
        let world = index.world[root]
        let frame = (removeScale ? world.removingScale : world).sanitizedFrame
        let measureFrame = frame.removingScale.sanitizedFrame
        let b = index.bounds(of: root, includeDescendants: includeDescendants,
                             frameInverse: measureFrame.inverse ?? .identity)
        elements.append(USDElement(
            uuid: uuid, category: category, isOpen: isOpen, root: root, includeDescendants: includeDescendants,
            sourcePath: index.node(root).sourcePath.isEmpty ? "#\(root)" : index.node(root).sourcePath, frame: frame,
            dimensions: b.size, hasIdentity: identity, hostElement: nil, layerOverride: layer))
        if includeDescendants {
            for i in index.subtree(root) { covered[i] = true }
        } else {
            covered[root] = true
        }
    }
}
