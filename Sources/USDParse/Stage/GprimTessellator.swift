import SceneModel

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Tessellates the implicit UsdGeom gprims into triangle meshes with normals, centred at the
/// origin, counter-clockwise outward.
///
/// Fixed resolution (documented, deterministic):
/// * `Cube` (`size`, fallback 2): 24 vertices, 12 triangles, flat faces. RoomPlan's `size = 1`
///   cubes give corners at exactly ±0.5, so their `xformOp:scale` yields exact boxes.
/// * `Sphere` (`radius`, fallback 1): 32 segments × 16 rings, poles on Z, 960 triangles.
/// * `Cylinder` (`radius` 1, `height` 2, `axis` Z): 32 segments, smooth sides + flat caps,
///   128 triangles.
/// * `Cone` (`radius` 1, `height` 2, `axis` Z): apex at +height/2, 32 segments, 64 triangles.
/// * `Capsule` (`radius` 0.5, `height` 1 = cylinder part, `axis` Z): 32 segments, 8 rings per
///   hemisphere, 1024 triangles.
/// * `Plane` (`width` 2, `length` 2, `axis` Z): 2 triangles facing +axis; width runs along X
///   (along Z when the axis is X), length along Y (along Z when the axis is Y); double-sided by
///   default (`doubleSided` fallback true for planes).
/// `extent` is not read. No texture coordinates are generated. `Cylinder_1`/`Capsule_1` use the
/// larger of `radiusTop`/`radiusBottom` (warning `USD_GPRIM_APPROXIMATED` when they differ).
enum GprimTessellator {
    static let segments = 32
    static let sphereRings = 16
    static let capsuleCapRings = 8

    /// The gprim type names this tessellator handles.
    static let types: Set<String> = [
        "Cube", "Sphere", "Cylinder", "Cone", "Capsule", "Plane", "Cylinder_1", "Capsule_1",
    ]

    /// Triangle geometry: flat xyz positions and normals, CCW triangle indices.
    struct Geometry {
        var positions: [Float] = []
        var normals: [Float] = []
        var indices: [UInt32] = []

        mutating func vertex(_ p: SIMD3<Double>, _ n: SIMD3<Double>) -> UInt32 {
            positions += [Float(p.x), Float(p.y), Float(p.z)]
            normals += [Float(n.x), Float(n.y), Float(n.z)]
            return UInt32(positions.count / 3 - 1)
        }

        mutating func triangle(_ a: UInt32, _ b: UInt32, _ c: UInt32) { indices += [a, b, c] }
    }

    /// Identity of a generated mesh: identical gprims with the same material share one Mesh.
    struct Key: Hashable {
        var type: String
        var parameters: [UInt64]
        var material: Int
    }

    /// Converts the gprim at `primIndex`; nil when its parameters are unusable (with a warning).
    static func extract(primIndex: Int, ctx: StageBuildContext) throws -> MeshIndex? {
        let prim = ctx.stage.prims[primIndex]
        let type = prim.typeName.hasSuffix("_1") ? String(prim.typeName.dropLast(2)) : prim.typeName
        func param(_ name: String, _ fallback: Double) -> Double {
            guard prim.attributes[name] != nil else { return fallback }
            guard let v = prim.double(name), v.isFinite, abs(v) < 1e12 else {
                ctx.warn(
                    "USD_GPRIM_INVALID_PARAMETER", "\(name) is not a finite number; fallback \(fallback) used", prim.path)
                return fallback
            }
            return abs(v)  // negative sizes would turn the surface inside out
        }
        // Cylinder_1 / Capsule_1 may give separate top and bottom radii; the larger one is used.
        func radius(_ fallback: Double) -> Double {
            guard prim.attributes["radiusTop"] != nil || prim.attributes["radiusBottom"] != nil else {
                return param("radius", fallback)
            }
            let top = param("radiusTop", fallback), bottom = param("radiusBottom", fallback)
            if top != bottom {
                ctx.warn("USD_GPRIM_APPROXIMATED", "radiusTop ≠ radiusBottom; the larger radius is used", prim.path)
            }
            return max(top, bottom)
        }
        let axisToken = prim.token("axis") ?? "Z"
        let axis = axisToken == "X" ? 0 : axisToken == "Y" ? 1 : 2
        var parameters: [Double]
        switch type {
        case "Cube": parameters = [param("size", 2)]
        case "Sphere": parameters = [param("radius", 1)]
        case "Cylinder", "Cone": parameters = [radius(1), param("height", 2), Double(axis)]
        case "Capsule": parameters = [radius(0.5), param("height", 1), Double(axis)]
        case "Plane": parameters = [param("width", 2), param("length", 2), Double(axis)]
        default: return nil
        }

        // Material: the binding, else a constant displayColor.
        var material = try ctx.materials.boundMaterial(primIndex: primIndex, ctx: ctx)?.index
        if material == nil {
            let dc = AttributeValues.floats(prim.value("primvars:displayColor"), components: 3)
            let op = AttributeValues.floats(prim.value("primvars:displayOpacity"), components: 1)
            if (dc?.count ?? 0) >= 3 || !(op ?? []).isEmpty {
                let rgb = (dc?.count ?? 0) >= 3 ? SIMD3(dc![0], dc![1], dc![2]) : SIMD3<Float>(1, 1, 1)
                material = ctx.materials.displayColorMaterial(rgb: rgb, opacity: op?.first ?? 1, ctx: ctx)
            }
        }
        let doubleSided = AttributeValues.bool(prim.value("doubleSided")) ?? (type == "Plane")
        if doubleSided { material = ctx.materials.doubleSided(material, ctx: ctx) }

        let key = Key(type: type, parameters: parameters.map(\.bitPattern), material: material?.rawValue ?? -1)
        if let shared = ctx.gprimMeshes[key] { return shared }

        let geometry: Geometry
        switch type {
        case "Cube": geometry = cube(size: parameters[0])
        case "Sphere": geometry = sphere(radius: parameters[0])
        case "Cylinder": geometry = cylinder(radius: parameters[0], height: parameters[1], axis: axis)
        case "Cone": geometry = cone(radius: parameters[0], height: parameters[1], axis: axis)
        case "Capsule": geometry = capsule(radius: parameters[0], height: parameters[1], axis: axis)
        default: geometry = plane(width: parameters[0], length: parameters[1], axis: axis)
        }
        let triangles = geometry.indices.count / 3
        try ctx.reserveMeshTriangles(triangles, path: prim.path)
        try ctx.charge(geometry.positions.count * 8 + geometry.indices.count * 4, "tessellated \(prim.path)")
        let mesh = Mesh(
            name: prim.name, positions: geometry.positions, normals: geometry.normals, indices: geometry.indices,
            primitives: [Mesh.Primitive(indexStart: 0, indexCount: geometry.indices.count, material: material)],
            sourcePath: try ctx.sourcePath(of: prim.path))
        let index = ctx.scene.addMesh(mesh)
        ctx.gprimMeshes[key] = index
        return index
    }

    // MARK: Shapes

    static func cube(size: Double) -> Geometry {
        let h = size / 2
        var g = Geometry()
        // (normal, u, v) with u × v = normal, so (-u-v, +u-v, +u+v, -u+v) is counter-clockwise.
        let faces: [(SIMD3<Double>, SIMD3<Double>, SIMD3<Double>)] = [
            (SIMD3(1, 0, 0), SIMD3(0, 1, 0), SIMD3(0, 0, 1)), (SIMD3(-1, 0, 0), SIMD3(0, 0, 1), SIMD3(0, 1, 0)),
            (SIMD3(0, 1, 0), SIMD3(0, 0, 1), SIMD3(1, 0, 0)), (SIMD3(0, -1, 0), SIMD3(1, 0, 0), SIMD3(0, 0, 1)),
            (SIMD3(0, 0, 1), SIMD3(1, 0, 0), SIMD3(0, 1, 0)), (SIMD3(0, 0, -1), SIMD3(0, 1, 0), SIMD3(1, 0, 0)),
        ]
        for (n, u, v) in faces {
            let a = g.vertex((n - u - v) * h, n)
            let b = g.vertex((n + u - v) * h, n)
            let c = g.vertex((n + u + v) * h, n)
            let d = g.vertex((n - u + v) * h, n)
            g.triangle(a, b, c)
            g.triangle(a, c, d)
        }
        return g
    }

    /// One latitude ring of a surface of revolution about Z.
    private struct Ring {
        var z: Double, radius: Double, normalRadial: Double, normalZ: Double
    }

    private static func angle(_ j: Int) -> (Double, Double) {
        let phi = 2 * Double.pi * Double(j) / Double(segments)
        return (cos(phi), sin(phi))
    }

    /// Rings from top to bottom with optional poles, joined by quads.
    private static func ringStack(top: Double?, rings: [Ring], bottom: Double?, into g: inout Geometry) {
        var ringStart: [UInt32] = []
        for r in rings {
            ringStart.append(UInt32(g.positions.count / 3))
            for j in 0..<segments {
                let (c, s) = angle(j)
                _ = g.vertex(
                    SIMD3(r.radius * c, r.radius * s, r.z), SIMD3(r.normalRadial * c, r.normalRadial * s, r.normalZ))
            }
        }
        let n = UInt32(segments)
        for k in 0..<(rings.count - 1) {
            let up = ringStart[k]
            let low = ringStart[k + 1]
            for j in 0..<n {
                let j1 = (j + 1) % n
                g.triangle(low + j, low + j1, up + j1)
                g.triangle(low + j, up + j1, up + j)
            }
        }
        if let top, let first = ringStart.first {
            for j in 0..<n {
                let t = g.vertex(SIMD3(0, 0, top), SIMD3(0, 0, 1))
                g.triangle(t, first + j, first + (j + 1) % n)
            }
        }
        if let bottom, let last = ringStart.last {
            for j in 0..<n {
                let b = g.vertex(SIMD3(0, 0, bottom), SIMD3(0, 0, -1))
                g.triangle(b, last + (j + 1) % n, last + j)
            }
        }
    }

    /// A flat disc at `z` facing +Z (`up`) or −Z.
    private static func cap(radius: Double, z: Double, up: Bool, into g: inout Geometry) {
        let nz: Double = up ? 1 : -1
        let center = g.vertex(SIMD3(0, 0, z), SIMD3(0, 0, nz))
        let start = UInt32(g.positions.count / 3)
        for j in 0..<segments {
            let (c, s) = angle(j)
            _ = g.vertex(SIMD3(radius * c, radius * s, z), SIMD3(0, 0, nz))
        }
        let n = UInt32(segments)
        for j in 0..<n {
            let j1 = (j + 1) % n
            if up { g.triangle(center, start + j, start + j1) } else { g.triangle(center, start + j1, start + j) }
        }
    }

    static func sphere(radius: Double) -> Geometry {
        var rings: [Ring] = []
        for k in 1..<sphereRings {
            let theta = Double.pi * Double(k) / Double(sphereRings)
            rings.append(
                Ring(z: radius * cos(theta), radius: radius * sin(theta), normalRadial: sin(theta), normalZ: cos(theta))
            )
        }
        var g = Geometry()
        ringStack(top: radius, rings: rings, bottom: -radius, into: &g)
        return g
    }

    static func cylinder(radius: Double, height: Double, axis: Int) -> Geometry {
        var g = Geometry()
        ringStack(
            top: nil,
            rings: [
                Ring(z: height / 2, radius: radius, normalRadial: 1, normalZ: 0),
                Ring(z: -height / 2, radius: radius, normalRadial: 1, normalZ: 0),
            ],
            bottom: nil, into: &g)
        cap(radius: radius, z: height / 2, up: true, into: &g)
        cap(radius: radius, z: -height / 2, up: false, into: &g)
        return reoriented(g, axis: axis)
    }

    static func cone(radius: Double, height: Double, axis: Int) -> Geometry {
        var g = Geometry()
        let slant = (height * height + radius * radius).squareRoot()
        let nr = slant > 0 ? height / slant : 0
        let nz = slant > 0 ? radius / slant : 1
        for j in 0..<segments {
            let (c0, s0) = angle(j)
            let (c1, s1) = angle(j + 1)
            let mid = 2 * Double.pi * (Double(j) + 0.5) / Double(segments)
            let a = g.vertex(SIMD3(radius * c0, radius * s0, -height / 2), SIMD3(nr * c0, nr * s0, nz))
            let b = g.vertex(SIMD3(radius * c1, radius * s1, -height / 2), SIMD3(nr * c1, nr * s1, nz))
            let apex = g.vertex(SIMD3(0, 0, height / 2), SIMD3(nr * cos(mid), nr * sin(mid), nz))
            g.triangle(a, b, apex)
        }
        cap(radius: radius, z: -height / 2, up: false, into: &g)
        return reoriented(g, axis: axis)
    }

    static func capsule(radius: Double, height: Double, axis: Int) -> Geometry {
        var rings: [Ring] = []
        let total = 2 * capsuleCapRings
        for k in 1...capsuleCapRings {  // upper hemisphere down to its equator
            let theta = Double.pi * Double(k) / Double(total)
            rings.append(
                Ring(
                    z: height / 2 + radius * cos(theta), radius: radius * sin(theta), normalRadial: sin(theta),
                    normalZ: cos(theta)))
        }
        for k in capsuleCapRings..<total {  // lower hemisphere from its equator
            let theta = Double.pi * Double(k) / Double(total)
            rings.append(
                Ring(
                    z: -height / 2 + radius * cos(theta), radius: radius * sin(theta), normalRadial: sin(theta),
                    normalZ: cos(theta)))
        }
        var g = Geometry()
        ringStack(top: height / 2 + radius, rings: rings, bottom: -height / 2 - radius, into: &g)
        return reoriented(g, axis: axis)
    }

    static func plane(width: Double, length: Double, axis: Int) -> Geometry {
        // (a, b, normal) with a × b = normal.
        let w = width / 2
        let l = length / 2
        let (a, b, n): (SIMD3<Double>, SIMD3<Double>, SIMD3<Double>)
        switch axis {
        case 0: (a, b, n) = (SIMD3(0, l, 0), SIMD3(0, 0, w), SIMD3(1, 0, 0))
        case 1: (a, b, n) = (SIMD3(0, 0, l), SIMD3(w, 0, 0), SIMD3(0, 1, 0))
        default: (a, b, n) = (SIMD3(w, 0, 0), SIMD3(0, l, 0), SIMD3(0, 0, 1))
        }
        var g = Geometry()
        let v0 = g.vertex(-a - b, n)
        let v1 = g.vertex(a - b, n)
        let v2 = g.vertex(a + b, n)
        let v3 = g.vertex(-a + b, n)
        g.triangle(v0, v1, v2)
        g.triangle(v0, v2, v3)
        return g
    }

    /// Maps geometry built along Z onto `axis` with a cyclic permutation (a rotation, so the
    /// winding stays outward): X ← (z, x, y), Y ← (y, z, x).
    private static func reoriented(_ g: Geometry, axis: Int) -> Geometry {
        guard axis != 2 else { return g }
        var out = g
        func permute(_ v: inout [Float]) {
            var k = 0
            while k + 2 < v.count {
                let x = v[k]
                let y = v[k + 1]
                let z = v[k + 2]
                if axis == 0 {
                    v[k] = z
                    v[k + 1] = x
                    v[k + 2] = y
                } else {
                    v[k] = y
                    v[k + 1] = z
                    v[k + 2] = x
                }
                k += 3
            }
        }
        permute(&out.positions)
        permute(&out.normals)
        return out
    }
}
