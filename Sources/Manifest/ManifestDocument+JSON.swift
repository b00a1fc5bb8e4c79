import JSONCore
import SceneModel

/// How a checked `ManifestDocument` is written: every member the schema lists, `null` where a
/// value is absent, measurements rounded (`ManifestNumbers`). Nothing here checks or throws: the
/// builder checked every value before the document existed.
extension ManifestDocument {
    /// The document as a JSON tree, before serialisation.
    var json: JSONValue {
        .object([
            "schema_version": .int(schemaVersion),
            "generator": .object(["name": .string(generator.name), "version": .string(generator.version)]),
            "version_id": .string(versionId),
            "room_id": .string(roomId),
            "source": .object([
                "format": .string(source.format),
                "is_roomplan": .bool(source.isRoomPlan),
                "reference_origin_transform": source.referenceOriginTransform.map { ManifestNumbers.matrix($0) } ?? .null,
            ]),
            "inputs": .array(inputs.map { f in
                .object([
                    "role": .string(f.role), "name": .string(f.name), "format": .string(f.format),
                    "bytes": .int(f.bytes), "sha256": .string(f.sha256),
                ])
            }),
            "units": .object([
                "source_up_axis": .string(units.sourceUpAxis.rawValue),
                "source_meters_per_unit": .double(units.sourceMetersPerUnit),
                "output": .string(units.output),
            ]),
            "glb": .object([
                "path": .string(glb.path), "bytes": .int(glb.bytes), "sha256": .string(glb.sha256),
                "compression": .string(glb.compression),
                "extensions_required": .array(glb.extensionsRequired.map { .string($0) }),
            ]),
            "bounds": ManifestNumbers.bounds(bounds),
            "stories": .array(stories.map { .int($0) }),
            "layers": .array(layers.map(Self.json)),
            "elements": .array(elements.map(Self.json)),
            "sections": .array(sections.map { s in
                .object(["label": .string(s.label), "center": ManifestNumbers.vector(s.center), "story": .int(s.story)])
            }),
            "metrics": Self.json(metrics),
            "quality": Self.json(quality),
            "thumbnails": .array(thumbnails.map(Self.json)),
            "plan": PlanContent.plan(plan),
            "rooms": PlanContent.rooms(plan),
            "redactions": .array(redactions.map(Self.json)),
            "artifacts": Self.json(artifacts),
            "warnings": Self.json(warnings),
            "stats": .object([
                "meshes": .int(stats.meshes), "triangles": .int(stats.triangles), "vertices": .int(stats.vertices),
                "materials": .int(stats.materials), "textures": .int(stats.textures), "glb_bytes": .int(stats.glbBytes),
            ]),
        ])
    }

    private static func json(_ l: Layer) -> JSONValue {
        .object([
            "id": .string(l.layer.id.rawValue),
            "kind": .string(l.layer.kind.rawValue),
            "category": .string(l.layer.category?.rawValue),
            "node": .int(l.node),
            "node_name": .string(l.nodeName),
            "element_count": .int(l.layer.elements.count),
            "triangles": .int(l.triangles),
            "bounds": ManifestNumbers.bounds(l.bounds),
            "default_visible": .bool(l.layer.defaultVisible),
            "palette": .string(l.palette),
        ])
    }

    private static func json(_ el: Element) -> JSONValue {
        let e = el.element
        return .object([
            "identifier": .string(e.identifier),
            "category": .string(e.category.rawValue),
            "layer": .string(e.layer.rawValue),
            "confidence": .string(e.confidence),
            "dimensions": e.dimensions.map { ManifestNumbers.vector($0) } ?? .null,
            "transform": ManifestNumbers.matrix(e.transform),
            "parent": .string(e.parentIdentifier),
            "story": .int(e.story),
            "attributes": .object(e.attributes.mapValues { .string($0) }),
            "is_open": .bool(e.isOpen),
            "source_prim_path": .string(e.sourcePrimPath),
            "geometry": .string(e.geometry.rawValue),
            "polygon_corners": .array(e.polygonCorners.map { ManifestNumbers.vector($0) }),
            "node": .int(el.node),
            "node_name": .string(el.nodeName),
            "bounds": ManifestNumbers.bounds(el.bounds),
        ])
    }

    private static func json(_ m: RoomMetrics) -> JSONValue {
        .object([
            "floor_area": ManifestNumbers.measure(m.floorArea),
            "floor_area_source": .string(m.floorAreaSource),
            "perimeter": ManifestNumbers.measure(m.perimeter),
            "wall_count": .int(m.wallCount),
            "wall_length": ManifestNumbers.measure(m.wallLength),
            "ceiling_height": ManifestNumbers.measure(m.ceilingHeight),
            "counts_per_layer": .object(Dictionary(uniqueKeysWithValues: m.countsPerLayer.map { ($0.key.rawValue, .int($0.value)) })),
            "counts_per_story": .object(Dictionary(uniqueKeysWithValues: m.countsPerStory.map { (String($0.key), .int($0.value)) })),
            "shared_walls": HomeContent.json(sharedWalls: m.sharedWalls),
            "floor_levels": HomeContent.json(floorLevels: m.floorLevels),
        ])
    }

    /// A grade; a home's also lists its rooms' (`rooms`, empty for a single room), a room's names
    /// its room instead.
    private static func json(_ q: QualityGrade, room: String? = nil) -> JSONValue {
        var out: [String: JSONValue] = [
            "grade": .string(q.grade),
            "high_confidence_wall_share": ManifestNumbers.measure(q.highConfidenceWallShare),
            "wall_confidence_grade": .string(q.wallConfidenceGrade),
            "furniture_count": .int(q.furnitureCount),
            "furniture_grade": .string(q.furnitureGrade),
            "walls_closed": .bool(q.wallsClosed),
            "closure_grade": .string(q.closureGrade),
            "notes": .array(q.notes.map { .string($0) }),
        ]
        if let room {
            out["room"] = .string(room)
        } else {
            out["rooms"] = .array(q.rooms.map { json($0.quality, room: $0.room) })
        }
        return .object(out)
    }

    private static func json(_ t: Thumbnail) -> JSONValue {
        .object([
            "kind": .string(t.kind),
            "path": .string(t.path),
            "width": .int(t.width),
            "height": .int(t.height),
            "bytes": .int(t.bytes),
            "sha256": .string(t.sha256),
            "camera": .object([
                "position": ManifestNumbers.vector(t.camera.position),
                "target": ManifestNumbers.vector(t.camera.target),
                "up": ManifestNumbers.vector(t.camera.up),
                "fov_degrees": ManifestNumbers.measure(t.camera.fovDegrees),
                "ortho_half_extent": ManifestNumbers.measure(t.camera.orthoHalfExtent),
            ]),
            "room": .string(t.kind == "room_card" ? t.room : nil),
        ])
    }

    private static func json(_ r: TextureSubstitution) -> JSONValue {
        .object([
            "texture_path": .string(r.texturePath),
            "replacement_name": .string(r.replacementName),
            "replacement_sha256": .string(r.replacementSHA256),
            "regions": .int(r.regions),
            "applied": .array(r.applied.map { a in
                .object(["redaction_id": .string(a.redactionId), "methods": .array(a.methods.map { .string($0.rawValue) })])
            }),
        ])
    }

    /// Every group by name, `null` for a group not made.
    private static func json(_ records: [ArtifactRecord]) -> JSONValue {
        var out: [String: JSONValue] = Dictionary(uniqueKeysWithValues: ArtifactRecord.names.map { ($0, JSONValue.null) })
        for r in records {
            out[r.name] = .object([
                "key": .string(r.key),
                "stage_version": .int(r.stageVersion),
                "files": .array(r.files.map { .string($0) }),
                "warnings": json(r.warnings),
            ])
        }
        return .object(out)
    }

    private static func json(_ warnings: [SceneWarning]) -> JSONValue {
        .array(warnings.map { w in
            .object(["code": .string(w.code), "message": .string(w.message), "prim_path": .string(w.primPath)])
        })
    }
}
