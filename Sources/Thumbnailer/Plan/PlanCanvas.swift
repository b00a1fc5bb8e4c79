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

    /// A simple polygon (any winding), triangulated by SceneModel's `PolygonTriangulator`.
    mutating func polygon(_ pts: [SIMD2<Double>], _ color: SIMD3<Float>) {
        for (a, b, c) in PolygonTriangulator.triangulate(pts).triangles { triangle(pts[a], pts[b], pts[c], color) }
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
