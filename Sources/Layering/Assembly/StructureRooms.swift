import SceneModel

/// The rooms of a `CapturedStructure` (iOS 17 `StructureBuilder`) and what belongs to each.
///
/// - The elements of the model are the structure's top-level (merged) lists: every wall, door,
///   window, opening, object and the merged floor once, snapped by the merge. A room repeats the
///   identifiers of its walls, doors, windows, openings and objects; its copy is only used to say
///   which room the element is in (the top-level copy wins: its geometry is the merged truth).
///   An element a room lists that is not at the top level is not in the model (it is counted in a
///   `ROOMPLAN_JSON_VALUE_IGNORED` warning).
/// - A room is named by its first identified section (`unidentified` when none), numbered when
///   its label is repeated or unidentified (`StructureRoom.numbers(labels:)`): `Kitchen`,
///   `Bedroom 2`, `Room 1`.
/// - A room is measured from its own floor polygons (`rooms[i].floors`), which RoomPlan gives
///   only there; the top-level floor is one polygon for the whole structure.
enum StructureRooms {
    /// The rooms of `room` when it is a structure (else none), naming each placed element's room.
    static func apply(_ room: CapturedRoom?, to elements: inout [RoomElement], warnings: inout [SceneWarning]) -> [StructureRoom] {
        guard let room, room.isStructure else { return [] }
        let a = assignment(room)
        if a.notInModel > 0 {
            warnings.append(SceneWarning(
                code: LayeringWarningCode.jsonValueIgnored,
                message: "rooms[]: \(a.notInModel) elements of the rooms are not in the structure's merged lists; left out"))
        }
        let rooms = rooms(room, roomOf: a.roomOf, elements: elements)
        for i in elements.indices {
            if let r = a.roomOf[elements[i].identifier.uppercased()] { elements[i].room = rooms[r].name }
        }
        return rooms
    }

    /// Room index of each identifier (uppercased) a room lists, the first room listing it winning,
    /// and how many listed identifiers are not at the top level.
    static func assignment(_ s: CapturedRoom) -> (roomOf: [String: Int], notInModel: Int) {
        var top = Set<String>()
        for id in identifiers(s) { top.insert(id.uppercased()) }
        var roomOf: [String: Int] = [:]
        var notInModel = 0
        for (r, room) in s.rooms.enumerated() {
            for id in identifiers(room) {
                let key = id.uppercased()
                if top.contains(key) {
                    if roomOf[key] == nil { roomOf[key] = r }
                } else if !room.floors.contains(where: { $0.identifier == id }) {
                    notInModel += 1
                }
            }
        }
        return (roomOf, notInModel)
    }

    private static func identifiers(_ r: CapturedRoom) -> [String] {
        r.surfaces.map(\.identifier) + r.objects.map(\.identifier)
    }

    /// The structure's rooms, with the identifiers of the placed `elements` each one holds.
    static func rooms(_ s: CapturedRoom, roomOf: [String: Int], elements: [RoomElement]) -> [StructureRoom] {
        let labels = s.rooms.map { r in r.sections.first { $0.label != "unidentified" }?.label ?? "unidentified" }
        let numbers = StructureRoom.numbers(labels: labels)
        var members = [[String]](repeating: [], count: s.rooms.count)
        for e in elements {
            if let r = roomOf[e.identifier.uppercased()] { members[r].append(e.identifier) }
        }
        return s.rooms.enumerated().map { r, room in
            let section = room.sections.first { $0.label == labels[r] } ?? room.sections.first
            let story = room.story ?? section?.story ?? room.floors.first?.story ?? 0
            return StructureRoom(
                label: labels[r], number: numbers[r], name: StructureRoom.englishName(label: labels[r], number: numbers[r]),
                story: story,
                center: section.map { SIMD3(Double($0.center.x), Double($0.center.y), Double($0.center.z)) },
                floors: room.floors.compactMap(floorPolygon), elements: members[r].sorted())
        }
    }

    /// A floor's polygon in world XZ, counter-clockwise; nil when it has fewer than 3 corners,
    /// no area or non-finite corners.
    static func floorPolygon(_ f: CapturedRoom.Surface) -> [SIMD2<Double>]? {
        let m = Matrix4(columnMajorFloats: f.transform)
        let pts = f.polygonCorners.map { p -> SIMD2<Double> in
            let w = m.transformPoint(SIMD3(Double(p.x), Double(p.y), Double(p.z)))
            return SIMD2(w.x, w.z)
        }
        guard pts.count >= 3, pts.allSatisfy({ $0.x.isFinite && $0.y.isFinite }) else { return nil }
        let a = Polygon2D.signedArea(pts)
        guard abs(a) > 1e-9, a.isFinite else { return nil }
        return a < 0 ? pts.reversed() : pts
    }
}
