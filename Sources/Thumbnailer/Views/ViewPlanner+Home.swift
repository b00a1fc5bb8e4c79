import SceneModel

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The views of a home: with every wall cut low (`WallCut`) nothing is cut away per view; the
/// cameras look down more steeply than a room's so the cut walls hide little of the rooms behind
/// them, and the hero is the orbit azimuth that shows the home largest. Each room gets a
/// top-down card framed on its own floor.
extension ViewPlanner {
    static let homeOrbitElevation = 55.0
    static let homeHeroElevation = 60.0

    /// The hero of a home: the orbit azimuth whose fitted camera is nearest (the home fills the
    /// frame best), then diagonal views, then the lowest index.
    func homeHeroCamera(width: Int, height: Int) -> (camera: ThumbnailCamera, index: Int) {
        var best: (distance: Double, diagonal: Int, k: Int)?
        for k in 0..<8 {
            let f = fit(azimuth: azimuth(k), elevation: Self.homeHeroElevation, width: width, height: height)
            // Distances within a centimetre are equal (no choice on rounding noise).
            let d = (f.distance * 100).rounded()
            if best == nil || (d, k % 2, k) < (best!.distance, best!.diagonal, best!.k) { best = (d, k % 2, k) }
        }
        let k = best?.k ?? 0
        return (perspectiveCamera(azimuth: azimuth(k), elevation: Self.homeHeroElevation, width: width, height: height), k)
    }

    /// The top-down card of room `room`: orthographic, looking down with the plan's `up`, framed
    /// on the room's floor with a margin that shows its walls; nil when the room has no floor.
    func roomCardCamera(room: Int, width: Int, height: Int) -> ThumbnailCamera? {
        guard let home, room < home.rooms.count else { return nil }
        let up = planUp
        let right = SIMD3(-up.z, 0, up.x)
        var lo = SIMD2<Double>(repeating: .infinity), hi = SIMD2<Double>(repeating: -.infinity)
        for p in home.rooms[room].floors.joined() where p.x.isFinite && p.y.isFinite {
            let w = SIMD3(p.x, 0, p.y)
            let s = SIMD2(w.dot(right), w.dot(up))
            lo = pointwiseMin(lo, s)
            hi = pointwiseMax(hi, s)
        }
        guard lo.x <= hi.x, lo.y <= hi.y else { return nil }
        // The walls stand outside the floor polygon: 0.3 m on every side, then the margin.
        lo -= SIMD2(repeating: 0.3)
        hi += SIMD2(repeating: 0.3)
        let c = (lo + hi) * 0.5
        let aspect = Double(width) / Double(max(height, 1))
        let half = max((hi.y - lo.y) / 2, (hi.x - lo.x) / 2 / aspect, 0.5) * (1 + Self.margin)
        let centre = right * c.x + up * c.y
        let floorY = home.rooms[room].floorY
        let top = analysis.bounds.isEmpty ? floorY + 3 : max(analysis.bounds.max.y, floorY + 1)
        return .orthographic(
            position: SIMD3(centre.x, top + 1, centre.z), target: SIMD3(centre.x, floorY, centre.z), up: up,
            halfExtent: half)
    }
}
