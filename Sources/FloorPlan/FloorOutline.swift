import SceneModel

/// The outline of a floor that has a mesh but no polygon (a USD-only RoomPlan export): the
/// largest boundary loop of its triangles seen from above, after welding corners closer than
/// 0.1 mm. Triangles with a corner outside the plan's extent (`PlanGeometry.maxExtent`) are
/// skipped. Work is linear in the triangle count, capped at `maxTriangles`.
enum FloorOutline {
    static let maxTriangles = 200_000
    static let weld = 1e-4

    static func polygon(_ layered: LayeredScene, node: NodeIndex, world: [Matrix4]) -> [SIMD2<Double>]? {
        let scene = layered.scene
        guard node.rawValue >= 0, node.rawValue < scene.nodes.count else { return nil }
        // The element's subtree (parents precede nothing in particular: walk parent links).
        var inSubtree = [Bool](repeating: false, count: scene.nodes.count)
        inSubtree[node.rawValue] = true
        for i in scene.nodes.indices {
            var p = scene.nodes[i].parent, depth = 0
            while let q = p, q.rawValue >= 0, q.rawValue < scene.nodes.count, depth < 64 {
                if q == node { inSubtree[i] = true; break }
                p = scene.nodes[q.rawValue].parent
                depth += 1
            }
        }
        var ids: [SIMD2<Int64>: Int] = [:]
        var points: [SIMD2<Double>] = []
        func vertex(_ q: SIMD2<Double>) -> Int {
            let key = SIMD2(Int64((q.x / weld).rounded()), Int64((q.y / weld).rounded()))
            if let i = ids[key] { return i }
            ids[key] = points.count
            points.append(q)
            return points.count - 1
        }
        var directed = Set<SIMD2<Int>>()
        var triangles = 0
        for i in scene.nodes.indices where inSubtree[i] {
            guard let mi = scene.nodes[i].mesh, mi.rawValue >= 0, mi.rawValue < scene.meshes.count else { continue }
            let mesh = scene.meshes[mi.rawValue], w = world[i]
            var t = 0
            while t + 2 < mesh.indices.count, triangles < maxTriangles {
                let corner = (0..<3).compactMap { k -> SIMD2<Double>? in
                    let v = Int(mesh.indices[t + k])
                    guard v < mesh.vertexCount else { return nil }
                    let p = w.transformPoint(SIMD3(Double(mesh.positions[3 * v]), Double(mesh.positions[3 * v + 1]), Double(mesh.positions[3 * v + 2])))
                    // Within the plan's extent (and so finite, and exact as a weld-grid key).
                    return abs(p.x) < PlanGeometry.maxExtent && abs(p.z) < PlanGeometry.maxExtent ? SIMD2(p.x, p.z) : nil
                }
                t += 3
                triangles += 1
                guard corner.count == 3 else { continue }
                let area = Polygon2D.turn(corner[0], corner[1], corner[2])
                guard abs(area) > 1e-8 else { continue }
                var v = corner.map(vertex)
                if area < 0 { v.reverse() }
                guard v[0] != v[1], v[1] != v[2], v[0] != v[2] else { continue }
                for k in 0..<3 { directed.insert(SIMD2(v[k], v[(k + 1) % 3])) }
            }
        }
        // Boundary: directed edges whose reverse no triangle has.
        var next: [Int: Int] = [:]
        for e in directed where !directed.contains(SIMD2(e.y, e.x)) { next[e.x] = e.y }
        var seen = Set<Int>()
        var best: [SIMD2<Double>] = []
        for start in next.keys.sorted() where !seen.contains(start) {
            var loop: [SIMD2<Double>] = []
            var cur = start
            while !seen.contains(cur), let n = next[cur], loop.count <= next.count {
                seen.insert(cur)
                loop.append(points[cur])
                cur = n
            }
            if cur == start, loop.count >= 3, abs(Polygon2D.signedArea(loop)) > abs(Polygon2D.signedArea(best)) { best = loop }
        }
        return best.count >= 3 ? best : nil
    }
}
