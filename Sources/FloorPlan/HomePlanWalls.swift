import SceneModel

/// The walls and openings of a home as its plan draws them. RoomPlan puts each room's walls on the
/// faces that room sees, so the rooms' floors end at their walls (each room is measured inside its
/// walls) and a wall between two rooms is scanned twice, a few centimetres apart:
/// - a wall scanned from both sides (`SharedWall`) is drawn once, filling the space between its
///   two faces (its measured thickness), or the plan's thickness centred between them when the
///   faces are closer than `SharedWall.minimumMeasured`;
/// - the rest of every wall is drawn the plan's thickness thick on the far side of its face from
///   its room (so no room's floor is covered), running on past the wall's ends by the thickness so
///   corners close;
/// - an opening is drawn on the piece of wall it lies in; a door or opening both rooms scanned
///   (the same kind, on one wall, sharing more than half of the narrower) is drawn once, as the
///   first room scanned it.
enum HomePlanWalls {
    static func redraw(_ g: inout PlanGeometry, thickness: Double) {
        guard g.isHome else { return }
        var walls: [PlanSegment] = []
        for s in g.shared {
            let t = s.gap >= SharedWall.minimumMeasured ? s.thickness : thickness
            let id = "shared:" + s.identifiers.joined(separator: "+")
            var seg = PlanSegment(identifier: id, category: .wall, a: s.from, b: s.to, length: s.length, host: nil, story: s.story)
            seg.thickness = t
            seg.ends = SIMD2(0, 0)
            walls.append(seg)
        }
        for w in g.walls {
            let len = Polygon2D.distance(w.a, w.b)
            guard len > 1e-6 else { continue }
            let u = w.direction
            // The stretches other rooms share, along this wall.
            var covered: [(Double, Double)] = []
            for s in g.shared where s.identifiers.contains(w.identifier) {
                let t0 = ((s.from - w.a) * u).sum(), t1 = ((s.to - w.a) * u).sum()
                covered.append((min(t0, t1), max(t0, t1)))
            }
            covered.sort { $0.0 < $1.0 }
            let out = outward(w, g)
            var start = 0.0
            var pieces: [(Double, Double)] = []
            for (lo, hi) in covered + [(len, len)] {
                if lo > start + 0.01 { pieces.append((start, min(lo, len))) }
                start = max(start, hi)
            }
            for (k, (t0, t1)) in pieces.enumerated() {
                var seg = w
                seg.identifier = k == 0 && pieces.count == 1 ? w.identifier : "\(w.identifier)#\(k + 1)"
                seg.a = w.a + u * t0 + out * (thickness / 2)
                seg.b = w.a + u * t1 + out * (thickness / 2)
                seg.length = t1 - t0
                seg.thickness = thickness
                // Past the wall's own ends by the whole thickness; none where a shared stretch goes on.
                seg.ends = SIMD2(t0 < 0.01 ? thickness : 0, t1 > len - 0.01 ? thickness : 0)
                walls.append(seg)
            }
        }
        g.drawnWalls = walls
        g.drawnOpenings = openings(g.openings, on: walls)
    }

    /// The unit normal of `w` pointing away from its room (the side a point 0.3 m off is not in
    /// its room's floor); zero when its room has no floor that says.
    static func outward(_ w: PlanSegment, _ g: PlanGeometry) -> SIMD2<Double> {
        let u = w.direction, n = SIMD2(-u.y, u.x)
        guard let room = w.room, let floors = g.roomFloors[room] else { return .zero }
        for probe in [0.3, 0.15, 0.6] {
            let plus = floors.contains { RoomPartition.contains($0, w.mid + n * probe) }
            let minus = floors.contains { RoomPartition.contains($0, w.mid - n * probe) }
            if plus != minus { return plus ? -n : n }
        }
        return .zero
    }

    /// Each opening hosted by the drawn wall it lies on (parallel, nearest to its middle, within
    /// 0.3 m), duplicates left out.
    static func openings(_ openings: [PlanSegment], on walls: [PlanSegment]) -> [PlanSegment] {
        var out: [PlanSegment] = []
        for var o in openings {
            o.scannedHost = o.host
            let candidates = walls.filter { w in
                w.story == o.story && abs((w.direction * o.direction).sum()) > 0.95 && RoomPartition.distance(o.mid, w.a, w.b) <= 0.3
            }
            if let best = candidates.min(by: {
                (RoomPartition.distance(o.mid, $0.a, $0.b), $0.identifier) < (RoomPartition.distance(o.mid, $1.a, $1.b), $1.identifier)
            }) {
                o.host = best.identifier
            }
            let twin = out.firstIndex { p in
                guard p.category == o.category, p.host != nil, p.host == o.host else { return false }
                let u = p.direction
                let b0 = ((o.a - p.a) * u).sum(), b1 = ((o.b - p.a) * u).sum()
                let shared = min(p.length, max(b0, b1)) - max(0, min(b0, b1))
                return shared > 0.5 * min(p.length, o.length)
            }
            if let twin { out[twin].twins.append(o) } else { out.append(o) }
        }
        return out
    }
}
