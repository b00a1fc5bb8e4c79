import Foundation
import SceneModel
import Testing

/// The wall direction a view from above is squared to, and which of its four turns is up.
@Suite struct WallOrientationTests {
    static func radians(_ degrees: Double) -> Double { degrees * Double.pi / 180 }

    /// A room's walls at 30° and 120°, slightly scattered, with a short wall at 75°: the
    /// direction is their length-weighted mean, modulo 90°; the short odd wall does not count.
    @Test func theDirectionIsTheOneMostWallLengthAgreesWith() {
        let walls: [(angle: Double, length: Double)] = [
            (Self.radians(30), 4), (Self.radians(120.5), 3), (Self.radians(210), 4), (Self.radians(-60.5), 3),
            (Self.radians(75), 0.5),
        ]
        let expected = Self.radians((30 * 4 + 30.5 * 3 + 30 * 4 + 29.5 * 3) / 14)
        #expect(abs(WallOrientation.dominantAngle(walls) - expected) < 1e-12)
        // The order of the walls does not matter when one direction wins clearly.
        #expect(abs(WallOrientation.dominantAngle(walls.reversed()) - expected) < 1e-12)
        #expect(WallOrientation.dominantAngle([]) == 0)
    }

    /// More wall length at 10° than at 40° wins, however many walls there are at 40°.
    @Test func lengthNotCountDecides() {
        var walls: [(angle: Double, length: Double)] = [(Self.radians(10), 9)]
        for _ in 0..<8 { walls.append((Self.radians(40), 1)) }
        #expect(abs(WallOrientation.dominantAngle(walls) - Self.radians(10)) < 1e-12)
    }

    /// Only the longest walls count: 256 walls of 2 m at 40° outweigh a thousand of 1 m at 10°,
    /// which would win if every wall counted; walls without a direction are left out.
    @Test func theLongestWallsDecide() {
        var walls: [(angle: Double, length: Double)] = Array(repeating: (Self.radians(10), 1), count: 1_000)
        walls += Array(repeating: (Self.radians(40), 2), count: WallOrientation.maxWalls)
        walls.append((.nan, 100))
        walls.append((Self.radians(10), .infinity))
        #expect(abs(WallOrientation.dominantAngle(walls) - Self.radians(40)) < 1e-12)
        #expect(WallOrientation.dominantAngle([(.nan, 1)]) == 0)
    }

    /// Up is the one of the four square directions nearest the world's −Z.
    @Test func upIsTheSquareDirectionNearestMinusZ() {
        for (angle, expected) in [(0.0, -90.0), (30, -60), (60, -120), (89, -91), (44.9, -45.1)] {
            let up = WallOrientation.up(angle: Self.radians(angle))
            let got = atan2(up.y, up.x) * 180 / Double.pi
            #expect(abs(got - expected) < 1e-9, "walls at \(angle)°: up at \(got)°, expected \(expected)°")
            #expect(abs((up * up).sum() - 1) < 1e-12)
        }
    }
}
