import SceneModel
import JSONCore

/// The manifest's `plan` object and `rooms` array (schema version 8).
enum PlanContent {
    static let mediaTypes = PlanRecord.File.mediaTypes

    static func plan(_ record: PlanRecord?) throws -> JSONValue {
        guard let r = record else { return .null }
        var files: [JSONValue] = []
        for (i, f) in r.files.sorted(by: { $0.path < $1.path }).enumerated() {
            let field = "plan.files[\(i)]"
            let path = try FieldChecks.oneOf(f.path, mediaTypes.keys.sorted(), field: "\(field).path")
            files.append(.object([
                "path": .string(path),
                "media_type": .string(try FieldChecks.oneOf(f.mediaType, [mediaTypes[path]!], field: "\(field).media_type")),
                "bytes": try FieldChecks.count(f.bytes, field: "\(field).bytes"),
                "sha256": .string(try FieldChecks.sha256(f.sha256, field: "\(field).sha256")),
            ]))
        }
        var totals: [Int: (area: Double, count: Int)] = [:]
        for room in r.rooms { totals[room.story, default: (0, 0)].area += room.area; totals[room.story]!.count += 1 }
        return .object([
            "files": .array(files),
            "units": .string(try FieldChecks.oneOf(r.units, ["metric", "imperial"], field: "plan.units")),
            "locale": .string(try FieldChecks.oneOf(r.locale, ["en", "zh-Hans"], field: "plan.locale")),
            "wall_thickness": ManifestNumbers.measure(r.wallThickness),
            "sheets": try FieldChecks.count(r.sheets, field: "plan.sheets"),
            "note": .string(r.note),
            "stories": .array(totals.keys.sorted().map { s in
                .object(["story": .int(s), "area": ManifestNumbers.measure(totals[s]!.area), "rooms": .int(totals[s]!.count)])
            }),
            "total_area": ManifestNumbers.measure(r.rooms.reduce(0) { $0 + $1.area }),
            "room_schedule": .array(r.rooms.map { room in
                .object(["name": .string(room.name), "story": .int(room.story), "area": ManifestNumbers.measure(room.area),
                         "perimeter": ManifestNumbers.measure(room.perimeter)])
            }),
            "opening_schedule": try openings(r.openings),
        ])
    }

    /// The door and window schedule as a table (`OpeningFigures`).
    static func openings(_ rows: [OpeningFigures]) throws -> JSONValue {
        .array(try rows.enumerated().map { i, o in
            let field = "plan.opening_schedule[\(i)]"
            guard !o.identifiers.isEmpty, o.width.isFinite, o.height?.isFinite ?? true, o.sillHeight?.isFinite ?? true else {
                throw ManifestError.invalidValue(field: field, value: o.kind, expected: "an identifier and finite sizes")
            }
            return .object([
                "kind": .string(try FieldChecks.oneOf(o.kind, ["door", "window", "opening"], field: "\(field).kind")),
                "identifiers": .array(try o.identifiers.map { .string(try FieldChecks.identifier($0, field: "\(field).identifiers")) }),
                "story": .int(o.story),
                "width": ManifestNumbers.measure(o.width),
                "height": ManifestNumbers.measure(o.height),
                "sill_height": ManifestNumbers.measure(o.sillHeight),
                "rooms": .array(o.rooms.map { .string($0) }),
                "walls": .array(o.walls.map { .string($0) }),
            ])
        })
    }

    static func rooms(_ record: PlanRecord?) throws -> JSONValue {
        .array(try (record?.rooms ?? []).enumerated().map { i, r in
            let field = "rooms[\(i)]"
            guard r.area.isFinite, r.perimeter.isFinite, r.polygon.allSatisfy({ $0.x.isFinite && $0.y.isFinite }) else {
                throw ManifestError.invalidValue(field: field, value: r.label, expected: "finite area, perimeter and polygon")
            }
            return .object([
                "label": .string(try FieldChecks.nonEmpty(r.label, field: "\(field).label")),
                "name": .string(try FieldChecks.nonEmpty(r.name, field: "\(field).name")),
                "story": .int(r.story),
                "area": ManifestNumbers.measure(r.area),
                "perimeter": ManifestNumbers.measure(r.perimeter),
                "center": r.center.map { ManifestNumbers.vector($0) } ?? .null,
                "polygon_source": .string(r.polygonSource),
                "polygon": .array(r.polygon.map { .array([ManifestNumbers.measure($0.x), ManifestNumbers.measure($0.y)]) }),
                "elements": .array(r.elements.map { .string($0) }),
                "wall_lengths": .object(r.wallLengths.mapValues { ManifestNumbers.measure($0) }),
            ])
        })
    }
}
