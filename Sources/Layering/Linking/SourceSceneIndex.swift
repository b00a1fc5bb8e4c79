import SceneModel

/// Hierarchy facts of the input scene computed once: children, roots, a pre-order walk, world
/// transforms, which subtrees draw something, and mesh bounds. Tolerates scenes that
/// `SceneValidator` would reject: out-of-range parents make a node a root, out-of-range meshes are
/// ignored, and nodes on a parent cycle are never reached.
struct SourceSceneIndex {
    let scene: Scene
    let children: [[Int]]
    let roots: [Int]
    /// Reachable nodes, parents before children, children in array order.
    let preorder: [Int]
    let world: [Matrix4]
    /// The node or one of its descendants draws a valid mesh.
    let hasGeometry: [Bool]
    /// Local bounds of every mesh.
    let meshBounds: [Bounds]

    /// - Throws: `ROOMPLAN_LIMIT_EXCEEDED` when the scene has more than `maxNodes` nodes.
    init(_ scene: Scene, maxNodes: Int) throws {
        guard scene.nodes.count <= maxNodes else {
            throw LayeringError.limit("scene has \(scene.nodes.count) nodes; the limit is \(maxNodes) (maxSceneNodes)", at: nil)
        }
        self.scene = scene
        let n = scene.nodes.count
        var children = [[Int]](repeating: [], count: n)
        var roots: [Int] = []
        for (i, node) in scene.nodes.enumerated() {
            if let p = node.parent?.rawValue, p >= 0, p < n, p != i {
                children[p].append(i)
            } else {
                roots.append(i)
            }
        }
        var preorder: [Int] = []
        preorder.reserveCapacity(n)
        var world = [Matrix4](repeating: .identity, count: n)
        var seen = [Bool](repeating: false, count: n)
        var stack: [(node: Int, parentWorld: Matrix4)] = roots.reversed().map { ($0, .identity) }
        while let (i, parentWorld) = stack.popLast() {
            guard !seen[i] else { continue }
            seen[i] = true
            preorder.append(i)
            let local = scene.nodes[i].localTransform
            let w = local.m.count == 16 ? parentWorld * local : parentWorld
            world[i] = w
            for c in children[i].reversed() { stack.append((c, w)) }
        }
        var hasGeometry = [Bool](repeating: false, count: n)
        for i in preorder.reversed() {
            if let m = scene.nodes[i].mesh?.rawValue, m >= 0, m < scene.meshes.count { hasGeometry[i] = true }
            if hasGeometry[i], let p = scene.nodes[i].parent?.rawValue, p >= 0, p < n, p != i { hasGeometry[p] = true }
        }
        self.children = children
        self.roots = roots
        self.preorder = preorder
        self.world = world
        self.hasGeometry = hasGeometry
        self.meshBounds = scene.meshes.map { Bounds.of(positions: $0.positions) }
    }

    func node(_ i: Int) -> Node { scene.nodes[i] }

    /// The node's own valid mesh.
    func mesh(of i: Int) -> Int? {
        guard let m = scene.nodes[i].mesh?.rawValue, m >= 0, m < scene.meshes.count else { return nil }
        return m
    }

    func parent(of i: Int) -> Int? {
        guard let p = scene.nodes[i].parent?.rawValue, p >= 0, p < scene.nodes.count, p != i else { return nil }
        return p
    }

    /// The node and its descendants, pre-order (explicit stack).
    func subtree(_ root: Int) -> [Int] {
        var out: [Int] = []
        var stack = [root]
        while let i = stack.popLast() {
            out.append(i)
            stack.append(contentsOf: children[i].reversed())
        }
        return out
    }

    /// Bounds of the meshes of `root` (and its descendants) in the frame whose inverse is `frameInverse`.
    func bounds(of root: Int, includeDescendants: Bool, frameInverse: Matrix4) -> Bounds {
        var b = Bounds.empty
        for i in includeDescendants ? subtree(root) : [root] {
            guard let m = mesh(of: i) else { continue }
            b.include(meshBounds[m].transformed(by: frameInverse * world[i]))
        }
        return b
    }

    /// Area of the horizontal triangles of a floor's meshes projected on the plan (XZ), and the
    /// length of their boundary. Counts the larger of the up- and down-facing sets, so a prism
    /// (top and bottom) and a single-sided surface both give the floor's area once.
    func horizontalMeasure(of root: Int, includeDescendants: Bool) -> (area: Double, perimeter: Double)? {
        var area: [Double] = [0, 0]
        var edges: [[EdgeKey: Int]] = [[:], [:]]
        var edgeLength: [EdgeKey: Double] = [:]
        for i in includeDescendants ? subtree(root) : [root] {
            guard let mi = mesh(of: i) else { continue }
            let mesh = scene.meshes[mi]
            let w = world[i]
            let vc = mesh.positions.count / 3
            var t = 0
            while t + 2 < mesh.indices.count {
                let ids = [Int(mesh.indices[t]), Int(mesh.indices[t + 1]), Int(mesh.indices[t + 2])]
                t += 3
                guard ids.allSatisfy({ $0 < vc }) else { continue }
                let p = ids.map { k in
                    w.transformPoint(SIMD3(Double(mesh.positions[k * 3]), Double(mesh.positions[k * 3 + 1]),
                                           Double(mesh.positions[k * 3 + 2])))
                }
                let e1 = p[1] - p[0], e2 = p[2] - p[0]
                let nrm = SIMD3(e1.y * e2.z - e1.z * e2.y, e1.z * e2.x - e1.x * e2.z, e1.x * e2.y - e1.y * e2.x)
                let len = (nrm * nrm).sum().squareRoot()
                guard len > 1e-12, len.isFinite, abs(nrm.y) / len > 0.9 else { continue }
                let side = nrm.y > 0 ? 0 : 1
                area[side] += abs(nrm.y) / 2
                let keys = p.map { Self.key($0) }
                guard keys.allSatisfy({ $0 != nil }) else { continue }
                for (a, b) in [(0, 1), (1, 2), (2, 0)] {
                    let k = EdgeKey(keys[a]!, keys[b]!)
                    edges[side][k, default: 0] += 1
                    edgeLength[k] = Polygon2D.distance(Plan.point(p[a]), Plan.point(p[b]))
                }
            }
        }
        let side = area[0] >= area[1] ? 0 : 1
        guard area[side] > 0 else { return nil }
        var perimeter = 0.0
        for (k, count) in edges[side] where count == 1 { perimeter += edgeLength[k] ?? 0 }
        return (area[side], perimeter)
    }

    /// A plan point quantized to 1 mm (nil when too far out to quantize).
    private static func key(_ p: SIMD3<Double>) -> SIMD2<Int64>? {
        let x = (p.x * 1000).rounded(), z = (p.z * 1000).rounded()
        guard abs(x) < 9e15, abs(z) < 9e15 else { return nil }
        return SIMD2(Int64(x), Int64(z))
    }

    struct EdgeKey: Hashable {
        let a: SIMD2<Int64>
        let b: SIMD2<Int64>
        init(_ p: SIMD2<Int64>, _ q: SIMD2<Int64>) {
            if (p.x, p.y) <= (q.x, q.y) { a = p; b = q } else { a = q; b = p }
        }
    }
}
