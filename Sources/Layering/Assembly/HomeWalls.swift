import SceneModel

/// What makes the rooms of a home one building rather than rooms side by side:
/// - **floors levelled**: RoomPlan measures each room from the phone's height when its scan
///   began, so the rooms' floors of one story land a few centimetres apart (−1.40 … −1.48 m in the
///   sample home). Each story's room floors are moved to the median of their heights, in the
///   elements and in the model's nodes; a floor more than `FloorLevel.maxChange` away is a real
///   step and stays;
/// - **shared walls**: a wall two rooms scanned from its two sides (`SharedWallFinder`) is one
///   wall in the metrics: `wallCount` counts the walls joined by shared walls once, `wallLength`
///   counts each shared stretch once; the model keeps both scanned walls (each with its own
///   identifier and geometry, naming the other in `sharedWith`) and the manifest lists the pairs.
/// Nothing changes for a single room (no element names a room).
enum HomeWalls {
    /// Moves each story's room floors to the story's level; returns the levels.
    static func levelFloors(_ elements: inout [RoomElement], scene: inout Scene) -> [FloorLevel] {
        var byStory: [Int: [Int]] = [:]
        for (i, e) in elements.enumerated() where e.category == .floor && e.room != nil && e.transform.m[13].isFinite {
            byStory[e.story ?? 0, default: []].append(i)
        }
        var out: [FloorLevel] = []
        for story in byStory.keys.sorted() {
            let floors = byStory[story]!
            guard floors.count >= 2, let level = RoomMeasurements.median(floors.map { elements[$0].transform.m[13] }) else { continue }
            var moved = 0, largest = 0.0
            for i in floors {
                let change = level - elements[i].transform.m[13]
                guard change != 0, abs(change) <= FloorLevel.maxChange else { continue }
                elements[i].transform.m[13] = level
                let node = elements[i].node.rawValue
                if scene.nodes.indices.contains(node) { scene.nodes[node].localTransform.m[13] += change }
                moved += 1
                largest = max(largest, abs(change))
            }
            out.append(FloorLevel(story: story, height: level, moved: moved, largestChange: largest))
        }
        return out
    }

    /// The shared walls of a home's rooms, and the metrics counting each once.
    static func joinWalls(
        _ elements: inout [RoomElement], rooms: [StructureRoom], curves: [String: CapturedRoom.Curve], metrics: inout RoomMetrics
    ) {
        guard !rooms.isEmpty else { return }
        var roomIndex: [String: Int] = [:]
        for (i, r) in rooms.enumerated() where roomIndex[r.name] == nil { roomIndex[r.name] = i }
        var faces: [SharedWallFinder.Face] = []
        for e in elements where e.category == .wall {
            guard let name = e.room, let r = roomIndex[name], let s = RoomMeasurements.wallSegment(e, curve: curves[e.identifier]),
                curves[e.identifier] == nil
            else { continue }
            faces.append(SharedWallFinder.Face(identifier: e.identifier, room: r, story: e.story ?? 0, a: s.a, b: s.b))
        }
        let shared = SharedWallFinder.find(faces, roomNames: rooms.map(\.name))
        guard !shared.isEmpty else { return }
        metrics.sharedWalls = shared
        metrics.wallCount = SharedWallFinder.wallCount(elements.filter { $0.category == .wall }.map(\.identifier), shared: shared)
        metrics.wallLength -= shared.reduce(0) { $0 + $1.length }
        var partners: [String: [String]] = [:]
        for s in shared {
            partners[s.identifiers[0], default: []].append(s.identifiers[1])
            partners[s.identifiers[1], default: []].append(s.identifiers[0])
        }
        for i in elements.indices { if let p = partners[elements[i].identifier] { elements[i].sharedWith = p.sorted() } }
    }
}
