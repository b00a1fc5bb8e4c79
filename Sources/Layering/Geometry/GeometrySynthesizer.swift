import SceneModel

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Builds geometry for JSON elements that have no USD element, in the element's local frame
/// (the node carrying the mesh has the element's transform):
/// - walls: a box `width × height × wallThickness` extruded toward local −Z (x ∈ ±w/2, y ∈ ±h/2,
///   z ∈ [−t, 0]), like RoomPlan's mesh export; a wall with a `curve` becomes straight boxes along
///   the arc (one per `curveSegmentDegrees` at most, 64 at most), each extruded toward the arc's centre;
/// - doors and windows: a box `doorWindowThickness` thick centred on the wall plane;
/// - openings: a box `openingThickness` thick centred on the wall plane;
/// - floors: a prism `floorThickness` thick from `polygonCorners` (local XY, z ignored, top face at
///   z = 0 facing +Z = world +Y, extruded toward −Z), ear-clipped; without corners, the
///   `dimensions` rectangle;
/// - objects: a box of `dimensions` centred at the origin.
/// Meshes have per-face normals and counter-clockwise winding; each category uses one shared grey
/// material (`GeometrySynthesizer.material(for:)`).
struct GeometrySynthesizer {
    let options: LayeringOptions
    private(set) var warnings: [SceneWarning] = []

    init(options: LayeringOptions) { self.options = options }

    /// The shared material of a category: a deterministic grey, opaque.
    static func material(for category: ElementCategory) -> Material {
        let grey: Float
        switch category {
        case .wall: grey = 0.80
        case .door: grey = 0.55
        case .window: grey = 0.70
        case .opening: grey = 0.40
        case .floor: grey = 0.65
        default: grey = 0.50
        }
        return Material(
            name: "roomplan_\(LayerID.safeName(category.rawValue))_grey", baseColor: SIMD4(grey, grey, grey, 1),
            roughness: 0.9, sourcePath: "")
    }

    mutating func mesh(for e: JSONElement) -> Mesh {
        var b = MeshBuilder()
        let w = abs(e.dimensions.x), h = abs(e.dimensions.y), d = abs(e.dimensions.z)
        switch e.category {
        case .wall:
            if let curve = e.curve {
                curvedWall(curve, height: h, into: &b)
            } else {
                b.box(min: SIMD3(-w / 2, -h / 2, -options.wallThickness), max: SIMD3(w / 2, h / 2, 0))
            }
        case .door, .window:
            let t = options.doorWindowThickness / 2
            b.box(min: SIMD3(-w / 2, -h / 2, -t), max: SIMD3(w / 2, h / 2, t))
        case .opening:
            let t = options.openingThickness / 2
            b.box(min: SIMD3(-w / 2, -h / 2, -t), max: SIMD3(w / 2, h / 2, t))
        case .floor:
            floor(e, into: &b)
        default:
            b.box(min: SIMD3(-w / 2, -h / 2, -d / 2), max: SIMD3(w / 2, h / 2, d / 2))
        }
        return b.mesh(name: "\(e.category)_\(LayerID.safeName(e.identifier))")
    }

    private mutating func floor(_ e: JSONElement, into b: inout MeshBuilder) {
        var pts = e.polygonCorners.map { SIMD2($0.x, $0.y) }
        if pts.count < 3 {
            let w = abs(e.dimensions.x) / 2, h = abs(e.dimensions.y) / 2
            pts = [SIMD2(-w, -h), SIMD2(w, -h), SIMD2(w, h), SIMD2(-w, h)]
        }
        let result = PolygonTriangulator.triangulate(pts)
        if result.usedFallback {
            warnings.append(SceneWarning(
                code: LayeringWarningCode.polygonFallback,
                message: "\(e.jsonPath).polygonCorners: polygon could not be ear-clipped (self-intersecting?); a fan was used"))
        }
        b.prism(pts, triangles: result.triangles, thickness: options.floorThickness)
    }

    private func curvedWall(_ c: CapturedRoom.Curve, height h: Double, into b: inout MeshBuilder) {
        let sweep = c.endAngle - c.startAngle
        let step = max(options.curveSegmentDegrees, 0.5) * Double.pi / 180
        let n = max(1, min(64, Int((abs(sweep) / step).rounded(.up))))
        for k in 0..<n {
            let a0 = c.startAngle + sweep * Double(k) / Double(n)
            let a1 = c.startAngle + sweep * Double(k + 1) / Double(n)
            let p0 = c.center + c.radius * SIMD2(cos(a0), sin(a0))
            let p1 = c.center + c.radius * SIMD2(cos(a1), sin(a1))
            // Segment frame in local XZ: u along the chord, v toward the arc centre.
            let chord = p1 - p0
            let len = (chord * chord).sum().squareRoot()
            guard len > 1e-9 else { continue }
            let u = chord / len
            var v = SIMD2(-u.y, u.x)
            let mid = (p0 + p1) / 2
            if ((c.center - mid) * v).sum() < 0 { v = -v }
            let t = options.wallThickness
            // Corners: p0, p1 on the arc; p0 + v t, p1 + v t toward the centre.
            let q0 = p0 + v * t, q1 = p1 + v * t
            b.extrudedQuad(
                [SIMD3(p0.x, 0, p0.y), SIMD3(p1.x, 0, p1.y), SIMD3(q1.x, 0, q1.y), SIMD3(q0.x, 0, q0.y)],
                yMin: -h / 2, yMax: h / 2)
        }
    }
}
