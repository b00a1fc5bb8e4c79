import SceneModel

/// The rooms of a multi-room structure: RoomPlan gives each room its own floor, so no room is cut
/// from another. A room's figures measure its floor polygons (the largest one is drawn and
/// labelled; the area and perimeter sum them all); its elements are those the structure assigns to
/// it; its name is the section's in the plan's language, numbered as `StructureRoom.number` says.
/// Rooms without a usable floor polygon, or on a story the plan does not draw, are left out.
extension RoomPartition {
    static func rooms(_ g: PlanGeometry, structure: [StructureRoom], vocabulary: PlanVocabulary) -> [RoomFigures] {
        var out: [RoomFigures] = []
        let drawn = Set(g.stories)
        for room in structure where drawn.contains(room.story) {
            let floors = room.floors.filter { f in
                f.count >= 3 && f.allSatisfy { abs($0.x) < PlanGeometry.maxExtent && abs($0.y) < PlanGeometry.maxExtent }
            }
            guard let largest = floors.max(by: { abs(Polygon2D.signedArea($0)) < abs(Polygon2D.signedArea($1)) }) else { continue }
            let base = vocabulary.section(room.label)
            var figures = RoomFigures(
                label: room.label, name: room.number.map { "\(base) \($0)" } ?? base, story: room.story,
                area: floors.reduce(0) { $0 + abs(Polygon2D.signedArea($1)) },
                perimeter: floors.reduce(0) { $0 + Polygon2D.perimeter($1) }, center: room.center,
                polygonSource: "room", elements: room.elements, polygon: largest)
            figures.wallLengths = wallLengths(g, story: room.story, of: room.elements)
            out.append(figures)
        }
        return out
    }

    /// RoomPlan's width of each wall of `identifiers` that the plan draws, by identifier.
    static func wallLengths(_ g: PlanGeometry, story: Int, of identifiers: [String]) -> [String: Double] {
        let ids = Set(identifiers)
        var out: [String: Double] = [:]
        for w in g.walls(story: story) where ids.contains(w.identifier) { out[w.identifier] = w.length }
        return out
    }
}
