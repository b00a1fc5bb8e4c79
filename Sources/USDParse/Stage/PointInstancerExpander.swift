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
        let stage = ctx.stage
        let prim = stage.prims[pi]
        let path = prim.path
        let limits = ctx.limits

        guard let protoIndices = AttributeValues.int32s(prim.value("protoIndices", at: ctx.time)) else {
            ctx.warn("USD_POINTINSTANCER_INVALID", "protoIndices missing or not an int array; no instances", path)
            return
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
            return
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
        var ids = integers(prim.value("ids", at: ctx.time))
        if let i = ids, i.count < n {
            ctx.warn("USD_POINTINSTANCER_INVALID", "ids shorter than protoIndices; ignored", path)
            ids = nil
        }
        var hidden = Set(integers(prim.value("invisibleIds", at: ctx.time)) ?? [])
        if case .intListOp(let op)? = prim.metadata["inactiveIds"] { hidden.formUnion(op.flattened) }

        // Prototype templates, converted once each.
        let targets = prim.relationships["prototypes"]?.targets ?? []
        var templates: [[Node]?] = []
        var templateTriangles: [Int] = []
        traversal.instancerDepth += 1
        defer { traversal.instancerDepth -= 1 }
        for target in targets {
            guard let protoIndex = stage.primIndex(at: target) else {
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

        // Which instances survive, and what they cost.
        var keep: [Int] = []
        keep.reserveCapacity(n)
        var triangles = 0
        var newNodes = 0
        var badProto = 0
        for i in 0..<n {
            let proto = Int(protoIndices[i])
            guard proto >= 0, proto < templates.count, let template = templates[proto] else {
                badProto += 1
                continue
            }
            if !hidden.isEmpty && hidden.contains(ids?[i] ?? Int64(i)) { continue }
            keep.append(i)
            let (t, o1) = triangles.addingReportingOverflow(templateTriangles[proto])
            let (c, o2) = newNodes.addingReportingOverflow(template.count + 1)
            guard !o1, !o2, t <= limits.maxTriangles, nodes.count + c <= limits.maxComposedPrims else {
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
        if countsDrawn { try ctx.addDrawnTriangles(triangles, path: path) }

        nodes.reserveCapacity(nodes.count + newNodes)
        let sourcePath = try ctx.sourcePath(of: path)  // one string shared by every instance node
        for i in keep {
            let template = templates[Int(protoIndices[i])]!
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

    /// An integer array of any width (`int64[]` ids) as Int64.
    private static func integers(_ value: SdfValue?) -> [Int64]? {
        guard let value, case .array(_, let storage) = value else { return nil }
        return storage.integers
    }
}
