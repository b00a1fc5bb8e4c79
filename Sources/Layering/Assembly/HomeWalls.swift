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
///   identifier, naming the other in `sharedWith`), each remade to reach from its face to the
///   centre line between the two faces, so together they are one wall as thick as the gap
///   (`meetAtCentre`); the manifest lists the pairs.
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
        _ elements: inout [RoomElement], rooms: [StructureRoom], curves: [String: CapturedRoom.Curve], metrics: inout RoomMetrics,
        scene: inout Scene
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
        meetAtCentre(shared, elements: elements, scene: &scene)
    }

    /// One wall in the model: each scanned wall of a shared pair is a slab of the synthesised or
    /// exported wall thickness on one side of its face, so the two slabs reach through each other
    /// into the neighbouring room (4 of the 5 shared walls of the sample home, by about 14 cm) or
    /// leave the gap open. Each is remade to span from its own face toward the other wall's face,
    /// half the measured gap deep (the smallest half gap when it meets several), so the two halves
    /// make one wall exactly as thick as the gap and each keeps its node and identifier. Only the
    /// node's transform changes (a positive scale along its own z, anchored at its face), so a mesh
    /// shared by several walls stays shared and no winding flips. Walls whose geometry sits in
    /// child nodes are left as they are.
    static func meetAtCentre(_ shared: [SharedWall], elements: [RoomElement], scene: inout Scene) {
        var cut: [String: (depth: Double, partner: String)] = [:]
        for s in shared where s.gap > 0 {
            for (id, other) in [(s.identifiers[0], s.identifiers[1]), (s.identifiers[1], s.identifiers[0])]
            where s.gap / 2 < cut[id]?.depth ?? .infinity {
                cut[id] = (s.gap / 2, other)
            }
        }
        let world = scene.worldTransforms()
        var nodeOf: [String: Int] = [:]
        for e in elements where world.indices.contains(e.node.rawValue) { nodeOf[e.identifier] = e.node.rawValue }
        for e in elements where e.category == .wall {
            let n = e.node.rawValue
            guard let (d, partner) = cut[e.identifier], let p = nodeOf[partner], scene.nodes.indices.contains(n),
                  let m = scene.nodes[n].mesh?.rawValue, scene.meshes.indices.contains(m),
                  let (low, high) = zRange(scene.meshes[m].positions), high - low > 1e-6
            else { continue }
            // Which way along this wall's own z the other wall's face lies: measured across the
            // other face's plane (the gap), not between the walls' centres, which are apart along
            // their length.
            let a = world[n].m, b = world[p].m
            let normal = SIMD3(b[8], b[9], b[10])
            let across = (SIMD3(b[12], b[13], b[14]) - SIMD3(a[12], a[13], a[14])) * normal
            let toward = (across.x + across.y + across.z) * (SIMD3(a[8], a[9], a[10]) * normal).sum()
            let k = d / (high - low)
            // Toward −z: [high − d, high]; toward +z: [high, high + d] (the face stays where it was scanned).
            let remade = Matrix4.translation(0, 0, high) * Matrix4.scale(1, 1, k) * Matrix4.translation(0, 0, toward < 0 ? -high : -low)
            scene.nodes[n].localTransform = scene.nodes[n].localTransform * remade
        }
    }

    /// The smallest and largest local z of `positions` (x, y, z triples), or nil for none.
    static func zRange(_ positions: [Float]) -> (Double, Double)? {
        guard positions.count >= 3 else { return nil }
        var low = Double.infinity, high = -Double.infinity
        for i in stride(from: 2, to: positions.count, by: 3) {
            low = min(low, Double(positions[i]))
            high = max(high, Double(positions[i]))
        }
        return (low, high)
    }
}
