/// The outline a room's walls enclose, found by chaining their centre lines in plan view.
public enum WallLoop {
    /// The polygon of wall centre lines chained end to end (nearest free end within `tolerance`,
    /// metres; a vertex at each joint, the middle of the two ends), trying up to 32 starting walls;
    /// nil when no chain of ≥ 3 walls closes or there are more than `maxWalls` (the search is
    /// quadratic).
    public static func polygon(
        _ segments: [(a: SIMD2<Double>, b: SIMD2<Double>)], tolerance: Double, maxWalls: Int = 2_000
    ) -> [SIMD2<Double>]? {
        let walls = segments
        guard walls.count >= 3, walls.count <= maxWalls else { return nil }
        for start in 0..<min(walls.count, 32) {
            var used = [Bool](repeating: false, count: walls.count)
            used[start] = true
            var vertices: [SIMD2<Double>] = []
            var cur = walls[start].b
            var count = 1
            while count <= walls.count {
                if count >= 3, Polygon2D.distance(cur, walls[start].a) <= tolerance {
                    vertices.append((cur + walls[start].a) / 2)
                    return vertices
                }
                var best: (d: Double, j: Int, near: SIMD2<Double>, far: SIMD2<Double>)?
                for j in walls.indices where !used[j] {
                    for (near, far) in [(walls[j].a, walls[j].b), (walls[j].b, walls[j].a)] {
                        let d = Polygon2D.distance(cur, near)
                        if d <= tolerance, best == nil || d < best!.d { best = (d, j, near, far) }
                    }
                }
                guard let step = best else { break }
                used[step.j] = true
                vertices.append((cur + step.near) / 2)
                cur = step.far
                count += 1
            }
        }
        return nil
    }
}
