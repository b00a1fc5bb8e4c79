import SceneModel

/// A wall, door, window or opening seen from above: a segment in world XZ (metres).
struct PlanSegment: Sendable {
    var identifier: String
    var category: ElementCategory
    var a: SIMD2<Double>
    var b: SIMD2<Double>
    /// RoomPlan's width of the element (the segment's length), metres.
    var length: Double
    var host: String?
    var story: Int
    /// The room of a home the element is in (`StructureRoom.name`); nil in a single room.
    var room: String? = nil
    /// The drawn thickness, metres, when not the plan's (a home's shared or outer wall).
    var thickness: Double? = nil
    /// How far the drawn wall runs past each end, metres, when not half its thickness.
    var ends: SIMD2<Double>? = nil
    /// RoomPlan's height of the element and the world height of its bottom edge, metres.
    var height: Double? = nil
    var bottom: Double? = nil
    /// The wall RoomPlan or the plan put it in, before a home's walls were redrawn.
    var scannedHost: String? = nil
    /// The same door, window or opening scanned from the other room of a home (not drawn).
    var twins: [PlanSegment] = []

    var mid: SIMD2<Double> { (a + b) / 2 }
    var direction: SIMD2<Double> {
        let d = b - a
        let l = (d * d).sum().squareRoot()
        return l > 1e-12 ? d / l : SIMD2(1, 0)
    }
}

/// An object's footprint: a box seen from above.
struct PlanFootprint: Sendable {
    var identifier: String
    var category: ElementCategory
    var centre: SIMD2<Double>
    /// Unit vector of the box's width axis.
    var axis: SIMD2<Double>
    var halfWidth: Double
    var halfDepth: Double
    var story: Int

    var corners: [SIMD2<Double>] {
        let v = SIMD2(-axis.y, axis.x)
        return [centre - axis * halfWidth - v * halfDepth, centre + axis * halfWidth - v * halfDepth,
                centre + axis * halfWidth + v * halfDepth, centre - axis * halfWidth + v * halfDepth]
    }
}

/// The elements of a room that a plan draws, per story, taken from the element semantics
/// (category, transform, RoomPlan dimensions, floor polygons). Elements without dimensions or
/// with non-finite numbers are left out.
struct PlanGeometry: Sendable {
    var walls: [PlanSegment] = []
    var openings: [PlanSegment] = []
    var objects: [PlanFootprint] = []
    /// Floor polygons in world XZ, counter-clockwise.
    var floors: [(story: Int, polygon: [SIMD2<Double>])] = []
    var stories: [Int] = []
    /// What the plan draws as walls and openings: the walls and openings themselves for a single
    /// room; for a home, as `HomePlanWalls` redraws them (one wall where two rooms meet).
    var drawnWalls: [PlanSegment] = []
    var drawnOpenings: [PlanSegment] = []
    /// A home's walls scanned from both sides (`RoomMetrics.sharedWalls`), and each room's own
    /// floors by `StructureRoom.name`; empty for a single room.
    var shared: [SharedWall] = []
    var roomFloors: [String: [[SIMD2<Double>]]] = [:]
    /// The world heights of each story's floors (levelled in a home), for sill heights.
    var floorHeights: [Int: [Double]] = [:]

    /// Room-scale limits: a plan covers at most 200 m each way and reads at most `maxElements`
    /// elements, of which at most `maxPerKind` walls, openings and objects each (real rooms have
    /// tens; the drawing's placement steps are quadratic in these counts).
    static let maxExtent = 200.0
    static let maxElements = 20_000
    static let maxPerKind = 2_000
    /// Doors, windows and openings narrower than this are not drawn (nor scheduled): scanning
    /// noise, not a way through, metres.
    static let minimumOpening = 0.1
    /// Most stories drawn (a sheet and a PDF page each); RoomPlan captures have a handful.
    static let maxStories = 16

    init(_ layered: LayeredScene) {
        var storySet = Set<Int>()
        var world: [Matrix4]?
        for e in layered.elements.prefix(Self.maxElements) {
            let story = e.story ?? 0
            let m = e.transform
            let centre3 = m.transformPoint(.zero)
            let centre = SIMD2(centre3.x, centre3.z)
            guard centre.x.isFinite, centre.y.isFinite, abs(centre.x) < Self.maxExtent, abs(centre.y) < Self.maxExtent else { continue }
            if e.category == .floor {
                var pts = e.polygonCorners.map { p -> SIMD2<Double> in
                    let w = m.transformPoint(p)
                    return SIMD2(w.x, w.z)
                }
                if pts.count < 3 {
                    // A floor with a mesh but no polygon: the outline of its triangles.
                    if world == nil { world = layered.scene.worldTransforms() }
                    pts = FloorOutline.polygon(layered, node: e.node, world: world!) ?? []
                }
                // Every corner inside the plan's extent too (a small floor's corners may be hostile).
                if pts.count >= 3, pts.allSatisfy({ abs($0.x) < Self.maxExtent && abs($0.y) < Self.maxExtent }),
                    abs(Polygon2D.signedArea(pts)) > 1e-6
                {
                    floors.append((story, Polygon2D.signedArea(pts) < 0 ? pts.reversed() : pts))
                    if centre3.y.isFinite { floorHeights[story, default: []].append(centre3.y) }
                    storySet.insert(story)
                }
                continue
            }
            guard let d = e.dimensions, d.x.isFinite, d.z.isFinite, d.x >= 0, d.x < Self.maxExtent, d.z < Self.maxExtent else { continue }
            let x3 = m.transformVector(SIMD3(1, 0, 0))
            var axis = SIMD2(x3.x, x3.z)
            let len = (axis * axis).sum().squareRoot()
            guard len.isFinite, len > 1e-6 else { continue }
            axis /= len
            switch e.category {
            case .wall, .door, .window, .opening:
                guard d.x > 0.01 else { continue }
                var seg = PlanSegment(identifier: e.identifier, category: e.category, a: centre - axis * d.x / 2,
                                      b: centre + axis * d.x / 2, length: d.x, host: e.parentIdentifier, story: story,
                                      room: e.room)
                if d.y.isFinite, d.y >= 0 {
                    seg.height = d.y
                    seg.bottom = centre3.y - d.y / 2
                }
                if e.category == .wall {
                    guard walls.count < Self.maxPerKind else { continue }
                    walls.append(seg)
                } else {
                    guard openings.count < Self.maxPerKind else { continue }
                    openings.append(seg)
                }
                storySet.insert(story)
            default:
                guard e.category != .unclassified, d.x > 0.01, d.z > 0.01, objects.count < Self.maxPerKind else { continue }
                objects.append(PlanFootprint(identifier: e.identifier, category: e.category, centre: centre, axis: axis,
                                             halfWidth: d.x / 2, halfDepth: d.z / 2, story: story))
            }
        }
        // At most `maxStories` sheets: the lowest story indices.
        stories = Array(storySet.sorted().prefix(Self.maxStories))
        if storySet.count > Self.maxStories {
            let kept = Set(stories)
            walls.removeAll { !kept.contains($0.story) }
            openings.removeAll { !kept.contains($0.story) }
            objects.removeAll { !kept.contains($0.story) }
            floors.removeAll { !kept.contains($0.story) }
        }
        drawnWalls = walls
        drawnOpenings = openings
        shared = layered.metrics.sharedWalls.filter { Set(stories).contains($0.story) }
        for r in layered.rooms { roomFloors[r.name, default: []] += r.floors }
    }

    /// True when there is something to draw a plan of: at least one wall.
    var isRoom: Bool { !walls.isEmpty }

    func walls(story: Int) -> [PlanSegment] { walls.filter { $0.story == story } }
    func openings(story: Int) -> [PlanSegment] { openings.filter { $0.story == story } }
    func objects(story: Int) -> [PlanFootprint] { objects.filter { $0.story == story } }
    func floors(story: Int) -> [[SIMD2<Double>]] { floors.filter { $0.story == story }.map(\.polygon) }
    func drawnWalls(story: Int) -> [PlanSegment] { drawnWalls.filter { $0.story == story } }
    func drawnOpenings(story: Int) -> [PlanSegment] { drawnOpenings.filter { $0.story == story } }
    /// True for a home of several rooms.
    var isHome: Bool { !roomFloors.isEmpty }
}
