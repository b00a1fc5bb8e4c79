import JSONCore
import SceneModel

/// The parts of the manifest that describe a home of several rooms: the walls two rooms scanned
/// from both sides and the floors' levels (in `metrics`), and each room's quality grade (in
/// `quality`). Empty arrays for a single room.
enum HomeContent {
    static func point(_ p: SIMD2<Double>) -> JSONValue { .array([ManifestNumbers.measure(p.x), ManifestNumbers.measure(p.y)]) }

    static func sharedWalls(_ walls: [SharedWall]) throws -> JSONValue {
        .array(try walls.enumerated().map { i, w in
            let field = "metrics.shared_walls[\(i)]"
            guard w.identifiers.count == 2, w.rooms.count == 2, w.gap.isFinite, w.thickness.isFinite,
                w.from.x.isFinite, w.from.y.isFinite, w.to.x.isFinite, w.to.y.isFinite
            else { throw ManifestError.invalidValue(field: field, value: w.identifiers.joined(separator: "+"), expected: "two walls, finite") }
            return .object([
                "identifiers": .array(try w.identifiers.map { .string(try FieldChecks.identifier($0, field: "\(field).identifiers")) }),
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

    static func floorLevels(_ levels: [FloorLevel]) throws -> JSONValue {
        .array(try levels.enumerated().map { i, l in
            guard l.height.isFinite, l.largestChange.isFinite else {
                throw ManifestError.invalidValue(field: "metrics.floor_levels[\(i)]", value: "\(l.height)", expected: "finite")
            }
            return .object([
                "story": .int(l.story),
                "height": ManifestNumbers.measure(l.height),
                "floors_moved": try FieldChecks.count(l.moved, field: "metrics.floor_levels[\(i)].floors_moved"),
                "largest_change": ManifestNumbers.measure(l.largestChange),
            ])
        })
    }
}
