import SceneModel

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Room metrics from the placed elements (metres, square metres):
/// - floor area and perimeter: the sum over floor elements of their polygon (`polygonCorners`,
///   shoelace in the floor's local XY plane); a USD floor without corners is measured from its
///   mesh (area of the horizontal triangles projected on the plan, length of their boundary); a
///   floor with neither uses its `dimensions` rectangle. With no floor, the wall footprint: the
///   loop formed by chaining wall centre lines end to end in plan view (a vertex at each joint,
///   the middle of the two ends), or, when the walls do not chain into a loop, the convex hull of
///   all wall end points (also above `maxWalls` walls). `floorAreaSource` says `floor` or `walls`;
/// - wall count, total wall length (sum of widths), ceiling height (median wall height);
/// - elements per layer and per story (no story: key −1).
enum RoomMeasurements {
    /// Most walls the closure test and the wall loop consider (both are quadratic); a room with
    /// more is graded not closed and measured by the convex hull. Real rooms have tens of walls.
    static let maxWalls = 2_000

    struct WallSegment {
        var a: SIMD2<Double>
        var b: SIMD2<Double>
    }

    /// The wall's centre line in plan (XZ): its origin ± half its width along local X, or the ends
    /// of its arc when it is curved.
    static func wallSegment(_ e: RoomElement, curve: CapturedRoom.Curve?) -> WallSegment? {
        guard let d = e.dimensions else { return nil }
        let t = e.transform.removingScale
        if let c = curve {
            let p0 = c.center + c.radius * SIMD2(cos(c.startAngle), sin(c.startAngle))
            let p1 = c.center + c.radius * SIMD2(cos(c.endAngle), sin(c.endAngle))
            return WallSegment(a: Plan.point(t.transformPoint(SIMD3(p0.x, 0, p0.y))),
                               b: Plan.point(t.transformPoint(SIMD3(p1.x, 0, p1.y))))
        }
        var x = Plan.point(t.axis(0))
        let len = (x * x).sum().squareRoot()
        guard len > 1e-9, len.isFinite else { return nil }
        x /= len
        let o = Plan.point(t.translation)
        let h = abs(d.x) / 2
        return WallSegment(a: o - x * h, b: o + x * h)
    }

    /// Closed when there are at least 3 walls, every wall end lies within `tolerance` of another
    /// wall (its end or anywhere on its centre line, so T-junctions count), and those contacts
    /// connect all walls.
    static func wallsClosed(_ walls: [WallSegment], tolerance: Double) -> Bool {
        let n = walls.count
        guard n >= 3, n <= maxWalls else { return false }
        var adjacency = [[Int]](repeating: [], count: n)
        for i in 0..<n {
            for p in [walls[i].a, walls[i].b] {
                var touched = false
                for j in 0..<n where j != i {
                    if Plan.distance(p, segment: walls[j].a, walls[j].b) <= tolerance {
                        touched = true
                        adjacency[i].append(j)
                        adjacency[j].append(i)
                    }
                }
                if !touched { return false }
            }
        }
        var seen = [Bool](repeating: false, count: n)
        var stack = [0]
        seen[0] = true
        while let i = stack.popLast() {
            for j in adjacency[i] where !seen[j] {
                seen[j] = true
                stack.append(j)
            }
        }
        return seen.allSatisfy { $0 }
    }

    static func median(_ values: [Double]) -> Double? {
        let v = values.filter { $0.isFinite }.sorted()
        guard !v.isEmpty else { return nil }
        return v.count % 2 == 1 ? v[v.count / 2] : (v[v.count / 2 - 1] + v[v.count / 2]) / 2
    }

    static func metrics(
        elements: [RoomElement], curves: [String: CapturedRoom.Curve],
        usdFloorMeasures: [String: (area: Double, perimeter: Double)], options: LayeringOptions
    ) -> (metrics: RoomMetrics, wallsClosed: Bool?) {
        var m = RoomMetrics()
        let walls = elements.filter { $0.category == .wall }
        m.wallCount = walls.count
        m.wallLength = walls.reduce(0) { $0 + abs($1.dimensions?.x ?? 0) }
        m.ceilingHeight = median(walls.compactMap { $0.dimensions.map { abs($0.y) } })
        for e in elements {
            m.countsPerLayer[e.layer, default: 0] += 1
            m.countsPerStory[e.story ?? -1, default: 0] += 1
        }
        let segments = walls.compactMap { wallSegment($0, curve: curves[$0.identifier]) }
        let closed: Bool? = walls.isEmpty ? nil : wallsClosed(segments, tolerance: options.wallClosureTolerance)

        let floors = elements.filter { $0.category == .floor }
        if !floors.isEmpty {
            var area = 0.0, perimeter = 0.0
            for f in floors {
                let pts = f.polygonCorners.map { SIMD2($0.x, $0.y) }
                if pts.count >= 3 {
                    area += abs(Polygon2D.signedArea(pts))
                    perimeter += Polygon2D.perimeter(pts)
                } else if let u = usdFloorMeasures[f.identifier] {
                    area += u.area
                    perimeter += u.perimeter
                } else if let d = f.dimensions {
                    area += abs(d.x * d.y)
                    perimeter += 2 * (abs(d.x) + abs(d.y))
                }
            }
            m.floorArea = area
            m.perimeter = perimeter
            m.floorAreaSource = "floor"
        } else if !segments.isEmpty {
            let polygon = WallLoop.polygon(segments.map { ($0.a, $0.b) }, tolerance: options.wallClosureTolerance, maxWalls: maxWalls)
                ?? Polygon2D.convexHull(segments.flatMap { [$0.a, $0.b] })
            if polygon.count >= 3 {
                m.floorArea = abs(Polygon2D.signedArea(polygon))
                m.perimeter = Polygon2D.perimeter(polygon)
                m.floorAreaSource = "walls"
            }
        }
        return (m, closed)
    }
}
