import SceneModel

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Flat-coloured 2D shapes in plan coordinates (world x, z in metres), drawn in the order they
/// are added; becomes one vertex-coloured mesh at y = 0 rendered top-down in painter's order.
struct PlanCanvas {
    private(set) var positions: [Float] = []
    private(set) var colors: [Float] = []
    private(set) var indices: [UInt32] = []
    /// Metres per output pixel (line widths are given in pixels).
    let metresPerPixel: Double

    init(metresPerPixel: Double) {
        self.metresPerPixel = metresPerPixel
    }

    private mutating func vertex(_ p: SIMD2<Double>, _ c: SIMD3<Float>) -> UInt32 {
        positions += [Float(p.x), 0, Float(p.y)]
        colors += [c.x, c.y, c.z, 1]
        return UInt32(positions.count / 3 - 1)
    }

    mutating func triangle(_ a: SIMD2<Double>, _ b: SIMD2<Double>, _ c: SIMD2<Double>, _ color: SIMD3<Float>) {
        guard a.x.isFinite, a.y.isFinite, b.x.isFinite, b.y.isFinite, c.x.isFinite, c.y.isFinite else { return }
        let i = vertex(a, color), j = vertex(b, color), k = vertex(c, color)
        indices += [i, j, k]
    }

    /// A convex quad a-b-c-d.
    mutating func quad(
        _ a: SIMD2<Double>, _ b: SIMD2<Double>, _ c: SIMD2<Double>, _ d: SIMD2<Double>, _ color: SIMD3<Float>
    ) {
        triangle(a, b, c, color)
        triangle(a, c, d, color)
    }

    /// A rectangle centred at `c` with half extents along unit axis `u` and its perpendicular.
    mutating func box(
        centre c: SIMD2<Double>, axis u: SIMD2<Double>, halfLength: Double, halfWidth: Double, _ color: SIMD3<Float>
    ) {
        let v = SIMD2(-u.y, u.x)
        quad(
            c - u * halfLength - v * halfWidth, c + u * halfLength - v * halfWidth, c + u * halfLength + v * halfWidth,
            c - u * halfLength + v * halfWidth, color)
    }

    /// A straight stroke `widthPixels` wide (square ends extended by half the width when `caps`).
    mutating func line(
        _ a: SIMD2<Double>, _ b: SIMD2<Double>, widthPixels: Double, _ color: SIMD3<Float>, caps: Bool = false
    ) {
        let d = b - a
        let len = (d * d).sum().squareRoot()
        guard len > 1e-12, len.isFinite else { return }
        let u = d / len
        let hw = widthPixels * metresPerPixel / 2
        let ext = caps ? hw : 0
        box(centre: (a + b) / 2, axis: u, halfLength: len / 2 + ext, halfWidth: hw, color)
    }

    /// A circular arc around `c` from angle `a0` to `a1` (radians, in plan x/z).
    mutating func arc(
        centre c: SIMD2<Double>, radius r: Double, from a0: Double, to a1: Double, widthPixels: Double,
        _ color: SIMD3<Float>
    ) {
        let steps = max(6, min(48, Int(abs(a1 - a0) * r / (metresPerPixel * 6))))
        var prev = c + SIMD2(cos(a0), sin(a0)) * r
        for i in 1...steps {
            let a = a0 + (a1 - a0) * Double(i) / Double(steps)
            let p = c + SIMD2(cos(a), sin(a)) * r
            line(prev, p, widthPixels: widthPixels, color, caps: true)
            prev = p
        }
    }

    /// A simple polygon (any winding), ear-clipped; falls back to a fan when clipping stalls.
    mutating func polygon(_ pts: [SIMD2<Double>], _ color: SIMD3<Float>) {
        for (a, b, c) in Self.triangulate(pts) { triangle(pts[a], pts[b], pts[c], color) }
    }

    /// Ear clipping of a simple polygon (O(n³) worst case, so at most 512 points are used).
    static func triangulate(_ input: [SIMD2<Double>]) -> [(Int, Int, Int)] {
        var idx = Array(input.indices.prefix(512)).filter { input[$0].x.isFinite && input[$0].y.isFinite }
        guard idx.count >= 3 else { return [] }
        var area = 0.0
        for i in idx.indices {
            let p = input[idx[i]], q = input[idx[(i + 1) % idx.count]]
            area += p.x * q.y - q.x * p.y
        }
        if area < 0 { idx.reverse() }
        func cross(_ o: SIMD2<Double>, _ a: SIMD2<Double>, _ b: SIMD2<Double>) -> Double {
            (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x)
        }
        var out: [(Int, Int, Int)] = []
        var guardCount = 0
        while idx.count > 3 && guardCount < 2 * idx.count * idx.count + 16 {
            guardCount += 1
            var clipped = false
            for i in idx.indices {
                let ia = idx[(i + idx.count - 1) % idx.count], ib = idx[i], ic = idx[(i + 1) % idx.count]
                let a = input[ia], b = input[ib], c = input[ic]
                guard cross(a, b, c) > 0 else { continue }
                var inside = false
                for j in idx where j != ia && j != ib && j != ic {
                    let p = input[j]
                    if cross(a, b, p) >= 0 && cross(b, c, p) >= 0 && cross(c, a, p) >= 0 {
                        inside = true
                        break
                    }
                }
                if inside { continue }
                out.append((ia, ib, ic))
                idx.remove(at: i)
                clipped = true
                break
            }
            if !clipped { break }
        }
        if idx.count >= 3 {
            for i in 1..<(idx.count - 1) { out.append((idx[0], idx[i], idx[i + 1])) }
        }
        return out
    }

    /// Convex hull (monotone chain), counter-clockwise.
    static func convexHull(_ points: [SIMD2<Double>]) -> [SIMD2<Double>] {
        let p = points.filter { $0.x.isFinite && $0.y.isFinite }.sorted { ($0.x, $0.y) < ($1.x, $1.y) }
        guard p.count >= 3 else { return p }
        func cross(_ o: SIMD2<Double>, _ a: SIMD2<Double>, _ b: SIMD2<Double>) -> Double {
            (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x)
        }
        var lower: [SIMD2<Double>] = [], upper: [SIMD2<Double>] = []
        for q in p {
            while lower.count >= 2 && cross(lower[lower.count - 2], lower[lower.count - 1], q) <= 0 {
                lower.removeLast()
            }
            lower.append(q)
        }
        for q in p.reversed() {
            while upper.count >= 2 && cross(upper[upper.count - 2], upper[upper.count - 1], q) <= 0 {
                upper.removeLast()
            }
            upper.append(q)
        }
        return Array(lower.dropLast() + upper.dropLast())
    }

    /// The canvas as a scene: one node, one vertex-coloured mesh, one double-sided white material.
    func scene() -> Scene {
        var s = Scene()
        let material = s.addMaterial(Material(name: "plan", baseColor: SIMD4(1, 1, 1, 1), doubleSided: true))
        let mesh = s.addMesh(
            Mesh(
                name: "plan", positions: positions, colors: colors, indices: indices,
                primitives: indices.isEmpty
                    ? [] : [Mesh.Primitive(indexStart: 0, indexCount: indices.count, material: material)]))
        s.addNode(Node(name: "plan", mesh: mesh))
        return s
    }
}
