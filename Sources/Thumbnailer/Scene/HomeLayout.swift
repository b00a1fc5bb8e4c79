import SceneModel

/// The rooms of a home (a multi-room structure, `LayeredScene.rooms`), as the views need them:
/// each room's own floor polygons and floor height, the elements it holds, and the height its
/// walls are cut at for the dollhouse views. Nil for a single room or any other model, whose
/// views are made as before.
struct HomeLayout: Sendable {
    struct Room: Sendable {
        /// `StructureRoom.name` (`Kitchen`, `Bedroom 2`).
        var name: String
        /// The room's own floor polygons in world XZ.
        var floors: [[SIMD2<Double>]]
        /// World height of the room's floor.
        var floorY: Double
    }

    /// Walls, doors, windows and openings are cut this high above their room's floor: low enough
    /// for the views from above (55–60°) to see over them into small rooms too, high enough to
    /// read as walls with door gaps.
    static let cutHeight = 0.9
    /// The most rooms that get a card of their own (the rest are still drawn in every view).
    static let maxRoomCards = 32

    var rooms: [Room]
    /// Room index of each element (nil: no room, such as a structure's merged floor).
    var roomOfElement: [Int?]
    /// The lowest room floor.
    var floorY: Double
    /// Floor elements of no room (a structure's merged floor), not drawn when every room has a
    /// floor polygon of its own: the rooms' own floors are drawn instead.
    var hiddenFloors: Set<Int> = []
    /// Rooms with no floor element of their own, whose floor polygons are drawn.
    var roomsWithoutFloorElement: [Int] = []

    init?(_ layered: LayeredScene) {
        guard !layered.rooms.isEmpty else { return nil }
        var index: [String: Int] = [:]
        for (i, r) in layered.rooms.enumerated() where index[r.name] == nil { index[r.name] = i }
        roomOfElement = layered.elements.map { e in e.room.flatMap { index[$0] } }
        // A room's floor: its own floor element, else the base of its walls, else the scene's.
        var floorOf = [Double?](repeating: nil, count: layered.rooms.count)
        var wallBaseOf = [Double?](repeating: nil, count: layered.rooms.count)
        var lowest = Double.infinity
        for (e, el) in layered.elements.enumerated() {
            guard el.category == .floor || el.category == .wall, el.transform.m.count == 16 else { continue }
            let y = el.category == .floor
                ? el.transform.m[13] : el.transform.m[13] - abs(el.dimensions?.y ?? 0) / 2
            guard y.isFinite else { continue }
            lowest = min(lowest, y)
            guard let r = roomOfElement[e] else { continue }
            if el.category == .floor {
                floorOf[r] = min(floorOf[r] ?? y, y)
            } else {
                wallBaseOf[r] = min(wallBaseOf[r] ?? y, y)
            }
        }
        let fallback = lowest.isFinite ? lowest : 0
        rooms = layered.rooms.enumerated().map { i, r in
            Room(name: r.name, floors: r.floors.filter { $0.count >= 3 }, floorY: floorOf[i] ?? wallBaseOf[i] ?? fallback)
        }
        floorY = rooms.map(\.floorY).min() ?? fallback
        if rooms.allSatisfy({ !$0.floors.isEmpty }) {
            hiddenFloors = Set(layered.elements.indices.filter { layered.elements[$0].category == .floor && roomOfElement[$0] == nil })
            roomsWithoutFloorElement = rooms.indices.filter { floorOf[$0] == nil }
        }
    }

    /// Hides the merged floor and draws the floors of the rooms that have no floor element, in
    /// the floor colour (nodes of no element), each at its room's height.
    func drawRoomFloors(_ layered: LayeredScene, to source: inout RenderScene.Source) {
        guard !hiddenFloors.isEmpty || !roomsWithoutFloorElement.isEmpty else { return }
        for i in 0..<source.drawNode.count where source.elementOfNode[i] >= 0 {
            if hiddenFloors.contains(Int(source.elementOfNode[i])) { source.drawNode[i] = false }
        }
        let colour = ColorSpace.linear(hex: CategoryPalette.surface(.floor) ?? 0xD9CDBB)
        RoomMask.addFloors(
            self, rooms: roomsWithoutFloorElement, colours: roomsWithoutFloorElement.map { _ in colour }, lift: 0,
            to: &source)
    }

    /// The height an element is cut at: its room's floor (or the lowest floor) plus `cutHeight`.
    func cutY(element: Int) -> Double {
        let base = element < roomOfElement.count ? roomOfElement[element].map { rooms[$0].floorY } ?? floorY : floorY
        return base + Self.cutHeight
    }

    /// Plan-space bounds (x, z) of a room's floors; nil when it has none.
    func planBounds(room: Int) -> (lo: SIMD2<Double>, hi: SIMD2<Double>)? {
        let points = rooms[room].floors.flatMap { $0 }.filter { $0.x.isFinite && $0.y.isFinite }
        guard let first = points.first else { return nil }
        return points.reduce((first, first)) { (pointwiseMin($0.0, $1), pointwiseMax($0.1, $1)) }
    }

    /// The area-weighted centroid of a room's floors (world XZ); nil when it has no area.
    func centroid(room: Int) -> SIMD2<Double>? {
        var sum = SIMD2<Double>.zero, area = 0.0
        for poly in rooms[room].floors {
            for i in 0..<poly.count {
                let a = poly[i], b = poly[(i + 1) % poly.count]
                let cross = a.x * b.y - b.x * a.y
                area += cross
                sum += (a + b) * cross
            }
        }
        guard abs(area) > 1e-9 else { return nil }
        let c = sum / (3 * area)
        return c.x.isFinite && c.y.isFinite ? c : nil
    }
}
