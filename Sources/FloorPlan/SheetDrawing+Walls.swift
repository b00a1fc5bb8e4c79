import SceneModel

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension SheetDrawing {
    /// An opening placed on a wall: the interval it covers along the wall (metres from the wall's
    /// first end), clipped to the wall.
    struct Placement {
        var opening: PlanSegment
        var wall: PlanSegment?
        var from: Double
        var to: Double
    }

    /// Where each opening of the story sits: on its host wall when RoomPlan names one, else on a
    /// parallel wall whose centre line it lies on (within the wall thickness), else on its own.
    func placements() -> [Placement] {
        let walls = geometry.drawnWalls(story: sheet.story)
        var byId: [String: PlanSegment] = [:]
        for w in walls { byId[w.identifier] = w }
        let reach = max(options.wallThickness, 0.1)
        return geometry.drawnOpenings(story: sheet.story).filter { $0.length >= PlanGeometry.minimumOpening }.map { o in
            var host = o.host.flatMap { byId[$0] }
            if host == nil {
                host = walls.first { w in
                    abs((w.direction * o.direction).sum()) > 0.95 && RoomPartition.distance(o.mid, w.a, w.b) <= reach
                }
            }
            guard let w = host else { return Placement(opening: o, wall: nil, from: 0, to: o.length) }
            let u = w.direction
            let ta = ((o.a - w.a) * u).sum(), tb = ((o.b - w.a) * u).sum()
            let len = Polygon2D.distance(w.a, w.b)
            let lo = max(min(ta, tb), 0), hi = min(max(ta, tb), len)
            guard hi > lo + 1e-3 else { return Placement(opening: o, wall: nil, from: 0, to: o.length) }
            return Placement(opening: o, wall: w, from: lo, to: hi)
        }
    }

    /// The point `t` metres along `w` and `s` metres across it.
    static func at(_ w: PlanSegment, _ t: Double, _ s: Double) -> SIMD2<Double> {
        let u = w.direction
        return w.a + u * t + SIMD2(-u.y, u.x) * s
    }

    /// Walls as filled bands of the stated thickness with gaps where doors, windows and openings
    /// are, each end extended by half the thickness so corners close; then the opening symbols.
    mutating func drawWalls() {
        let placed = placements()
        for w in geometry.drawnWalls(story: sheet.story) {
            let h = (w.thickness ?? options.wallThickness) / 2
            let ends = w.ends ?? SIMD2(h, h)
            let len = Polygon2D.distance(w.a, w.b)
            var gaps = placed.filter { $0.wall?.identifier == w.identifier }.map { ($0.from, $0.to) }.sorted { $0.0 < $1.0 }
            gaps.append((len + ends.y, len + ends.y))
            var start = -ends.x
            for (from, to) in gaps {
                if from > start + 1e-4 {
                    let end = min(from, len + ends.y)
                    add(.polygon([Self.at(w, start, -h), Self.at(w, end, -h), Self.at(w, end, h), Self.at(w, start, h)].map(p),
                                 fill: PlanColours.wall, stroke: nil, strokeWidth: 0, layer: .walls))
                }
                start = max(start, to)
            }
        }
        for pl in placed { drawOpening(pl, halfThickness: (pl.wall?.thickness ?? options.wallThickness) / 2) }
    }

    /// The unit normal of a wall or opening at `mid` that points into the room: the side where a
    /// point 0.3 m away lies inside the story's outline (else the side of the outline's centroid).
    func inward(_ mid: SIMD2<Double>, _ normal: SIMD2<Double>, room: String? = nil) -> SIMD2<Double> {
        // In a home, the side of the element's own room first.
        if let floors = room.flatMap({ geometry.roomFloors[$0] }) {
            for probe in [0.3, 0.15, 0.6] {
                let plus = floors.contains { RoomPartition.contains($0, mid + normal * probe) }
                let minus = floors.contains { RoomPartition.contains($0, mid - normal * probe) }
                if plus != minus { return plus ? normal : -normal }
            }
        }
        for probe in [0.3, 0.15, 0.6] {
            let plus = outlines.contains { RoomPartition.contains($0.polygon, mid + normal * probe) }
            let minus = outlines.contains { RoomPartition.contains($0.polygon, mid - normal * probe) }
            if plus != minus { return plus ? normal : -normal }
        }
        let c = outlines.first.map { Self.centroid($0.polygon) }
            ?? geometry.walls(story: sheet.story).map(\.mid).reduce(.zero, +) / Double(max(geometry.walls(story: sheet.story).count, 1))
        return ((c - mid) * normal).sum() >= 0 ? normal : -normal
    }

    mutating func drawOpening(_ pl: Placement, halfThickness h: Double) {
        let o = pl.opening
        // The segment the symbol is drawn on: on the wall's centre line when placed on one.
        let base = pl.wall ?? o
        let t0 = pl.from, t1 = pl.to
        let a = Self.at(base, t0, 0), b = Self.at(base, t1, 0)
        let u = base.direction
        let v = SIMD2(-u.y, u.x)
        let thin = 0.18
        switch o.category {
        case .door:
            // Jambs across the wall, then the leaves swinging into the room (`drawLeaves`).
            for t in [t0, t1] {
                add(.line(p(Self.at(base, t, -h)), p(Self.at(base, t, h)), width: 0.25, colour: PlanColours.wall, layer: .doors))
            }
            drawLeaves(o, a: a, b: b, normal: inward((a + b) / 2, v, room: o.room))
        case .window:
            add(.polygon([Self.at(base, t0, -h), Self.at(base, t1, -h), Self.at(base, t1, h), Self.at(base, t0, h)].map(p),
                         fill: PlanColours.paper, stroke: PlanColours.window, strokeWidth: thin, layer: .windows))
            add(.line(p(a), p(b), width: thin, colour: PlanColours.window, layer: .windows))
        default:
            for t in [t0, t1] {
                add(.line(p(Self.at(base, t, -h * 1.6)), p(Self.at(base, t, h * 1.6)), width: 0.25, colour: PlanColours.opening,
                          layer: .openings))
            }
            add(.line(p(a), p(b), width: thin, colour: PlanColours.opening, layer: .openings))
        }
    }

    /// One leaf at `hinge`, open square to the wall along `normal`, and its swing arc to `jamb`.
    mutating func leaf(hinge: SIMD2<Double>, jamb: SIMD2<Double>, normal n: SIMD2<Double>) {
        let width = Polygon2D.distance(hinge, jamb)
        add(.line(p(hinge), p(hinge + n * width), width: 0.35, colour: PlanColours.door, layer: .doors))
        // Angles on the paper (y down), of the world directions turned onto it.
        let leaf = onPaper(n), across = onPaper(jamb - hinge)
        let toLeaf = atan2(leaf.y, leaf.x), toJamb = atan2(across.y, across.x)
        var delta = toJamb - toLeaf
        while delta > Double.pi { delta -= 2 * Double.pi }
        while delta < -Double.pi { delta += 2 * Double.pi }
        let (s, e) = delta >= 0 ? (toLeaf, toLeaf + delta) : (toLeaf + delta, toLeaf)
        add(.arc(centre: p(hinge), radius: width * mm, start: s, end: e, width: 0.18, colour: PlanColours.door, layer: .doors))
    }
}
