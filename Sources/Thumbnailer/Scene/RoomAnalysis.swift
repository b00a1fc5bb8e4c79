import SceneModel

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The oriented box of one element: its frame (unit axes, from the element transform) and the
/// extent of its geometry in that frame (or its RoomPlan dimensions, centred, without geometry).
struct ElementShape: Sendable {
    var element: Int
    var category: ElementCategory
    var origin: SIMD3<Double>
    var ex: SIMD3<Double>
    var ey: SIMD3<Double>
    var ez: SIMD3<Double>
    var lo: SIMD3<Double>
    var hi: SIMD3<Double>

    var centre: SIMD3<Double> { point((lo + hi) * 0.5) }
    var size: SIMD3<Double> { hi - lo }

    /// World position of a local point.
    func point(_ l: SIMD3<Double>) -> SIMD3<Double> { origin + ex * l.x + ey * l.y + ez * l.z }

    /// Local coordinates of a world point.
    func local(_ p: SIMD3<Double>) -> SIMD3<Double> {
        let d = p - origin
        return SIMD3(d.dot(ex), d.dot(ey), d.dot(ez))
    }
}

/// What the view planner knows about a scene: whether it is a room (it has walls), the room's
/// extent, orientation and the element boxes the cutaway, hero choice and plan use.
struct RoomAnalysis: Sendable {
    var roomLike: Bool
    /// World bounds of everything drawn.
    var bounds: Bounds
    /// Walls and floors (the room shell), or `bounds` when there are none.
    var shellBounds: Bounds
    /// Plan centre of the room (world).
    var centre: SIMD3<Double>
    var floorY: Double
    /// Direction of the walls in plan (radians, atan2(z, x) of the wall X axis, modulo 90°).
    var wallAngle: Double
    var shapes: [ElementShape]
    /// Instances of each element (indices into `RenderScene.instances`).
    var instancesOfElement: [[Int]]
    var radius: Double
    /// Points whose projection the cameras frame: the corners of every element box (rooms) or a
    /// strided sample of the vertices plus the bounds' extremes (other models).
    var framePoints: [SIMD3<Double>]
    /// Strided vertices of geometry that belongs to no element (framed in every view).
    var loosePoints: [SIMD3<Double>]

    static let structural: Set<ElementCategory> = [.wall, .door, .window, .opening]

    /// - Parameter excluding: elements that are not drawn and not framed (a home's merged floor).
    init(layered: LayeredScene, scene: RenderScene, excluding: Set<Int> = []) {
        let elements = layered.elements
        bounds = scene.bounds
        var instancesOfElement = [[Int]](repeating: [], count: elements.count)
        for (i, inst) in scene.instances.enumerated() where inst.element >= 0 && Int(inst.element) < elements.count {
            instancesOfElement[Int(inst.element)].append(i)
        }
        self.instancesOfElement = instancesOfElement
        var shapes: [ElementShape] = []
        for (e, el) in elements.enumerated() where !excluding.contains(e) {
            if let s = Self.shape(of: el, index: e, scene: scene, instances: instancesOfElement[e]) { shapes.append(s) }
        }
        self.shapes = shapes
        let walls = shapes.filter { $0.category == .wall }
        roomLike = !walls.isEmpty
        var shell = Bounds.empty
        for s in shapes where s.category == .wall || s.category == .floor {
            for i in 0..<8 {
                shell.include(
                    s.point(
                        SIMD3(
                            i & 1 == 0 ? s.lo.x : s.hi.x, i & 2 == 0 ? s.lo.y : s.hi.y,
                            i & 4 == 0 ? s.lo.z : s.hi.z)))
            }
        }
        if shell.isEmpty || !shell.min.isFinite || !shell.max.isFinite { shell = bounds }
        shellBounds = shell
        centre = shell.isEmpty ? .zero : shell.center
        floorY = shell.isEmpty ? 0 : shell.min.y
        let size = bounds.isEmpty ? SIMD3<Double>(1, 1, 1) : bounds.size
        radius = max(size.length * 0.5, 1e-3)
        wallAngle = Self.dominantAngle(walls)
        var points: [SIMD3<Double>] = []
        // Geometry outside any element (a synthesized floor) is always framed.
        var loose: [SIMD3<Double>] = []
        for inst in scene.instances where inst.element < 0 {
            let first = inst.firstTriangle * 3, count = inst.triangleCount * 3
            let stride = max(1, count / 1024)
            var k = 0
            while k < count {
                let q = load3(scene.positions, Int(scene.indices[first + k]))
                let p = SIMD3(Double(q.x), Double(q.y), Double(q.z)) + scene.origin
                if p.isFinite { loose.append(p) }
                k += stride
            }
        }
        loosePoints = loose
        if !walls.isEmpty {
            for sh in shapes {
                for i in 0..<8 {
                    let p = sh.point(
                        SIMD3(
                            i & 1 == 0 ? sh.lo.x : sh.hi.x, i & 2 == 0 ? sh.lo.y : sh.hi.y,
                            i & 4 == 0 ? sh.lo.z : sh.hi.z))
                    if p.isFinite { points.append(p) }
                }
            }
            points += loose
        }
        if points.isEmpty {
            // Every vertex of ordinary models; a strided sample plus the bounds' corners of huge ones.
            let stride = max(1, scene.vertexCount / 65536)
            let keep = bounds.isEmpty ? Bounds(min: .zero, max: .zero) : bounds
            var i = 0
            while i < scene.vertexCount {
                let q = load3(scene.positions, i)
                let p = SIMD3(Double(q.x), Double(q.y), Double(q.z)) + scene.origin
                if p.isFinite && p.x >= keep.min.x && p.y >= keep.min.y && p.z >= keep.min.z && p.x <= keep.max.x
                    && p.y <= keep.max.y && p.z <= keep.max.z
                {
                    points.append(p)
                }
                i += stride
            }
            if stride > 1 && !bounds.isEmpty {
                for i in 0..<8 {
                    points.append(
                        SIMD3(
                            i & 1 == 0 ? bounds.min.x : bounds.max.x, i & 2 == 0 ? bounds.min.y : bounds.max.y,
                            i & 4 == 0 ? bounds.min.z : bounds.max.z))
                }
            }
        }
        framePoints = points
    }

    /// The wall direction (radians, modulo 90°) that most wall length agrees with
    /// (`WallOrientation.dominantAngle` of each wall's X axis and extent along it).
    static func dominantAngle(_ walls: [ElementShape]) -> Double {
        WallOrientation.dominantAngle(walls.map { w in (atan2(w.ex.z, w.ex.x), w.hi.x - w.lo.x) })
    }

    /// The box of an element: its frame, and its geometry's extent (or its dimensions, centred,
    /// when `scene` is nil or it has no geometry).
    static func shape(of el: RoomElement, index: Int, scene: RenderScene?, instances: [Int]) -> ElementShape? {
        let m = el.transform.m
        guard m.count == 16, m.allSatisfy({ $0.isFinite }) else { return nil }
        let origin = SIMD3(m[12], m[13], m[14])
        var ex = SIMD3(m[0], m[1], m[2]).normalizedOrZero
        var ey = SIMD3(m[4], m[5], m[6]).normalizedOrZero
        var ez = SIMD3(m[8], m[9], m[10]).normalizedOrZero
        if ex == .zero || ey == .zero || ez == .zero || abs(ex.dot(ey)) > 0.01 || abs(ex.dot(ez)) > 0.01 {
            ex = SIMD3(1, 0, 0)
            ey = SIMD3(0, 1, 0)
            ez = SIMD3(0, 0, 1)
        }
        var s = ElementShape(
            element: index, category: el.category, origin: origin, ex: ex, ey: ey, ez: ez,
            lo: SIMD3(repeating: .infinity), hi: SIMD3(repeating: -.infinity))
        if let scene { s.include(scene: scene, instances: instances) }
        if s.lo.x > s.hi.x {
            guard let d = el.dimensions, d.isFinite else { return nil }
            let h = SIMD3(abs(d.x), abs(d.y), abs(d.z)) * 0.5
            s.lo = -h
            s.hi = h
        }
        return s
    }
}

extension ElementShape {
    /// Grows the extent by the vertices of an element's instances.
    mutating func include(scene: RenderScene, instances: [Int]) {
        let o = scene.origin
        for i in instances {
            let inst = scene.instances[i]
            for t in inst.firstTriangle..<(inst.firstTriangle + inst.triangleCount) {
                guard scene.triMaterial[t] != RenderScene.invalidMaterial else { continue }
                for k in 0..<3 {
                    let p = load3(scene.positions, Int(scene.indices[t * 3 + k]))
                    let w = SIMD3(Double(p.x), Double(p.y), Double(p.z)) + o
                    guard w.isFinite else { continue }
                    let l = local(w)
                    lo = pointwiseMin(lo, l)
                    hi = pointwiseMax(hi, l)
                }
            }
        }
    }

    /// Ends of the footprint's centre line along the local X axis, in plan coordinates (x, z).
    var planEnds: (SIMD2<Double>, SIMD2<Double>) {
        let midY = (lo.y + hi.y) / 2, midZ = (lo.z + hi.z) / 2
        let a = point(SIMD3(lo.x, midY, midZ)), b = point(SIMD3(hi.x, midY, midZ))
        return (SIMD2(a.x, a.z), SIMD2(b.x, b.z))
    }

    /// The floor outline of a room without a floor element: walls chained end to end into a
    /// closed loop when they form one (ends within 30 cm), else the convex hull of their ends.
    static func floorOutline(walls: [ElementShape]) -> [SIMD2<Double>] {
        let segments = walls.map { $0.planEnds }
        guard segments.count >= 3 else { return Polygon2D.convexHull(segments.flatMap { [$0.0, $0.1] }) }
        let tolerance = 0.3
        func dist(_ a: SIMD2<Double>, _ b: SIMD2<Double>) -> Double { ((a - b) * (a - b)).sum().squareRoot() }
        var used = [Bool](repeating: false, count: segments.count)
        var loop: [SIMD2<Double>] = [segments[0].0]
        var end = segments[0].1
        used[0] = true
        while true {
            var best: (Int, Bool, Double)?
            for (i, s) in segments.enumerated() where !used[i] {
                for (flip, p) in [(false, s.0), (true, s.1)] {
                    let d = dist(end, p)
                    if d < tolerance && (best == nil || d < best!.2) { best = (i, flip, d) }
                }
            }
            guard let (i, flip, _) = best else { break }
            used[i] = true
            loop.append(end)
            end = flip ? segments[i].0 : segments[i].1
        }
        if used.allSatisfy({ $0 }) && dist(end, loop[0]) < tolerance && loop.count >= 3 { return loop }
        return Polygon2D.convexHull(segments.flatMap { [$0.0, $0.1] })
    }
}
