import JSONCore
import SceneModel

/// The parts of the manifest that describe a home of several rooms: the walls two rooms scanned
/// from both sides and the floors' levels (in `metrics`), and each room's quality grade (in
/// `quality`). Empty arrays for a single room. Each part's check sits beside its writing.
enum HomeContent {
    static func point(_ p: SIMD2<Double>) -> JSONValue { .array([ManifestNumbers.measure(p.x), ManifestNumbers.measure(p.y)]) }

    /// Throws `ManifestError` for a wall pair that is not two walls of two rooms with finite figures.
    static func check(sharedWalls walls: [SharedWall]) throws {
        for (i, w) in walls.enumerated() {
            let field = "metrics.shared_walls[\(i)]"
            guard w.identifiers.count == 2, w.rooms.count == 2, w.gap.isFinite, w.thickness.isFinite,
                w.from.x.isFinite, w.from.y.isFinite, w.to.x.isFinite, w.to.y.isFinite
            else { throw ManifestError.invalidValue(field: field, value: w.identifiers.joined(separator: "+"), expected: "two walls, finite") }
            for id in w.identifiers { _ = try FieldChecks.identifier(id, field: "\(field).identifiers") }
        }
    }

    static func json(sharedWalls walls: [SharedWall]) -> JSONValue {
        .array(walls.map { w in
            .object([
                "identifiers": .array(w.identifiers.map { .string($0) }),
                "rooms": .array(w.rooms.map { .string($0) }),
                "story": .int(w.story),
                "from": point(w.from),
                "to": point(w.to),
                "length": ManifestNumbers.measure(w.length),
                "gap": ManifestNumbers.measure(w.gap),
                "thickness": ManifestNumbers.measure(w.thickness),
            ])
        })
    }

    /// Throws `ManifestError` for a level that is not finite or moved a negative count of floors.
    static func check(floorLevels levels: [FloorLevel]) throws {
        for (i, l) in levels.enumerated() {
            guard l.height.isFinite, l.largestChange.isFinite else {
                throw ManifestError.invalidValue(field: "metrics.floor_levels[\(i)]", value: "\(l.height)", expected: "finite")
            }
            _ = try FieldChecks.count(l.moved, field: "metrics.floor_levels[\(i)].floors_moved")
        }
    }

    static func json(floorLevels levels: [FloorLevel]) -> JSONValue {
        .array(levels.map { l in
            .object([
                "story": .int(l.story),
                "height": ManifestNumbers.measure(l.height),
                "floors_moved": .int(l.moved),
                "largest_change": ManifestNumbers.measure(l.largestChange),
            ])
        })
    }
}
