import SceneModel
import JSONCore

/// The manifest's `plan` object and `rooms` array (schema version 8).
enum PlanContent {
    static let mediaTypes = PlanRecord.File.mediaTypes

    /// A plan record and its rooms checked (file names and media types, hashes, units, locale,
    /// opening rows, room figures), with its file hashes in lowercase. Throws `ManifestError`.
    static func checked(_ record: PlanRecord?) throws -> PlanRecord? {
        guard var r = record else { return nil }
        for (i, f) in r.files.sorted(by: { $0.path < $1.path }).enumerated() {
            let field = "plan.files[\(i)]"
            let path = try FieldChecks.oneOf(f.path, mediaTypes.keys.sorted(), field: "\(field).path")
            _ = try FieldChecks.oneOf(f.mediaType, [mediaTypes[path]!], field: "\(field).media_type")
            _ = try FieldChecks.count(f.bytes, field: "\(field).bytes")
            _ = try FieldChecks.sha256(f.sha256, field: "\(field).sha256")
        }
        _ = try FieldChecks.oneOf(r.units, ["metric", "imperial"], field: "plan.units")
        _ = try FieldChecks.oneOf(r.locale, ["en", "zh-Hans"], field: "plan.locale")
        _ = try FieldChecks.count(r.sheets, field: "plan.sheets")
        for (i, o) in r.openings.enumerated() {
            let field = "plan.opening_schedule[\(i)]"
            guard !o.identifiers.isEmpty, o.width.isFinite, o.height?.isFinite ?? true, o.sillHeight?.isFinite ?? true else {
                throw ManifestError.invalidValue(field: field, value: o.kind, expected: "an identifier and finite sizes")
            }
            _ = try FieldChecks.oneOf(o.kind, ["door", "window", "opening"], field: "\(field).kind")
            for id in o.identifiers { _ = try FieldChecks.identifier(id, field: "\(field).identifiers") }
        }
        for (i, room) in r.rooms.enumerated() {
            let field = "rooms[\(i)]"
            guard room.area.isFinite, room.perimeter.isFinite, room.polygon.allSatisfy({ $0.x.isFinite && $0.y.isFinite }) else {
                throw ManifestError.invalidValue(field: field, value: room.label, expected: "finite area, perimeter and polygon")
            }
            _ = try FieldChecks.nonEmpty(room.label, field: "\(field).label")
            _ = try FieldChecks.nonEmpty(room.name, field: "\(field).name")
        }
        r.files = r.files.map { f in
            var f = f
            f.sha256 = f.sha256.lowercased()
            return f
        }
        return r
    }

    /// The `plan` object of a checked record (`null` without one).
    static func plan(_ record: PlanRecord?) -> JSONValue {
        guard let r = record else { return .null }
        let files: [JSONValue] = r.files.sorted(by: { $0.path < $1.path }).map { f in
            .object([
                "path": .string(f.path),
                "media_type": .string(f.mediaType),
                "bytes": .int(f.bytes),
                "sha256": .string(f.sha256),
            ])
        }
        var totals: [Int: (area: Double, count: Int)] = [:]
        for room in r.rooms { totals[room.story, default: (0, 0)].area += room.area; totals[room.story]!.count += 1 }
        return .object([
            "files": .array(files),
            "units": .string(r.units),
            "locale": .string(r.locale),
            "wall_thickness": ManifestNumbers.measure(r.wallThickness),
            "sheets": .int(r.sheets),
            "note": .string(r.note),
            "stories": .array(totals.keys.sorted().map { s in
                .object(["story": .int(s), "area": ManifestNumbers.measure(totals[s]!.area), "rooms": .int(totals[s]!.count)])
            }),
            "total_area": ManifestNumbers.measure(r.rooms.reduce(0) { $0 + $1.area }),
            "room_schedule": .array(r.rooms.map { room in
                .object(["name": .string(room.name), "story": .int(room.story), "area": ManifestNumbers.measure(room.area),
                         "perimeter": ManifestNumbers.measure(room.perimeter)])
            }),
            "opening_schedule": .array(r.openings.map { o in
                .object([
                    "kind": .string(o.kind),
                    "identifiers": .array(o.identifiers.map { .string($0) }),
                    "story": .int(o.story),
                    "width": ManifestNumbers.measure(o.width),
                    "height": ManifestNumbers.measure(o.height),
                    "sill_height": ManifestNumbers.measure(o.sillHeight),
                    "rooms": .array(o.rooms.map { .string($0) }),
                    "walls": .array(o.walls.map { .string($0) }),
                ])
            }),
        ])
    }

    /// The `rooms` array of a checked record (empty without one).
    static func rooms(_ record: PlanRecord?) -> JSONValue {
        .array((record?.rooms ?? []).map { r in
            .object([
                "label": .string(r.label),
                "name": .string(r.name),
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
