import SceneModel

/// The door and window schedule of a plan: one row per door, window and opening it draws (a door
/// both rooms of a home scanned is one row with both identifiers), with RoomPlan's width and
/// height, the sill height above its story's floor, its rooms (those of the plan whose elements
/// hold it) and its walls (RoomPlan's host, else the parallel wall it lies on within 0.3 m).
/// Ordered by story, then doors, windows, openings, then room and identifier.
enum OpeningSchedule {
    static let kindOrder: [ElementCategory] = [.door, .window, .opening]

    static func rows(_ g: PlanGeometry, rooms: [RoomFigures]) -> [OpeningFigures] {
        var out: [OpeningFigures] = []
        for o in g.drawnOpenings where o.length >= PlanGeometry.minimumOpening {
            let all = [o] + o.twins
            let ids = all.map(\.identifier)
            let names = rooms.filter { r in r.story == o.story && ids.contains(where: r.elements.contains) }.map(\.name)
            var walls: [String] = []
            for s in all {
                if let w = s.scannedHost ?? (g.isHome ? nil : s.host) ?? wall(of: s, g), !walls.contains(w) { walls.append(w) }
            }
            let floor = g.floorHeights[o.story].flatMap { $0.isEmpty ? nil : $0.sorted()[$0.count / 2] }
            let sill = o.bottom.flatMap { b in floor.map { max(0, b - $0) } }
            out.append(OpeningFigures(kind: o.category.rawValue, identifiers: ids, story: o.story, width: o.length, height: o.height,
                                      sillHeight: sill, rooms: names, walls: walls))
        }
        func order(_ r: OpeningFigures) -> Int { kindOrder.firstIndex { $0.rawValue == r.kind } ?? kindOrder.count }
        return out.sorted {
            ($0.story, order($0), $0.rooms.first ?? "", $0.identifiers[0]) < ($1.story, order($1), $1.rooms.first ?? "", $1.identifiers[0])
        }
    }

    /// The scanned wall an opening lies on: parallel, its middle within 0.3 m, the nearest.
    static func wall(of o: PlanSegment, _ g: PlanGeometry) -> String? {
        g.walls(story: o.story).filter { w in
            abs((w.direction * o.direction).sum()) > 0.95 && RoomPartition.distance(o.mid, w.a, w.b) <= 0.3
        }.min { (RoomPartition.distance(o.mid, $0.a, $0.b), $0.identifier) < (RoomPartition.distance(o.mid, $1.a, $1.b), $1.identifier) }?
            .identifier
    }
}
