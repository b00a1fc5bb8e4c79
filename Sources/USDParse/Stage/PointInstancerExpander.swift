import SceneModel

/// Expands a `PointInstancer` into one node per instance, named `<instancer>_<i>`, whose
/// children re-create the prototype subtree (meshes shared, not copied).
///
/// Per instance `i` the transform is `translate(positions[i]) × rotate(orientations[i]) ×
/// scale(scales[i])` (column vectors: scale first; the orientation is used as authored, not
/// normalised, as usd-core does), and the prototype root's own transform stays on the
/// re-created root node (UsdGeom's "include prototype transform"). Instances are
/// dropped when their id (`ids[i]`, else `i`) is in `invisibleIds` or in the prim's
/// `inactiveIds` metadata, or when `protoIndices[i]` names no usable prototype. Velocities and
/// accelerations are not applied. Attributes authored only as time samples are read at the
/// stage's `startTimeCode` (else the earliest sample), like the rest of the scene. Limits:
/// instances and created nodes are capped by `maxComposedPrims`, instanced triangles by
/// `maxTriangles` (`USD_LIMIT_EXCEEDED`).
enum PointInstancerExpander {
    static func expand(
        instancerPrim pi: Int, instancerNode: Int, traversal: StageTraversal, countsDrawn: Bool,
        into nodes: inout [Node]
    ) throws {
        let ctx = traversal.ctx
        let prim = ctx.stage.prims[pi]
        let path = prim.path
        guard let data = try InstanceData(prim, ctx: ctx) else { return }

        // Prototype templates, converted once each.
        traversal.instancerDepth += 1
        defer { traversal.instancerDepth -= 1 }
        let (templates, templateTriangles) = try prototypeTemplates(of: prim, traversal: traversal)

        let kept = try survivingInstances(
            data, templates: templates, templateTriangles: templateTriangles, nodeCount: nodes.count, ctx: ctx,
            path: path)
        if countsDrawn { try ctx.addDrawnTriangles(kept.triangles, path: path) }

        nodes.reserveCapacity(nodes.count + kept.newNodes)
        let sourcePath = try ctx.sourcePath(of: path)  // one string shared by every instance node
        for i in kept.instances {
            let template = templates[Int(data.protoIndices[i])]!
            let m = data.transform(of: i, ctx: ctx, path: path)
            let instanceNode = nodes.count
            nodes.append(
                Node(
                    name: "\(prim.name)_\(i)", parent: NodeIndex(instancerNode), localTransform: m,
                    sourcePath: sourcePath))
            let offset = nodes.count
            for var node in template {
                node.parent = NodeIndex(node.parent.map { $0.rawValue + offset } ?? instanceNode)
                nodes.append(node)
            }
        }
    }

    /// The instancer's per-instance attributes, read at the stage's time; optional ones that are
    /// too short are dropped with a warning.
    private struct InstanceData {
        var protoIndices: [Int32]
        var positions: [Float]
        var orientations: [Float]?
        var scales: [Float]?
        var ids: [Int64]?
        /// Ids of the instances not drawn (`invisibleIds` and `inactiveIds`).
        var hidden: Set<Int64>

        /// nil (after a warning) when `protoIndices` or `positions` is missing or unusable.
        /// - Throws: `USD_LIMIT_EXCEEDED` when the instances exceed `maxComposedPrims`.
        init?(_ prim: UsdPrim, ctx: StageBuildContext) throws {
            let path = prim.path
            let limits = ctx.limits
            guard let protoIndices = AttributeValues.int32s(prim.value("protoIndices", at: ctx.time)) else {
                ctx.warn("USD_POINTINSTANCER_INVALID", "protoIndices missing or not an int array; no instances", path)
                return nil
            }
            let n = protoIndices.count
            guard n <= limits.maxComposedPrims else {
                throw USDParseError(
                    .limitExceeded, "\(n) instances exceed maxComposedPrims (\(limits.maxComposedPrims))",
                    primPath: path.string)
            }
            guard let positions = AttributeValues.floats(prim.value("positions", at: ctx.time), components: 3), positions.count >= n * 3
            else {
                ctx.warn("USD_POINTINSTANCER_INVALID", "positions missing or shorter than protoIndices; no instances", path)
                return nil
            }
            var orientations =
                AttributeValues.floats(prim.value("orientations", at: ctx.time), components: 4)
                ?? AttributeValues.floats(prim.value("orientationsf", at: ctx.time), components: 4)
            if let o = orientations, o.count < n * 4 {
                ctx.warn("USD_POINTINSTANCER_INVALID", "orientations shorter than protoIndices; ignored", path)
                orientations = nil
            }
            var scales = AttributeValues.floats(prim.value("scales", at: ctx.time), components: 3)
            if let s = scales, s.count < n * 3 {
                ctx.warn("USD_POINTINSTANCER_INVALID", "scales shorter than protoIndices; ignored", path)
                scales = nil
            }
            var ids = PointInstancerExpander.integers(prim.value("ids", at: ctx.time))
            if let i = ids, i.count < n {
                ctx.warn("USD_POINTINSTANCER_INVALID", "ids shorter than protoIndices; ignored", path)
                ids = nil
            }
            var hidden = Set(PointInstancerExpander.integers(prim.value("invisibleIds", at: ctx.time)) ?? [])
            if case .intListOp(let op)? = prim.metadata["inactiveIds"] { hidden.formUnion(op.flattened) }
            self.protoIndices = protoIndices
            self.positions = positions
            self.orientations = orientations
            self.scales = scales
            self.ids = ids
            self.hidden = hidden
        }

        /// Instance `i`'s transform: translate × rotate × scale; identity (after a warning) when
        /// not finite.
        @inline(__always)
        func transform(of i: Int, ctx: StageBuildContext, path: SdfPath) -> Matrix4 {
            var m = Matrix4.translation(
                Double(positions[i * 3]), Double(positions[i * 3 + 1]), Double(positions[i * 3 + 2]))
            if let o = orientations {
                let q = (Double(o[i * 4]), Double(o[i * 4 + 1]), Double(o[i * 4 + 2]), Double(o[i * 4 + 3]))
                if [q.0, q.1, q.2, q.3].allSatisfy({ $0.isFinite }) {
                    m = XformOps.multiply(m, .rotation(quaternionX: q.0, y: q.1, z: q.2, w: q.3, normalizing: false))
                }
            }
            if let s = scales {
                m = XformOps.multiply(m, .scale(Double(s[i * 3]), Double(s[i * 3 + 1]), Double(s[i * 3 + 2])))
            }
            if !m.m.allSatisfy({ $0.isFinite }) {
                ctx.warn("USD_POINTINSTANCER_INVALID", "instance \(i) has a non-finite transform; identity used", path)
                m = .identity
            }
            return m
        }
    }

    /// The node template of each `prototypes` target (nil for one that does not exist or
    /// instances itself) and its triangle count.
    private static func prototypeTemplates(
        of prim: UsdPrim, traversal: StageTraversal
    ) throws -> (templates: [[Node]?], triangles: [Int]) {
        let ctx = traversal.ctx
        let path = prim.path
        let targets = prim.relationships["prototypes"]?.targets ?? []
        var templates: [[Node]?] = []
        var templateTriangles: [Int] = []
        for target in targets {
            guard let protoIndex = ctx.stage.primIndex(at: target) else {
                ctx.warn("USD_POINTINSTANCER_INVALID", "prototype \(target) does not exist", path)
                templates.append(nil)
                templateTriangles.append(0)
                continue
            }
            let template = try traversal.template(for: protoIndex)
            if template == nil {
                ctx.warn(
                    "USD_POINTINSTANCER_INVALID", "prototype \(target) instances itself or nests too deeply; skipped", path)
            }
            templates.append(template)
            templateTriangles.append(
                template?.reduce(0) { $0 + ($1.mesh.map { ctx.triangleCount(of: $0) } ?? 0) } ?? 0)
        }
        return (templates, templateTriangles)
    }

    /// Which instances are drawn (a usable prototype, not hidden), with the triangles and nodes
    /// they add; warns of instances whose prototype is missing.
    /// - Throws: `USD_LIMIT_EXCEEDED` past `maxTriangles` or `maxComposedPrims`.
    private static func survivingInstances(
        _ data: InstanceData, templates: [[Node]?], templateTriangles: [Int], nodeCount: Int,
        ctx: StageBuildContext, path: SdfPath
    ) throws -> (instances: [Int], triangles: Int, newNodes: Int) {
        let limits = ctx.limits
        let n = data.protoIndices.count
        var keep: [Int] = []
        keep.reserveCapacity(n)
        var triangles = 0
        var newNodes = 0
        var badProto = 0
        for i in 0..<n {
            let proto = Int(data.protoIndices[i])
            guard proto >= 0, proto < templates.count, let template = templates[proto] else {
                badProto += 1
                continue
            }
            if !data.hidden.isEmpty && data.hidden.contains(data.ids?[i] ?? Int64(i)) { continue }
            keep.append(i)
            let (t, o1) = triangles.addingReportingOverflow(templateTriangles[proto])
            let (c, o2) = newNodes.addingReportingOverflow(template.count + 1)
            guard !o1, !o2, t <= limits.maxTriangles, nodeCount + c <= limits.maxComposedPrims else {
                throw USDParseError(
                    .limitExceeded,
                    "point instancing exceeds maxTriangles (\(limits.maxTriangles)) "
                        + "or maxComposedPrims (\(limits.maxComposedPrims))",
                    primPath: path.string)
            }
            triangles = t
            newNodes = c
        }
        if badProto > 0 {
            ctx.warn("USD_POINTINSTANCER_INVALID", "\(badProto) instances reference a missing prototype; dropped", path)
        }
        return (keep, triangles, newNodes)
    }

    /// An integer array of any width (`int64[]` ids) as Int64.
    private static func integers(_ value: SdfValue?) -> [Int64]? {
        guard let value, case .array(_, let storage) = value else { return nil }
        return storage.integers
    }
}
