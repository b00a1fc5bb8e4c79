import SceneModel

/// Walks composed prims depth-first (pre-order, composed child order, an explicit stack, so deep
/// hierarchies cannot exhaust the call stack) and emits one scene node per kept prim.
///
/// Kept: Xform, Scope, typeless groups, SkelRoot, Mesh, the implicit gprims, PointInstancer and
/// prims of unknown type that have children (as groups). Skipped with their subtree: `class`
/// prims, inactive prims, `purpose` guide/proxy, `visibility = invisible` (both inherited by
/// skipping the subtree), Material/Shader/NodeGraph/GeomSubset and other non-imageable schemas
/// (physics, render settings, AR behaviours) silently; lights, cameras, skeleton prims,
/// unsupported geometry (curves, points, volumes…) and childless prims of unknown type with a
/// `USD_PRIM_UNSUPPORTED_TYPE` warning. A PointInstancer's own children are drawn only through its
/// instances. `over` prims are treated like `def` (the composed specifier of a referenced prim
/// can be `over`).
final class StageTraversal {
    let ctx: StageBuildContext
    /// Prototype subtrees converted once, by prototype prim index.
    var templates: [Int: [Node]] = [:]
    /// Prototypes being converted (guards against prototypes that instance themselves).
    var expanding: Set<Int> = []
    /// Nesting of PointInstancer expansion.
    var instancerDepth = 0
    static let maxInstancerDepth = 8

    init(ctx: StageBuildContext) { self.ctx = ctx }

    /// What to do with a prim.
    enum Role {
        case group, xformGroup, mesh, gprim, instancer, skip
        case unsupported(String)

        var isXformable: Bool {
            switch self {
            case .xformGroup, .mesh, .gprim, .instancer: return true
            default: return false
            }
        }
    }

    /// Types that are not drawn and never hold drawable children.
    static let silentSkips: Set<String> = ["Material", "Shader", "NodeGraph", "GeomSubset"]
    /// Skipped prefixes of schema families that are never drawn (physics, rendering setup, AR).
    static let silentSkipPrefixes = ["Physics", "Render", "RealityKit", "Preliminary_"]
    static let unsupportedGeometry: Set<String> = [
        "BasisCurves", "Points", "NurbsCurves", "NurbsPatch", "HermiteCurves", "TetMesh", "Volume", "OpenVDBAsset",
        "Field3DAsset",
    ]

    static func role(of prim: UsdPrim) -> Role {
        let t = prim.typeName
        switch t {
        case "", "Scope": return .group
        case "Xform", "SkelRoot": return .xformGroup
        case "Mesh": return .mesh
        case "PointInstancer": return .instancer
        default: break
        }
        if GprimTessellator.types.contains(t) { return .gprim }
        if silentSkips.contains(t) || silentSkipPrefixes.contains(where: { t.hasPrefix($0) }) { return .skip }
        if unsupportedGeometry.contains(t) { return .unsupported("\(t) geometry is not converted") }
        if t.hasSuffix("Light") || t.hasSuffix("LightFilter") { return .unsupported("lights are not converted") }
        if t == "Camera" { return .unsupported("cameras are not converted") }
        if t == "Skeleton" || t == "SkelAnimation" || t == "BlendShape" {
            return .unsupported("skeletal data is not applied; meshes keep their bind pose")
        }
        return prim.children.isEmpty ? .unsupported("unknown prim type \(t)") : .xformGroup
    }

    private struct Frame {
        var prim: Int
        var parent: Int?
        var parentWorld: Matrix4
    }

    /// Emits the subtrees rooted at `roots` into `nodes` (parents before children). Roots get
    /// `parent = nil`; `correction` (unit and up-axis fix) is pre-multiplied onto root transforms
    /// and into the frame used by `!resetXformStack!`. `prototype` mode (instancer templates)
    /// keeps a `class` root, ignores `!resetXformStack!` and does not count drawn triangles.
    func emit(roots: [Int], correction: Matrix4, prototype: Bool, into nodes: inout [Node]) throws {
        let stage = ctx.stage
        var stack: [Frame] = roots.reversed().map { Frame(prim: $0, parent: nil, parentWorld: .identity) }
        var visited = Set<Int>()
        while let frame = stack.popLast() {
            let pi = frame.prim
            guard pi > 0, pi < stage.prims.count, visited.insert(pi).inserted else { continue }
            let prim = stage.prims[pi]
            let isRoot = frame.parent == nil
            if prim.specifier == .class && !(prototype && isRoot) { continue }
            if !prim.isActive { continue }
            if let purpose = prim.token("purpose"), purpose == "guide" || purpose == "proxy" { continue }
            if AttributeValues.token(prim.value("visibility", at: ctx.time)) == "invisible" { continue }
            let role = StageTraversal.role(of: prim)
            switch role {
            case .skip: continue
            case .unsupported(let why):
                ctx.warn("USD_PRIM_UNSUPPORTED_TYPE", why, prim.path)
                continue
            default: break
            }

            // Transform (Scope and typeless prims are not xformable).
            var local = Matrix4.identity
            var resets = false
            if role.isXformable {
                var findings: [XformOps.Finding] = []
                let xf = XformOps.localTransform(of: prim, time: ctx.time, findings: &findings)
                for f in findings { ctx.warn(f.code, f.message, prim.path) }
                local = xf.matrix
                resets = xf.resetsXformStack && !prototype
            }
            if resets {
                let world = XformOps.multiply(correction, local)
                if isRoot {
                    local = world
                } else if let inverse = frame.parentWorld.inverse {
                    local = XformOps.multiply(inverse, world)
                } else {
                    ctx.warn(
                        "USD_XFORM_RESET_SINGULAR_PARENT", "parent transform is singular; !resetXformStack! ignored",
                        prim.path)
                }
            } else if isRoot {
                local = XformOps.multiply(correction, local)
            }
            let world = XformOps.multiply(frame.parentWorld, local)

            var node = Node(
                name: prim.name, parent: frame.parent.map(NodeIndex.init), localTransform: local,
                sourcePath: try ctx.sourcePath(of: prim.path), sourceType: prim.typeName, kind: prim.kind)
            node.customData = MetadataConversion.dictionary(prim.customData)
            node.referencedCustomData = prim.referencedLayerCustomData.map { MetadataConversion.dictionary($0) }
            for referenced in node.referencedCustomData {
                for (k, v) in referenced where node.customData[k] == nil { node.customData[k] = v }
            }
            switch role {
            case .mesh, .gprim:
                if let mesh = try mesh(for: pi, role: role) {
                    node.mesh = mesh
                    if !prototype {
                        try ctx.addDrawnTriangles(ctx.triangleCount(of: mesh), path: prim.path)
                    }
                }
            default: break
            }
            guard nodes.count < ctx.limits.maxComposedPrims else {
                throw USDParseError(
                    .limitExceeded, "more than maxComposedPrims (\(ctx.limits.maxComposedPrims)) scene nodes",
                    primPath: prim.path.string)
            }
            nodes.append(node)
            let nodeIndex = nodes.count - 1

            if case .instancer = role {
                try PointInstancerExpander.expand(
                    instancerPrim: pi, instancerNode: nodeIndex, traversal: self, countsDrawn: !prototype, into: &nodes)
                continue  // prototypes below the instancer are drawn through its instances only
            }
            for child in prim.children.reversed() {
                stack.append(Frame(prim: child, parent: nodeIndex, parentWorld: world))
            }
        }
    }

    /// The mesh of a Mesh or gprim prim, converted once and shared by every node that uses it.
    private func mesh(for primIndex: Int, role: Role) throws -> MeshIndex? {
        if let cached = ctx.meshByPrim[primIndex] { return cached }
        let result: MeshIndex?
        if case .mesh = role {
            result = try MeshExtractor.extract(primIndex: primIndex, ctx: ctx)
        } else {
            result = try GprimTessellator.extract(primIndex: primIndex, ctx: ctx)
        }
        ctx.meshByPrim[primIndex] = .some(result)
        return result
    }

    /// The nodes of a prototype subtree (template root has `parent = nil`), converted once.
    func template(for prototype: Int) throws -> [Node]? {
        if let t = templates[prototype] { return t }
        guard !expanding.contains(prototype), instancerDepth < StageTraversal.maxInstancerDepth else { return nil }
        expanding.insert(prototype)
        defer { expanding.remove(prototype) }
        var nodes: [Node] = []
        try emit(roots: [prototype], correction: .identity, prototype: true, into: &nodes)
        templates[prototype] = nodes
        return nodes
    }
}
