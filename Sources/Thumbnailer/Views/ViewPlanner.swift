import SceneModel

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Chooses the cameras of every view and the walls each perspective view cuts away.
///
/// Orbit frames sit every 45° around the room at 35° elevation, starting on a diagonal of the
/// walls (room-like scenes) or front-right (other models). The hero is the orbit azimuth with the
/// fewest walls between the eye and the floor, then the most visible floor and objects after
/// the cutaway, then diagonal views, then the lowest index. Framing fits the scene's bounding
/// box with a margin and centres it on screen. Every choice is a pure function of the input.
struct ViewPlanner {
    let analysis: RoomAnalysis
    let elements: [RoomElement]
    /// A home's rooms: its walls are cut low instead of cut away, and the views are framed on
    /// every room (`ViewPlanner+Home`).
    var home: HomeLayout? = nil

    static let orbitElevation = 35.0
    static let heroElevation = 38.0
    static let fov = 38.0
    static let margin = 0.06

    /// Azimuth (radians) of orbit frame `k`; the camera sits at centre + (sin θ, ·, cos θ).
    func azimuth(_ k: Int) -> Double {
        let first = analysis.roomLike ? Double.pi / 4 - analysis.wallAngle : Double.pi / 4
        return first + Double(k) * Double.pi / 4
    }

    /// The eight orbit frames: each framed on what it shows, all at the distance of the farthest
    /// so the carousel keeps one scale.
    func orbitCameras(width: Int, height: Int) -> [ThumbnailCamera] {
        let elevation = home == nil ? Self.orbitElevation : Self.homeOrbitElevation
        let fits = (0..<8).map {
            fit(azimuth: azimuth($0), elevation: elevation, width: width, height: height)
        }
        let distance = fits.map(\.distance).max() ?? 1
        return fits.map { f in
            .perspective(
                position: f.target + f.direction * distance, target: f.target, up: SIMD3(0, 1, 0),
                fovDegrees: Self.fov)
        }
    }

    /// The hero camera and the orbit index it was chosen from.
    func heroCamera(width: Int, height: Int) -> (camera: ThumbnailCamera, index: Int) {
        if home != nil { return homeHeroCamera(width: width, height: height) }
        guard analysis.roomLike else {
            return (
                perspectiveCamera(azimuth: azimuth(0), elevation: Self.heroElevation, width: width, height: height), 0
            )
        }
        var best: (occluders: Int, visible: Int, diagonal: Int, k: Int)?
        for k in 0..<8 {
            let cam = perspectiveCamera(
                azimuth: azimuth(k), elevation: Self.heroElevation, width: width, height: height)
            let score = heroScore(eye: cam.position)
            let key = (score.occluders, -score.visible, k % 2, k)
            if best == nil || key < (best!.occluders, -best!.visible, best!.diagonal, best!.k) {
                best = (score.occluders, score.visible, k % 2, k)
            }
        }
        let k = best?.k ?? 0
        return (perspectiveCamera(azimuth: azimuth(k), elevation: Self.heroElevation, width: width, height: height), k)
    }

    /// Walls crossed on the way from the eye to points of the floor (all walls), and floor or
    /// object points left visible once the walls facing the eye are cut away.
    func heroScore(eye: SIMD3<Double>) -> (occluders: Int, visible: Int) {
        let b = analysis.shellBounds
        guard !b.isEmpty else { return (0, 0) }
        let walls = analysis.shapes.filter { $0.category == .wall }
        let cut = Set(cutawayElements(eye: eye))
        var floorPoints: [SIMD3<Double>] = []
        for i in 0..<5 {
            for j in 0..<5 {
                let x = b.min.x + (b.max.x - b.min.x) * (Double(i) + 0.5) / 5
                let z = b.min.z + (b.max.z - b.min.z) * (Double(j) + 0.5) / 5
                floorPoints.append(SIMD3(x, analysis.floorY + 0.05, z))
            }
        }
        var occluders = 0
        for p in [analysis.centre.withY(analysis.floorY + 0.05)]
            + floorPoints.enumerated().filter({ $0.offset % 6 == 0 }).map({ $0.element })
        {
            for w in walls where segmentHitsWall(eye, p, w) { occluders += 1 }
        }
        var targets = floorPoints
        for s in analysis.shapes where !RoomAnalysis.structural.contains(s.category) && s.category != .floor {
            targets.append(s.centre)
        }
        var visible = 0
        for p in targets where !walls.contains(where: { !cut.contains($0.element) && segmentHitsWall(eye, p, $0) }) {
            visible += 1
        }
        return (occluders, visible)
    }

    /// Whether the segment a→b passes through a wall's box (thickened to 10 cm, shrunk 2 cm at
    /// the ends so walls meeting at corners do not count twice).
    private func segmentHitsWall(_ a: SIMD3<Double>, _ b: SIMD3<Double>, _ w: ElementShape) -> Bool {
        let la = w.local(a), lb = w.local(b)
        let midZ = (w.lo.z + w.hi.z) / 2
        let halfT = max((w.hi.z - w.lo.z) / 2, 0.05)
        let lo = SIMD3(w.lo.x + 0.02, w.lo.y, midZ - halfT), hi = SIMD3(w.hi.x - 0.02, w.hi.y, midZ + halfT)
        var t0 = 0.0, t1 = 1.0
        let d = lb - la
        for axis in 0..<3 {
            if abs(d[axis]) < 1e-12 {
                if la[axis] < lo[axis] || la[axis] > hi[axis] { return false }
            } else {
                var ta = (lo[axis] - la[axis]) / d[axis], tb = (hi[axis] - la[axis]) / d[axis]
                if ta > tb { swap(&ta, &tb) }
                t0 = max(t0, ta)
                t1 = min(t1, tb)
                if t0 > t1 { return false }
            }
        }
        return true
    }

    /// Elements hidden for an eye position (dollhouse cutaway): walls whose plane separates the
    /// eye from the room centre, and the doors, windows and openings they host (or that stand
    /// in such a plane themselves). Empty for scenes that are not rooms, and for homes, whose
    /// walls are cut low instead (`WallCut`).
    func cutawayElements(eye: SIMD3<Double>) -> [Int] {
        guard analysis.roomLike, home == nil else { return [] }
        var hiddenWalls = Set<String>()
        var out: [Int] = []
        func separates(_ s: ElementShape) -> Bool {
            var n = SIMD3(s.ez.x, 0, s.ez.z)
            n = n.normalizedOrZero
            guard n != .zero else { return false }
            let mid = s.point(SIMD3(0, 0, (s.lo.z + s.hi.z) / 2))
            let ce = (analysis.centre - mid).dot(n), ee = (eye - mid).dot(n)
            return abs(ce) > 0.2 && (ce > 0) != (ee > 0)
        }
        for s in analysis.shapes where s.category == .wall && separates(s) {
            out.append(s.element)
            hiddenWalls.insert(elements[s.element].identifier)
        }
        for s in analysis.shapes where s.category != .wall && RoomAnalysis.structural.contains(s.category) {
            if let host = elements[s.element].parentIdentifier, hiddenWalls.contains(host) {
                out.append(s.element)
            } else if elements[s.element].parentIdentifier == nil && separates(s) {
                out.append(s.element)
            }
        }
        return out.sorted()
    }

    /// A perspective camera at an azimuth and elevation fitted to what it shows.
    func perspectiveCamera(azimuth: Double, elevation: Double, width: Int, height: Int) -> ThumbnailCamera {
        let f = fit(azimuth: azimuth, elevation: elevation, width: width, height: height)
        return .perspective(
            position: f.target + f.direction * f.distance, target: f.target, up: SIMD3(0, 1, 0),
            fovDegrees: Self.fov)
    }

    /// The points a view from `direction` (unit, from the scene toward the eye) frames: the boxes
    /// of the elements it does not cut away (rooms), or the model's frame points.
    func visiblePoints(direction: SIMD3<Double>) -> [SIMD3<Double>] {
        guard analysis.roomLike else { return analysis.framePoints }
        let hidden = Set(cutawayElements(eye: analysis.centre + direction * (analysis.radius * 20 + 10)))
        var points: [SIMD3<Double>] = []
        for s in analysis.shapes where !hidden.contains(s.element) {
            for i in 0..<8 {
                let p = s.point(
                    SIMD3(i & 1 == 0 ? s.lo.x : s.hi.x, i & 2 == 0 ? s.lo.y : s.hi.y, i & 4 == 0 ? s.lo.z : s.hi.z))
                if p.isFinite { points.append(p) }
            }
        }
        points += analysis.loosePoints
        return points.isEmpty ? analysis.framePoints : points
    }

    /// Target and distance that fit a view direction's points with the margin, centred on screen.
    func fit(
        azimuth: Double, elevation: Double, width: Int, height: Int
    )
        -> (target: SIMD3<Double>, direction: SIMD3<Double>, distance: Double)
    {
        let b = analysis.bounds
        let el = elevation * Double.pi / 180
        let dir = SIMD3(sin(azimuth) * cos(el), sin(el), cos(azimuth) * cos(el))
        let f = -dir
        let r = f.cross(SIMD3(0, 1, 0)).normalizedOrZero
        let u = r.cross(f)
        let tanY = tan(Self.fov * Double.pi / 360), tanX = tanY * Double(width) / Double(max(height, 1))
        var corners = visiblePoints(direction: dir)
        if corners.isEmpty {
            for i in 0..<8 {
                corners.append(
                    SIMD3(
                        i & 1 == 0 ? b.min.x : b.max.x, i & 2 == 0 ? b.min.y : b.max.y, i & 4 == 0 ? b.min.z : b.max.z))
            }
        }
        var target = b.center
        var distance = analysis.radius * 3
        let fx = tanX * (1 - Self.margin), fy = tanY * (1 - Self.margin)
        for _ in 0..<6 {
            distance = 0
            for p in corners {
                let d = p - target
                let x = d.dot(r), y = d.dot(u), z = d.dot(f)
                distance = max(distance, abs(x) / fx - z, abs(y) / fy - z)
            }
            distance = max(distance, analysis.radius * 0.2)
            var lo = SIMD2<Double>(repeating: .infinity), hi = SIMD2<Double>(repeating: -.infinity)
            for p in corners {
                let d = p - target
                let depth = d.dot(f) + distance
                guard depth > 1e-9 else { continue }
                let s = SIMD2(d.dot(r) / (depth * tanX), d.dot(u) / (depth * tanY))
                lo = pointwiseMin(lo, s)
                hi = pointwiseMax(hi, s)
            }
            let c = (lo + hi) * 0.5
            guard c.x.isFinite, c.y.isFinite else { break }
            target += r * (c.x * tanX * distance) + u * (c.y * tanY * distance)
        }
        return (target, dir, distance)
    }

    /// The orthographic top-down camera: looking down −Y, screen up along the wall direction
    /// nearest to world −Z, framing the shell (rooms) or everything.
    func planCamera(width: Int, height: Int) -> ThumbnailCamera {
        let up = planUp
        let right = SIMD3(-up.z, 0, up.x)  // up × (0, −1, 0) rotated: screen right when looking down
        let b = analysis.bounds
        var lo = SIMD2<Double>(repeating: .infinity), hi = SIMD2<Double>(repeating: -.infinity)
        var points = analysis.framePoints
        if points.isEmpty {
            for i in 0..<8 {
                points.append(
                    SIMD3(
                        i & 1 == 0 ? b.min.x : b.max.x, i & 2 == 0 ? b.min.y : b.max.y, i & 4 == 0 ? b.min.z : b.max.z))
            }
        }
        for p in points {
            let s = SIMD2(p.dot(right), p.dot(up))
            lo = pointwiseMin(lo, s)
            hi = pointwiseMax(hi, s)
        }
        let c = (lo + hi) * 0.5
        let aspect = Double(width) / Double(max(height, 1))
        let half = max((hi.y - lo.y) / 2, (hi.x - lo.x) / 2 / aspect, 1e-3) * (1 + Self.margin * 1.5)
        let centre = right * c.x + up * c.y
        let top = b.isEmpty ? 1 : b.max.y
        let target = SIMD3(centre.x, analysis.floorY, centre.z)
        let eye = SIMD3(centre.x, top + max(analysis.radius, 1), centre.z)
        return .orthographic(position: eye, target: target, up: up, halfExtent: half)
    }

    /// An orthographic view from above at `elevation` degrees (the plan of models whose top view
    /// shows nothing, such as a vertical card), fitted like the plan.
    func obliquePlanCamera(width: Int, height: Int, elevation: Double = 55) -> ThumbnailCamera {
        let b = analysis.bounds
        let el = elevation * Double.pi / 180, az = azimuth(0)
        let dir = SIMD3(sin(az) * cos(el), sin(el), cos(az) * cos(el))
        let f = -dir
        let r = f.cross(SIMD3(0, 1, 0)).normalizedOrZero
        let u = r.cross(f)
        var lo = SIMD2<Double>(repeating: .infinity), hi = SIMD2<Double>(repeating: -.infinity)
        for i in 0..<8 {
            let p = SIMD3(
                i & 1 == 0 ? b.min.x : b.max.x, i & 2 == 0 ? b.min.y : b.max.y, i & 4 == 0 ? b.min.z : b.max.z)
            let s = SIMD2((p - b.center).dot(r), (p - b.center).dot(u))
            lo = pointwiseMin(lo, s)
            hi = pointwiseMax(hi, s)
        }
        let c = (lo + hi) * 0.5
        let aspect = Double(width) / Double(max(height, 1))
        let half = max((hi.y - lo.y) / 2, (hi.x - lo.x) / 2 / aspect, 1e-3) * (1 + Self.margin * 1.5)
        let target = b.center + r * c.x + u * c.y
        return .orthographic(
            position: target + dir * (analysis.radius * 3 + 1), target: target, up: SIMD3(0, 1, 0),
            halfExtent: half)
    }

    /// Screen-up direction of the plan: the wall-aligned horizontal direction closest to −Z
    /// (`WallOrientation.up`, as the floor plan's sheet).
    var planUp: SIMD3<Double> {
        let d = WallOrientation.up(angle: analysis.wallAngle)
        return SIMD3(d.x, 0, d.y)
    }
}

extension SIMD3 where Scalar == Double {
    func withY(_ y: Double) -> SIMD3<Double> { SIMD3(x, y, z) }
}
