import SceneModel

/// Divides each story's floor into rooms and measures them. The rules:
/// - a story's outline is its RoomPlan floor polygon(s) (for a floor with a mesh but no polygon,
///   the boundary of its triangles); without a floor, the loop its walls chain into (`WallLoop`)
///   when it encloses at least half their convex hull, else that hull;
/// - a section (RoomPlan gives only a labelled centre point) takes the outline that contains its
///   centre, or the nearest one; several sections in one outline divide it along the lines
///   halfway between their centres (RoomPlan reports no boundary between them);
/// - a story without sections is one room, labelled `room`;
/// - a multi-room structure's rooms are not cut at all: each is its own RoomPlan floor
///   (`RoomPartition+Structure`);
/// - areas and perimeters are those of the polygons: openings and wall thickness are not
///   subtracted.
enum RoomPartition {
    static let closureTolerance = 0.30
    /// Walls and openings this close to a room's boundary belong to it, metres.
    static let boundaryReach = 0.15
    /// Most sections per story considered (each split is quadratic in the section count).
    static let maxSections = 64

    struct Outline {
        var polygon: [SIMD2<Double>]
        var source: String
    }

    static func outlines(_ g: PlanGeometry, story: Int) -> [Outline] {
        let floors = g.floors(story: story)
        if !floors.isEmpty { return floors.map { Outline(polygon: $0, source: "floor") } }
        let walls = g.walls(story: story)
        guard !walls.isEmpty else { return [] }
        // The wall loop, unless it closes around a small part of the walls (then their hull).
        let hull = Polygon2D.convexHull(walls.flatMap { [$0.a, $0.b] })
        var p = hull
        if let loop = WallLoop.polygon(walls.map { ($0.a, $0.b) }, tolerance: closureTolerance),
            abs(Polygon2D.signedArea(loop)) >= 0.5 * abs(Polygon2D.signedArea(hull))
        {
            p = loop
        }
        guard p.count >= 3, abs(Polygon2D.signedArea(p)) > 1e-6 else { return [] }
        if Polygon2D.signedArea(p) < 0 { p.reverse() }
        return [Outline(polygon: p, source: "walls")]
    }

    /// The rooms of every story; `outlines` holds each story's `outlines(_:story:)`, found once by
    /// the caller (the sheets draw them too).
    static func rooms(
        _ g: PlanGeometry, outlines byStory: [Int: [Outline]], sections: [RoomSection], vocabulary: PlanVocabulary
    ) -> [RoomFigures] {
        var out: [RoomFigures] = []
        for story in g.stories {
            let outlines = byStory[story] ?? []
            guard !outlines.isEmpty else { continue }
            let here = sections.filter { ($0.story ?? 0) == story && $0.center.x.isFinite && $0.center.z.isFinite }
                .prefix(maxSections)
            if here.isEmpty {
                for o in outlines { out.append(figures(g, story: story, label: "room", section: nil, polygon: o.polygon, source: o.source, vocabulary)) }
                continue
            }
            // Each section to the outline containing its centre, else the nearest.
            var members = [[RoomSection]](repeating: [], count: outlines.count)
            for s in here {
                let c = SIMD2(s.center.x, s.center.z)
                let k = outlines.indices.min { a, b in
                    distanceOutside(c, outlines[a].polygon) < distanceOutside(c, outlines[b].polygon)
                }!
                members[k].append(s)
            }
            for (k, o) in outlines.enumerated() {
                let group = members[k]
                if group.isEmpty {
                    out.append(figures(g, story: story, label: "room", section: nil, polygon: o.polygon, source: o.source, vocabulary))
                    continue
                }
                for s in group {
                    var poly = o.polygon
                    let c = SIMD2(s.center.x, s.center.z)
                    for other in group where other != s {
                        let d = SIMD2(other.center.x, other.center.z)
                        guard Polygon2D.distance(c, d) > 1e-6 else { continue }
                        poly = clip(poly, keepingCloserTo: c, than: d)
                    }
                    guard poly.count >= 3 else { continue }
                    out.append(figures(g, story: story, label: s.label, section: s, polygon: poly,
                                       source: group.count > 1 ? o.source + "+split" : o.source, vocabulary))
                }
            }
        }
        return out
    }

    static func figures(
        _ g: PlanGeometry, story: Int, label: String, section: RoomSection?, polygon: [SIMD2<Double>], source: String,
        _ vocabulary: PlanVocabulary
    ) -> RoomFigures {
        var ids: [String] = []
        for o in g.objects(story: story) where contains(polygon, o.centre) { ids.append(o.identifier) }
        for s in g.walls(story: story) + g.openings(story: story) where distanceOutside(s.mid, polygon) <= boundaryReach {
            ids.append(s.identifier)
        }
        var out = RoomFigures(
            label: label, name: vocabulary.section(label), story: story, area: abs(Polygon2D.signedArea(polygon)),
            perimeter: Polygon2D.perimeter(polygon), center: section?.center, polygonSource: source,
            elements: ids.sorted(), polygon: polygon)
        out.wallLengths = wallLengths(g, story: story, of: ids)
        return out
    }

    /// The part of `polygon` nearer to `c` than to `d` (one half-plane clip; the area is exact for
    /// any simple polygon).
    static func clip(_ polygon: [SIMD2<Double>], keepingCloserTo c: SIMD2<Double>, than d: SIMD2<Double>) -> [SIMD2<Double>] {
        let n = d - c, m = (c + d) / 2
        func f(_ p: SIMD2<Double>) -> Double { ((p - m) * n).sum() }
        var out: [SIMD2<Double>] = []
        for i in polygon.indices {
            let p = polygon[i], q = polygon[(i + 1) % polygon.count]
            let fp = f(p), fq = f(q)
            if fp <= 0 { out.append(p) }
            if (fp < 0 && fq > 0) || (fp > 0 && fq < 0) {
                out.append(p + (q - p) * (fp / (fp - fq)))
            }
        }
        return out
    }

    /// Even-odd point-in-polygon test.
    static func contains(_ polygon: [SIMD2<Double>], _ p: SIMD2<Double>) -> Bool {
        var inside = false
        var j = polygon.count - 1
        for i in polygon.indices {
            let a = polygon[i], b = polygon[j]
            if (a.y > p.y) != (b.y > p.y), p.x < (b.x - a.x) * (p.y - a.y) / (b.y - a.y) + a.x { inside.toggle() }
            j = i
        }
        return inside
    }

    /// 0 inside the polygon, else the distance to its boundary.
    static func distanceOutside(_ p: SIMD2<Double>, _ polygon: [SIMD2<Double>]) -> Double {
        if contains(polygon, p) { return 0 }
        var best = Double.infinity
        for i in polygon.indices {
            best = min(best, distance(p, polygon[i], polygon[(i + 1) % polygon.count]))
        }
        return best
    }

    static func distance(_ p: SIMD2<Double>, _ a: SIMD2<Double>, _ b: SIMD2<Double>) -> Double {
        let d = b - a
        let l2 = (d * d).sum()
        let t = l2 > 1e-18 ? min(max(((p - a) * d).sum() / l2, 0), 1) : 0
        return Polygon2D.distance(p, a + d * t)
    }
}
