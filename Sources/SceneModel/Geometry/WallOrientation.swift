#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Which way up a room is shown from above. RoomPlan's world frame turns with the phone's heading
/// at the start of the scan, so its axes mean nothing to a reader; the rendered top-down view and
/// the floor plan both turn the room so that most of its walls run square to the image, and pick
/// the same one of the four such turns.
public enum WallOrientation {
    /// Most walls `dominantAngle` looks at: the longest ones.
    public static let maxWalls = 256

    /// The wall direction (radians in the world's XZ plane, `atan2(z, x)`, modulo 90°) that most
    /// wall length agrees with: each wall's own direction is scored by the length of the walls
    /// within 5° of it (modulo 90°, weighted down linearly with the difference), and the best one
    /// is refined by the length-weighted mean of those walls. Only the `maxWalls` longest walls
    /// take part (the work is quadratic in their count; real rooms have tens). Ties keep the
    /// earliest wall; 0 with no wall.
    ///
    /// - Parameter walls: each wall's direction (radians, any turn; walls without a finite one are
    ///   left out) and length (metres; lengths under 0.01 m, or not finite, count as 0.01 m).
    public static func dominantAngle(_ walls: [(angle: Double, length: Double)]) -> Double {
        let q = Double.pi / 2
        func length(_ i: Int) -> Double { walls[i].length.isFinite ? max(walls[i].length, 0.01) : 0.01 }
        var kept = walls.indices.filter { walls[$0].angle.isFinite }
        if kept.count > maxWalls {
            kept.sort { (length($0), $1) > (length($1), $0) }
            kept = kept.prefix(maxWalls).sorted()
        }
        let angles = kept.map { i -> Double in walls[i].angle - (walls[i].angle / q).rounded(.down) * q }  // [0, 90°)
        let lengths = kept.map(length)
        func delta(_ a: Double, _ b: Double) -> Double {
            var d = (a - b).truncatingRemainder(dividingBy: q)
            if d > q / 2 { d -= q }
            if d < -q / 2 { d += q }
            return d
        }
        let tol = 5 * Double.pi / 180
        var best: (score: Double, angle: Double)?
        for c in angles {
            var score = 0.0
            for (a, length) in zip(angles, lengths) {
                let d = abs(delta(a, c))
                if d < tol { score += length * (1 - d / tol) }
            }
            if best == nil || score > best!.score + 1e-9 { best = (score, c) }
        }
        guard let b = best else { return 0 }
        var sum = 0.0, weight = 0.0
        for (a, length) in zip(angles, lengths) {
            let d = delta(a, b.angle)
            if abs(d) < tol {
                sum += d * length
                weight += length
            }
        }
        return weight > 0 ? b.angle + sum / weight : b.angle
    }

    /// The world direction `(x, z)` (unit) shown as up in a view from above: of the four
    /// directions `angle + k × 90°`, the one nearest the world's −Z (what an unturned view from
    /// above shows as up).
    public static func up(angle: Double) -> SIMD2<Double> {
        var best = SIMD2<Double>(0, -1), bestScore = -Double.infinity
        for k in 0..<4 {
            let a = angle + Double(k) * Double.pi / 2
            let d = SIMD2(cos(a), sin(a))
            let score = -d.y
            if score > bestScore + 1e-9 {
                best = d
                bestScore = score
            }
        }
        return best
    }
}
